package retained

import (
	"fmt"

	"github.com/ocbench/ocbench/internal/incr"
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Algorithm is the descriptor of one of the package's two algorithms:
// CarvalhoRoucairol or Singhal.
type Algorithm struct {
	name string
	// staircase: Singhal's initial structure, each pair's permission at
	// the higher id (R_i = {0, …, i−1} ∪ {i}); otherwise no permission
	// exists before the pair's first exchange.
	staircase bool
	// clockInReplies: a reply carries the sender's clock, which raises the
	// receiver's (Singhal's Step 4); otherwise only requests move clocks.
	clockInReplies bool
}

// The package's algorithms.
var (
	// CarvalhoRoucairol is Ricart–Agrawala with retained permissions.
	CarvalhoRoucairol = Algorithm{name: "carvalho-roucairol"}
	// Singhal is Singhal's dynamic information-structure algorithm.
	Singhal = Algorithm{name: "singhal", staircase: true, clockInReplies: true}
)

// Name implements proto.Algorithm.
func (a Algorithm) Name() string { return a.name }

// MemoryPerNode implements proto.MemoryEstimator: a bit per node of the
// system at each node and a few hundred bytes (measured at N = 256..4096).
func (Algorithm) MemoryPerNode(n int) int64 { return int64(n)/8 + 160 }

// NewNodes implements proto.Algorithm.
func (a Algorithm) NewNodes(n int) []proto.Node {
	out := make([]proto.Node, n)
	for i := range out {
		out[i] = newNode(a, proto.NodeID(i), n)
	}
	return out
}

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.PermissionBased }

var messageTypes = []proto.MessageType{
	{Name: "request", Arg: "none", Payload: "none", Stamp: "the request's Lamport timestamp"},
	{Name: "reply", Arg: "none", Payload: "none"},
}

var singhalTypes = []proto.MessageType{
	messageTypes[Request],
	{Name: "reply", Arg: "none", Payload: "none", Stamp: "the sender's Lamport clock"},
}

// MessageTypes implements proto.Algorithm.
func (a Algorithm) MessageTypes() []proto.MessageType {
	if a.clockInReplies {
		return singhalTypes
	}
	return messageTypes
}

// Events implements proto.Algorithm: none.
func (Algorithm) Events() []string { return nil }

// StatedCost implements proto.CostAlgorithm: the survey's Table 2;
// Carvalho–Roucairol's 0 to 2(N−1), Singhal's (N−1) under light load to
// 3(N−1)/2 under heavy load.
func (a Algorithm) StatedCost(n int) proto.Cost {
	if a.staircase {
		return proto.Cost{Low: float64(n - 1), High: 1.5 * float64(n-1), Text: "(N−1) … 3(N−1)/2", Source: "survey T2", Kind: proto.Range}
	}
	return proto.Cost{Low: 0, High: float64(2 * (n - 1)), Text: "0 … 2(N−1)", Source: "survey T2", Kind: proto.Range}
}

// Invariants implements proto.Algorithm; nil with crashes. After every
// step, a node in the CS holds every permission, and the pairs have at most
// one permission each (Singhal: exactly one, the staircase); when nothing
// is in flight, every permission a requester lacks is its request deferred
// by the holder.
func (a Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	count := proto.Invariant{Name: "at-most-one-permission-per-pair", When: proto.EveryStep, Check: PermissionCount,
		Incremental: func() proto.Incremental { return &permCount{exact: false} }}
	if a.staircase {
		count = proto.Invariant{Name: "staircase", When: proto.EveryStep, Check: Staircase,
			Incremental: func() proto.Incremental { return &permCount{exact: true} }}
	}
	return []proto.Invariant{
		{Name: "cs-holds-every-permission", When: proto.EveryStep, Check: CSHoldsEveryPermission,
			Incremental: func() proto.Incremental { return &csHolds{} }},
		count,
		{Name: "missing-permissions-deferred", When: proto.Quiet, Check: MissingDeferred},
	}
}

func nodes(s proto.System) []*Node { return nodecast.All[*Node](s) }

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
	if total, pairs := permissions(s); total > pairs {
		return fmt.Errorf("%d permissions held or in flight, more than one per pair (%d)", total, pairs)
	}
	return nil
}

