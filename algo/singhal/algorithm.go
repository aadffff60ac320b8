package singhal

import (
	"fmt"

	"github.com/ocbench/ocbench/proto"
)

// Algorithm is the descriptor of Singhal's dynamic information-structure
// algorithm.
type Algorithm struct{}

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "singhal" }

// NewNodes implements proto.Algorithm: the initial staircase.
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
	{Name: "reply", Arg: "none", Payload: "none; Gen = the sender's Lamport clock"},
}

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// Events implements proto.Algorithm: none.
func (Algorithm) Events() []string { return nil }

// StatedCost implements proto.CostAlgorithm: the survey's Table 2, (N−1)
// under light load to 3(N−1)/2 under heavy load.
func (Algorithm) StatedCost(n int) proto.Cost {
	return proto.Cost{Low: float64(n - 1), High: 1.5 * float64(n-1), Text: "(N−1) … 3(N−1)/2"}
}

// Invariants implements proto.Algorithm; nil with crashes.
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	return []proto.Invariant{
		{Name: "cs-request-set-empty", When: proto.EveryStep, Check: CSRequestSetEmpty},
		{Name: "staircase", When: proto.EveryStep, Check: Staircase},
		{Name: "request-set-deferred", When: proto.Quiet, Check: RequestSetDeferred},
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

// CSRequestSetEmpty checks that a node in the CS has R_i = {i}, that it is
// in the request set of every other node, and that no reply to or from it
// is in flight.
func CSRequestSetEmpty(s proto.System) error {
	ns := nodes(s)
	cs := proto.Nil
	for i, nd := range ns {
		if nd.executing {
			if nd.requesting {
				return fmt.Errorf("node %d is in the CS and still requesting", i)
			}
			if nd.rSize != 0 {
				return fmt.Errorf("node %d is in the CS with %d other nodes in its request set", i, nd.rSize)
			}
			cs = proto.NodeID(i)
		}
	}
	if cs == proto.Nil {
		return nil
	}
	for j, nd := range ns {
		if !nd.InR(cs) {
			return fmt.Errorf("node %d is in the CS and not in the request set of node %d", cs, j)
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

// Staircase checks the count behind the staircase property: for each pair
// {i, j}, [j ∈ R_i] + [i ∈ R_j] = 1 + (replies in flight between them), so
// Σ(|R_i| − 1) = N(N−1)/2 + replies in flight. (A reply sent by a node
// lacking the permission would make it larger; a lost one smaller.)
func Staircase(s proto.System) error {
	ns := nodes(s)
	total, replies := 0, 0
	for _, nd := range ns {
		total += nd.rSize
	}
	s.ForEachInFlight(func(m *proto.Message) {
		if m.Type == Reply {
			replies++
		}
	})
	if n := len(ns); total != n*(n-1)/2+replies {
		return fmt.Errorf("request sets hold %d others with %d replies in flight, want N(N−1)/2 + %d = %d", total, replies, replies, n*(n-1)/2+replies)
	}
	return nil
}

// RequestSetDeferred checks, when no message is in flight, that every node
// in a requesting node's request set holds its request in its inform set,
// and that only requesting nodes are in inform sets: no request is lost.
func RequestSetDeferred(s proto.System) error {
	ns := nodes(s)
	count := make([]int, len(ns))
	for _, nd := range ns {
		for _, d := range nd.inform {
			count[d.j]++
		}
	}
	for i, nd := range ns {
		want := 0
		if nd.requesting {
			want = nd.rSize
		}
		if count[i] != want {
			return fmt.Errorf("node %d (requesting %v) has %d others in its request set and is in %d inform sets", i, nd.requesting, nd.rSize, count[i])
		}
	}
	return nil
}
