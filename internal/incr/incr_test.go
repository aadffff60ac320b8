package incr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/internal/incr"
	"github.com/ocbench/ocbench/proto"
)

// node is a node whose view a test sets.
type node struct{ v proto.View }

func (n *node) Step(proto.Input, *proto.Output) {}
func (n *node) View() proto.View                { return n.v }
func (n *node) Waiting(func(proto.NodeID))      {}

// system is a proto.System of nodes, none down, nothing in flight.
type system []proto.Node

func (s system) Nodes() []proto.Node                  { return s }
func (s system) Down(proto.NodeID) bool               { return false }
func (s system) ForEachInFlight(func(*proto.Message)) {}

func view(s proto.System, i proto.NodeID) proto.View { return s.Nodes()[i].View() }

// badInCS is the bad node of the tests: in the critical section without
// the token; holds is what AtMost counts: the token's holders.
func badInCS(s proto.System, i proto.NodeID) bool {
	v := view(s, i)
	return v.InCS && !v.TokenHere
}

func holds(s proto.System, i proto.NodeID) bool { return view(s, i).TokenHere }

func whole(bad func(proto.System, proto.NodeID) bool, most int, is func(proto.System, proto.NodeID) bool) func(proto.System) error {
	return func(s proto.System) error {
		k := 0
		for i := range s.Nodes() {
			if bad != nil && bad(s, proto.NodeID(i)) {
				return fmt.Errorf("node %d is bad", i)
			}
			if is != nil && is(s, proto.NodeID(i)) {
				k++
			}
		}
		if is != nil && k > most {
			return fmt.Errorf("%d nodes, at most %d", k, most)
		}
		return nil
	}
}

// TestCheckers changes one node at a time (a step of it), from a system
// where the invariant holds, and compares each checker's Step with its
// whole check.
func TestCheckers(t *testing.T) {
	set := func(v *proto.View, tok, cs bool) { v.TokenHere, v.InCS = tok, cs }
	type change struct {
		node    int
		tok, cs bool
		broken  bool // the whole check fails after it
	}
	cases := []struct {
		name    string
		check   func(proto.System) error
		make    func() proto.Incremental
		changes []change
	}{
		{name: "local: a node enters with the token, leaves, enters without",
			check: whole(badInCS, 0, nil), make: incr.Local(whole(badInCS, 0, nil), badInCS),
			changes: []change{{node: 1, tok: true, cs: true}, {node: 1, tok: true}, {node: 2, cs: true, broken: true}}},
		{name: "at most one holder: the token moves, then a second appears",
			check: whole(nil, 1, holds), make: incr.AtMost(whole(nil, 1, holds), 1, holds, nil),
			changes: []change{{node: 0}, {node: 3, tok: true}, {node: 2, tok: true, broken: true}}},
		{name: "at most one holder and no bad node",
			check: whole(badInCS, 1, holds), make: incr.AtMost(whole(badInCS, 1, holds), 1, holds, badInCS),
			changes: []change{{node: 0, tok: true, cs: true}, {node: 1, cs: true, broken: true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ns := make([]*node, 4)
			s := make(system, 4)
			for i := range ns {
				ns[i] = &node{v: proto.View{Bits: proto.Bits{Up: true}}}
				s[i] = ns[i]
			}
			ns[0].v.TokenHere = true
			chk := c.make()
			if err := chk.Full(s); err != nil {
				t.Fatalf("Full: %v", err)
			}
			for k, ch := range c.changes {
				set(&ns[ch.node].v, ch.tok, ch.cs)
				err := chk.Step(s, proto.NodeID(ch.node), nil, nil)
				if got := c.check(s) != nil; got != ch.broken {
					t.Fatalf("change %d: the whole check fails: %v, the case says %v", k, got, ch.broken)
				}
				switch {
				case ch.broken && !errors.Is(err, incr.ErrBroken):
					t.Fatalf("change %d: Step = %v, want incr.ErrBroken", k, err)
				case !ch.broken && err != nil:
					t.Fatalf("change %d: Step = %v, want nil", k, err)
				}
			}
		})
	}
}