// Staircase checks the count behind Singhal's staircase: each pair {i, j}
// has exactly one permission, held or in flight as a reply; with R_i the
// nodes whose permission i lacks, [j ∈ R_i] + [i ∈ R_j] = 1 + (replies in
// flight between them). A reply sent by a node lacking the permission would
// make one more, a lost reply one less.
func Staircase(s proto.System) error {
	if total, pairs := permissions(s); total != pairs {
		return fmt.Errorf("%d permissions held or in flight, want exactly one per pair (%d)", total, pairs)
	}
	return nil
}

// permissions returns the permissions held or in flight as replies, and the
// number of pairs.
func permissions(s proto.System) (total, pairs int) {
	ns := nodes(s)
	for _, nd := range ns {
		total += nd.held
	}
	s.ForEachInFlight(func(m *proto.Message) {
		if m.Type == Reply {
			total++
		}
	})
	return total, len(ns) * (len(ns) - 1) / 2
}

// permCount is PermissionCount (exact false) or Staircase (exact true)
// step by step: the count of permissions changes only by the stepping
// node's own and the replies its step received and sent, O(1 + messages
// sent) a step, where the whole count reads every message in flight.
type permCount struct {
	exact bool
	held  []int // each node's permissions held, as last counted
	total int
}

// Full implements proto.Incremental.
func (c *permCount) Full(s proto.System) error {
	c.held = c.held[:0]
	for _, p := range s.Nodes() {
		c.held = append(c.held, p.(*Node).held)
	}
	c.total, _ = permissions(s)
	if c.exact {
		return Staircase(s)
	}
	return PermissionCount(s)
}

// Step implements proto.Incremental.
func (c *permCount) Step(s proto.System, id proto.NodeID, in *proto.Message, out []proto.Message) error {
	ps := s.Nodes()
	h := ps[id].(*Node).held
	c.total += h - c.held[id]
	c.held[id] = h
	if in != nil && in.Type == Reply {
		c.total--
	}
	for i := range out {
		if out[i].Type == Reply {
			c.total++
		}
	}
	pairs := len(ps) * (len(ps) - 1) / 2
	if c.total > pairs || c.exact && c.total != pairs {
		return incr.ErrBroken
	}
	return nil
}

// csHolds is CSHoldsEveryPermission step by step. It keeps the node in the
// critical section and, per node, the replies in flight to or from it. A
// node that enters is checked against every other node (O(N), once a
// critical section); after any other step, the stepping node alone is read:
// whether it is the one in the critical section, or holds its permission.
type csHolds struct {
	cs    proto.NodeID // the node in the critical section, proto.Nil, or manyInCS
	repl  []int        // replies in flight to or from each node
	nodes int
}

// manyInCS is csHolds.cs when more than one node is in the critical
// section: every step is then read whole.
const manyInCS = proto.Nil - 1

// Full implements proto.Incremental.
func (c *csHolds) Full(s proto.System) error {
	ps := s.Nodes()
	c.nodes, c.cs = len(ps), proto.Nil
	c.repl = append(c.repl[:0], make([]int, len(ps))...)
	for i, p := range ps {
		if p.(*Node).inCS {
			if c.cs != proto.Nil {
				c.cs = manyInCS
				break
			}
			c.cs = proto.NodeID(i)
		}
	}
	s.ForEachInFlight(func(m *proto.Message) {
		if m.Type == Reply {
			c.repl[m.From]++
			c.repl[m.To]++
		}
	})
	return CSHoldsEveryPermission(s)
}

// Step implements proto.Incremental.
func (c *csHolds) Step(s proto.System, id proto.NodeID, in *proto.Message, out []proto.Message) error {
	if c.cs == manyInCS {
		return proto.ErrFull
	}
	if in != nil && in.Type == Reply {
		c.repl[in.From]--
		c.repl[in.To]--
	}
	for i := range out {
		if out[i].Type == Reply {
			c.repl[out[i].From]++
			c.repl[out[i].To]++
		}
	}
	ps := s.Nodes()
	x := ps[id].(*Node)
	switch {
	case x.inCS && c.cs != proto.Nil && c.cs != id:
		return proto.ErrFull // two in the critical section
	case x.inCS:
		entered := c.cs != id
		c.cs = id
		if x.requesting || x.held != c.nodes-1 || c.repl[id] != 0 {
			return incr.ErrBroken
		}
		if entered {
			for j, p := range ps {
				if proto.NodeID(j) != id && p.(*Node).Holds(id) {
					return incr.ErrBroken
				}
			}
		}
	case c.cs == id:
		c.cs = proto.Nil // it left
	case c.cs != proto.Nil:
		if x.Holds(c.cs) || c.repl[c.cs] != 0 {
			return incr.ErrBroken
		}
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
