package helaryplouzeauraynal

import (
	"fmt"
	"slices"

	"github.com/ocbench/ocbench/internal/nodecast"
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
// every step, and proto.NoDeadlock when no message is in flight. No
// invariant with crashes (no failure protocol).
func (a Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	return []proto.Invariant{
		{Name: "links", When: proto.EveryStep, Check: Links},
		proto.NoDeadlock,
	}
}

// Links checks that every message in flight goes to a neighbour of its
// sender, and that the token goes to a node that waits for it with the
// serial it carries, with a route of neighbours to it. O(messages in
// flight · route).
func Links(s proto.System) error {
	ns := nodecast.All[*Node](s)
	var err error
	s.ForEachInFlight(func(m *proto.Message) {
		if err != nil {
			return
		}
		if !slices.Contains(ns[m.From].neighbors, m.To) {
			err = fmt.Errorf("links: a %d→%d message (type %d), and %d is not a neighbour of %d", m.From, m.To, m.Type, m.To, m.From)
			return
		}
		if m.Type != Token {
			return
		}
		d := ns[m.J.Node()]
		if v := d.View(); !v.Asked || v.InCS || v.Tag != m.Tag {
			err = fmt.Errorf("links: the token goes to node %d with serial %d, whose view is %+v", d.id, m.Tag, v)
			return
		}
		at := m.To
		route := m.Payload[len(ns):]
		for k := len(route) - 1; k >= 0; k-- {
			next := proto.NodeID(route[k])
			if !slices.Contains(ns[at].neighbors, next) {
				err = fmt.Errorf("links: the token's route to %d goes %d→%d, not a link", d.id, at, next)
				return
			}
			at = next
		}
		if at != d.id {
			err = fmt.Errorf("links: the token's route ends at %d, not its destination %d", at, d.id)
		}
	})
	return err
}

// AnySize implements proto.AnySizeAlgorithm: it needs no hypercube.
func (Algorithm) AnySize() bool { return true }
