package raynal

import (
	"fmt"

	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Invariants implements proto.Algorithm: without crashes, Permission and
// SeenNotAhead after every step. proto.NoDeadlock does not apply (a node
// waits on a timer between rounds with nothing in flight). The algorithm
// has no failure protocol, hence no invariant with crashes.
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	return proto.WithoutCrashes(crashes,
		proto.Invariant{Name: "permission", When: proto.EveryStep, Check: Permission},
		proto.Invariant{Name: "seen_not_ahead", When: proto.EveryStep, Check: SeenNotAhead})
}

func nodes(s proto.System) []*Node { return nodecast.All[*Node](s) }

// Permission checks that the nodes' variables X give exactly one
// privileged node h (their product is Q/A_h), and that a node in the
// critical section is h. O(n).
func Permission(s proto.System) error {
	ns := nodes(s)
	h := Privileged(func(j int) uint64 { return ns[j].m }, len(ns))
	if h == proto.Nil {
		return fmt.Errorf("permission: the product of the X is Q/A_h for no node h (m = %v)", ms(ns))
	}
	for _, n := range ns {
		if n.inCS && n.id != h {
			return fmt.Errorf("permission: node %d is in the critical section, node %d holds the permission", n.id, h)
		}
	}
	return nil
}

func ms(ns []*Node) []uint64 {
	out := make([]uint64, len(ns))
	for i, n := range ns {
		out[i] = n.m
	}
	return out
}

// SeenNotAhead checks that what a node knows of another's m is never ahead
// of it: an asking node's m_j from replies, a reply's Stamp (its sender's
// m), a pass request's Stamp (its receiver's m). O(n · asking nodes +
// messages in flight).
func SeenNotAhead(s proto.System) error {
	ns := nodes(s)
	for _, n := range ns {
		if !n.asked {
			continue
		}
		for j, m := range n.seen {
			if j != int(n.id) && m > ns[j].m {
				return fmt.Errorf("seen_not_ahead: node %d saw m = %d at node %d, which has %d", n.id, m, j, ns[j].m)
			}
		}
	}
	var err error
	s.ForEachInFlight(func(m *proto.Message) {
		switch {
		case err != nil:
		case m.Type == Reply && m.Stamp > ns[m.From].m:
			err = fmt.Errorf("seen_not_ahead: a reply %d→%d carries m = %d, its sender has %d", m.From, m.To, m.Stamp, ns[m.From].m)
		case m.Type == Request && m.Reply == Pass && m.Stamp > ns[m.To].m:
			err = fmt.Errorf("seen_not_ahead: a pass request %d→%d carries m = %d, its receiver has %d", m.From, m.To, m.Stamp, ns[m.To].m)
		}
	})
	return err
}
