package raynal

import (
	"fmt"

	"github.com/ocbench/ocbench/internal/incr"
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Invariants implements proto.Algorithm: without crashes, Permission and
// SeenNotAhead after every step. proto.NoDeadlock does not apply (a node
// waits on a timer between rounds with nothing in flight). The algorithm
// has no failure protocol, hence no invariant with crashes.
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	return proto.WithoutCrashes(crashes,
		proto.Invariant{Name: "permission", When: proto.EveryStep, Check: Permission,
			Incremental: func() proto.Incremental { return &permission{} }},
		proto.Invariant{Name: "seen_not_ahead", When: proto.EveryStep, Check: SeenNotAhead,
			Incremental: func() proto.Incremental { return &seenNotAhead{} }})
}

func nodes(s proto.System) []*Node { return nodecast.All[*Node](s) }

// Permission checks that the nodes' variables X give exactly one
// privileged node h (their product is Q/A_h), and that a node in the
// critical section is h. O(n).
func Permission(s proto.System) error {
	ns := nodes(s)
	h := Privileged(func(j int) uint64 { return ns[j].m }, len(ns))
	if h == proto.Nil {
		return fmt.Errorf("permission: the product of the X is Q/A_h for no node h (m = %v)", appendMs(nil, s.Nodes()))
	}
	for _, n := range ns {
		if n.inCS && n.id != h {
			return fmt.Errorf("permission: node %d is in the critical section, node %d holds the permission", n.id, h)
		}
	}
	return nil
}

// SeenNotAhead checks that what a node knows of another's m is never ahead
// of it: an asking node's m_j from replies, a reply's Stamp (its sender's
// m), a pass request's Stamp (its receiver's m). O(n · asking nodes +
// messages in flight).
func SeenNotAhead(s proto.System) error {
	ps := s.Nodes()
	for _, p := range ps {
		if err := seenAt(ps, p.(*Node)); err != nil {
			return err
		}
	}
	var err error
	s.ForEachInFlight(func(m *proto.Message) {
		if err == nil {
			err = stampOf(ps, m)
		}
	})
	return err
}

// seenAt is SeenNotAhead for what node n saw of the others' m, among
// nodes ps.
func seenAt(ps []proto.Node, n *Node) error {
	if !n.asked {
		return nil
	}
	for j, m := range n.seen {
		if at := ps[j].(*Node).m; j != int(n.id) && m > at {
			return fmt.Errorf("seen_not_ahead: node %d saw m = %d at node %d, which has %d", n.id, m, j, at)
		}
	}
	return nil
}

// stampOf is SeenNotAhead for message m in flight among nodes ps.
func stampOf(ps []proto.Node, m *proto.Message) error {
	switch {
	case m.Type == Reply && m.Stamp > ps[m.From].(*Node).m:
		return fmt.Errorf("seen_not_ahead: a reply %d→%d carries m = %d, its sender has %d", m.From, m.To, m.Stamp, ps[m.From].(*Node).m)
	case m.Type == Request && m.Reply == Pass && m.Stamp > ps[m.To].(*Node).m:
		return fmt.Errorf("seen_not_ahead: a pass request %d→%d carries m = %d, its receiver has %d", m.From, m.To, m.Stamp, ps[m.To].(*Node).m)
	}
	return nil
}

// seenNotAhead is SeenNotAhead step by step. A node's m only grows, and
// what SeenNotAhead compares with an m is fixed (a message's Stamp) or
// changes only when its node steps (what it saw), so a bound that held
// holds while its node does not step: after a step of node id, what id saw
// and the messages the step sent are checked, in O(n + messages sent),
// where SeenNotAhead reads every message in flight (at N = 256, raynal
// has about 2N² in flight). A step that lowers an m is read whole.
type seenNotAhead struct{ m []uint64 }

// Full implements proto.Incremental.
func (c *seenNotAhead) Full(s proto.System) error {
	c.m = appendMs(c.m[:0], s.Nodes())
	return SeenNotAhead(s)
}

// Step implements proto.Incremental.
func (c *seenNotAhead) Step(s proto.System, id proto.NodeID, _ *proto.Message, out []proto.Message) error {
	ps := s.Nodes()
	n := ps[id].(*Node)
	if n.m < c.m[id] {
		return proto.ErrFull
	}
	c.m[id] = n.m
	if err := seenAt(ps, n); err != nil {
		return err
	}
	for i := range out {
		if err := stampOf(ps, &out[i]); err != nil {
			return err
		}
	}
	return nil
}

// permission is Permission step by step: the privileged node is a
// function of the nodes' m, and a step that changes no m leaves it where
// it was, so only the stepping node is read (in the critical section, it
// must be that node); a step that changes an m (the permission passes,
// once or so a critical section) is read whole. O(1) a step where
// Permission is O(n).
type permission struct {
	m []uint64
	h proto.NodeID
}

// Full implements proto.Incremental.
func (c *permission) Full(s proto.System) error {
	c.m = appendMs(c.m[:0], s.Nodes())
	c.h = Privileged(func(j int) uint64 { return c.m[j] }, len(c.m))
	return Permission(s)
}

// appendMs appends every node's m (nodes ps) to dst: what the step-by-step
// checkers keep to see a step change an m.
func appendMs(dst []uint64, ps []proto.Node) []uint64 {
	for _, p := range ps {
		dst = append(dst, p.(*Node).m)
	}
	return dst
}

// Step implements proto.Incremental.
func (c *permission) Step(s proto.System, id proto.NodeID, _ *proto.Message, _ []proto.Message) error {
	n := s.Nodes()[id].(*Node)
	switch {
	case n.m != c.m[id]:
		return proto.ErrFull
	case n.inCS && id != c.h:
		return incr.ErrBroken
	}
	return nil
}
