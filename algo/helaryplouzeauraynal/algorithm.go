package helaryplouzeauraynal

import (
	"fmt"
	"slices"

	"github.com/ocbench/ocbench/proto"
)

// Algorithm is the Hélary–Plouzeau–Raynal algorithm on a topology.
type Algorithm struct{ Topology Topology }

// The algorithm on the topologies of the survey's Table 1.
var (
	OnComplete = Algorithm{Topology: Complete{}}
	OnLine     = Algorithm{Topology: Line{}}
	OnRing     = Algorithm{Topology: Ring{}}
	OnTree     = Algorithm{Topology: Tree{}}
)

// Name implements proto.Algorithm.
func (a Algorithm) Name() string { return a.Topology.Name() }

// NewNodes implements proto.Algorithm; the nodes and their arrays are
// allocated together.
func (a Algorithm) NewNodes(size int) []proto.Node {
	nodes := make([]Node, size)
	times := make([]uint64, 2*size*size)
	tags := make([]uint32, size*size)
	paths := make([][]proto.NodeID, size*size)
	out := make([]proto.Node, size)
	for i := range nodes {
		nd := &nodes[i]
		nd.id, nd.n = proto.NodeID(i), size
		nd.neighbors = a.Topology.Neighbors(nd.id, size)
		nd.known = times[2*i*size : (2*i+1)*size : (2*i+1)*size]
		nd.granted = times[(2*i+1)*size : (2*i+2)*size : (2*i+2)*size]
		nd.knownTag = tags[i*size : (i+1)*size : (i+1)*size]
		nd.path = paths[i*size : (i+1)*size : (i+1)*size]
		nd.reset()
		out[i] = nd
	}
	return out
}

// MemoryPerNode implements proto.MemoryEstimator: two times (8 bytes
// each), a serial (4) and a path header (24) per node of the system, the
// neighbours, and about 150 bytes.
func (a Algorithm) MemoryPerNode(n int) int64 {
	return 44*int64(n) + 4*int64(len(a.Topology.Neighbors(0, n))) + 150
}

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.TokenBased }

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// Events implements proto.Algorithm: none.
func (Algorithm) Events() []string { return nil }

// StatedCost implements proto.CostAlgorithm: the survey's figure for the
// topology (Table 1).
func (a Algorithm) StatedCost(n int) proto.Cost { return a.Topology.Cost(n) }

// Invariants implements proto.Algorithm: without crashes, Links after
// every step (step by step: links), and proto.NoDeadlock when no message
// is in flight. No invariant with crashes (no failure protocol).
func (a Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	return []proto.Invariant{
		{Name: "links", When: proto.EveryStep, Check: Links, Incremental: func() proto.Incremental { return &links{} }},
		proto.NoDeadlock,
	}
}

// Links checks that every message in flight goes to a neighbour of its
// sender, and that the token goes to a node that waits for it with the
// serial it carries, with a route of neighbours to it. O(messages in
// flight · (degree + route)).
func Links(s proto.System) error {
	ns := s.Nodes()
	var err error
	s.ForEachInFlight(func(m *proto.Message) {
		if err == nil {
			err = linkOf(ns, m)
		}
	})
	return err
}

// linkOf is Links for one message m in flight among nodes ns.
func linkOf(ns []proto.Node, m *proto.Message) error {
	if !slices.Contains(ns[m.From].(*Node).neighbors, m.To) {
		return fmt.Errorf("links: a %d→%d message (type %d), and %d is not a neighbour of %d", m.From, m.To, m.Type, m.To, m.From)
	}
	if m.Type == Token {
		return tokenOf(ns, m)
	}
	return nil
}

// tokenOf checks the token m in flight: its destination waits for it with
// its serial, and its route goes by links to it.
func tokenOf(ns []proto.Node, m *proto.Message) error {
	d := ns[m.J.Node()].(*Node)
	if v := d.View(); !v.Asked || v.InCS || v.Tag != m.Tag {
		return fmt.Errorf("links: the token goes to node %d with serial %d, whose view is %+v", d.id, m.Tag, v)
	}
	at := m.To
	route := m.Payload[len(ns):]
	for k := len(route) - 1; k >= 0; k-- {
		next := proto.NodeID(route[k])
		if !slices.Contains(ns[at].(*Node).neighbors, next) {
			return fmt.Errorf("links: the token's route to %d goes %d→%d, not a link", d.id, at, next)
		}
		at = next
	}
	if at != d.id {
		return fmt.Errorf("links: the token's route ends at %d, not its destination %d", at, d.id)
	}
	return nil
}

// links is Links step by step. A message in flight does not change, so its
// link is checked once, when it is sent; what else Links reads of the
// token in flight is its destination's view, which changes only when the
// destination steps. So a step is checked in O(messages it sent ·
// degree), where Links reads every message in flight (at N = 256 on the
// complete graph, saturated, about a thousand times the run's own cost).
type links struct {
	tok []proto.Message // the tokens in flight (one in a correct run)
}

// Full implements proto.Incremental.
func (l *links) Full(s proto.System) error {
	l.tok = l.tok[:0]
	s.ForEachInFlight(func(m *proto.Message) {
		if m.Type == Token {
			l.tok = append(l.tok, *m) // its payload is never changed once sent
		}
	})
	return Links(s)
}

// Step implements proto.Incremental.
func (l *links) Step(s proto.System, id proto.NodeID, in *proto.Message, out []proto.Message) error {
	ns := s.Nodes()
	if in != nil && in.Type == Token {
		k := slices.IndexFunc(l.tok, func(m proto.Message) bool {
			return m.From == in.From && m.To == in.To && m.Tag == in.Tag && m.J == in.J
		})
		if k < 0 || len(l.tok) > 1 {
			return proto.ErrFull // not the one token tracked: read everything
		}
		l.tok = l.tok[:0]
	}
	for i := range out {
		if err := linkOf(ns, &out[i]); err != nil {
			return err
		}
		if out[i].Type == Token {
			l.tok = append(l.tok, out[i])
		}
	}
	for i := range l.tok {
		if l.tok[i].J.Node() == id {
			if err := tokenOf(ns, &l.tok[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// AnySize implements proto.AnySizeAlgorithm: it needs no hypercube.
func (Algorithm) AnySize() bool { return true }
