package carvalhoroucairol

import (
	"fmt"

	"github.com/ocbench/ocbench/proto"
)

// Algorithm is the Carvalho–Roucairol algorithm's descriptor.
type Algorithm struct{}

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "carvalho-roucairol" }

// NewNodes implements proto.Algorithm.
func (Algorithm) NewNodes(n int) []proto.Node {
	out := make([]proto.Node, n)
	for i := range out {
		out[i] = newNode(proto.NodeID(i), n)
	}
	return out
}

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.PermissionBased }

var messageTypes = []proto.MessageType{
	{Name: "request", Arg: "none", Payload: "none; Gen = the request's Lamport timestamp"},
	{Name: "reply", Arg: "none", Payload: "none"},
}

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// Events implements proto.Algorithm: none.
func (Algorithm) Events() []string { return nil }

// StatedCost implements proto.CostAlgorithm: the survey's Table 2.
func (Algorithm) StatedCost(n int) proto.Cost {
	return proto.Cost{Low: 0, High: float64(2 * (n - 1)), Text: "0 … 2(N−1)"}
}

// Invariants implements proto.Algorithm; nil with crashes.
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	return []proto.Invariant{
		{Name: "cs-holds-every-permission", When: proto.EveryStep, Check: CSHoldsEveryPermission},
		{Name: "at-most-one-permission-per-pair", When: proto.EveryStep, Check: PermissionCount},
		{Name: "missing-permissions-deferred", When: proto.Quiet, Check: MissingDeferred},
	}
}

func nodes(s proto.System) []*Node {
	ns := s.Nodes()
	out := make([]*Node, len(ns))
	for i, nd := range ns {
		out[i] = nd.(*Node)
	}
	return out
}

// CSHoldsEveryPermission checks that a node in the CS holds the permission
// of every other node, that no other node holds its permission, and that no
// reply to or from it is in flight (a reply is a permission): the pair's one
// permission is with the node in the CS.
func CSHoldsEveryPermission(s proto.System) error {
	ns := nodes(s)
	cs := proto.Nil
	for i, nd := range ns {
		if nd.inCS {
			if nd.requesting {
				return fmt.Errorf("node %d is in the CS and still requesting", i)
			}
			if nd.held != len(ns)-1 {
				return fmt.Errorf("node %d is in the CS with %d of %d permissions", i, nd.held, len(ns)-1)
			}
			cs = proto.NodeID(i)
		}
	}
	if cs == proto.Nil {
		return nil
	}
	for j, nd := range ns {
		if proto.NodeID(j) != cs && nd.Holds(cs) {
			return fmt.Errorf("node %d is in the CS and node %d holds its permission", cs, j)
		}
	}
	var err error
	s.ForEachInFlight(func(m *proto.Message) {
		if err == nil && m.Type == Reply && (m.To == cs || m.From == cs) {
			err = fmt.Errorf("node %d is in the CS and a reply %d→%d is in flight", cs, m.From, m.To)
		}
	})
	return err
}

// PermissionCount checks that the permissions held and the replies in
// flight are at most one per pair: N(N−1)/2 in all.
func PermissionCount(s proto.System) error {
	ns := nodes(s)
	total := 0
	for _, nd := range ns {
		total += nd.held
	}
	s.ForEachInFlight(func(m *proto.Message) {
		if m.Type == Reply {
			total++
		}
	})
	if n := len(ns); total > n*(n-1)/2 {
		return fmt.Errorf("%d permissions held or in flight, more than one per pair (%d)", total, n*(n-1)/2)
	}
	return nil
}

// MissingDeferred checks, when no message is in flight, that every
// permission a requesting node lacks is a request of it deferred by the
// node that holds the permission, and that only requesting nodes have
// deferred requests: no request is lost, so the system is not stuck.
func MissingDeferred(s proto.System) error {
	ns := nodes(s)
	count := make([]int, len(ns))
	for _, nd := range ns {
		for _, d := range nd.deferred {
			count[d.j]++
		}
	}
	for i, nd := range ns {
		want := 0
		if nd.requesting {
			want = len(ns) - 1 - nd.held
		}
		if count[i] != want {
			return fmt.Errorf("node %d (requesting %v) lacks %d permissions and %d nodes defer its request", i, nd.requesting, len(ns)-1-nd.held, count[i])
		}
	}
	return nil
}
