package arbiter

import (
	"slices"
	"testing"

	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// grid is the 2×2 grid of Maekawa's structure on 4 nodes: node i's sets
// are its row and its column, and j informs k when they share either.
type grid struct{}

func (grid) sets(i proto.NodeID) []proto.NodeID {
	var q []proto.NodeID
	for j := range proto.NodeID(4) {
		if j/2 == i/2 || j%2 == i%2 {
			q = append(q, j)
		}
	}
	return q
}

func (grid) Informs(j, k proto.NodeID, _ int) bool { return j/2 == k/2 || j%2 == k%2 }

func newGrid(stamp bool) []proto.Node {
	nodes := make([]Node, 4)
	out := make([]proto.Node, 4)
	for i := range nodes {
		q := grid{}.sets(proto.NodeID(i))
		nodes[i].Init(proto.NodeID(i), 4, q, q, grid{}, stamp)
		out[i] = &nodes[i]
	}
	return out
}

// TestInvariantsCatch: a node in the critical section without a
// permission, or whose informing set's arbiter is free, is caught by
// Arbiters and InCSHoldsQuorum; a busy arbiter's permission held by nobody
// by OnePermission.
func TestInvariantsCatch(t *testing.T) {
	check := func(name string, f func(proto.System) error) proto.Invariant {
		return proto.Invariant{Name: name, When: proto.EveryStep, Check: f}
	}
	invs := []proto.Invariant{check("arbiters", Arbiters), check("quorum", InCSHoldsQuorum), check("one", OnePermission)}
	nodes := newGrid(true)
	if c := steptest.Caught(invs, steptest.System(nodes, nil)); len(c) != 0 {
		t.Fatalf("initial state: caught %v", c)
	}
	n3 := nodes[3].(*Node)
	n3.inCS, n3.asked, n3.granted = true, true, 2
	if c := steptest.Caught(invs, steptest.System(nodes, nil)); !slices.Equal(c, []string{"arbiters", "quorum", "one"}) {
		t.Errorf("2 of 3 permissions: caught %v", c)
	}
	n3.granted = 3
	if c := steptest.Caught(invs, steptest.System(nodes, nil)); !slices.Equal(c, []string{"arbiters", "one"}) {
		t.Errorf("arbiters free: caught %v", c)
	}
}

// TestStamp: the View's Gen is the pending request's timestamp for a
// stamped node (Sanders'), 0 for the other (Maekawa's); a lone request
// enters after its quorum's grants.
func TestStamp(t *testing.T) {
	for _, stamp := range []bool{false, true} {
		types := []proto.MessageType{{Name: "request", Arg: "none"}, {Name: "grant", Arg: "none"}}
		net := &steptest.Net{T: t, Nodes: newGrid(stamp), Types: types}
		net.Enter(3, "request() 3→1", "request() 3→2")
		want := uint64(0)
		if stamp {
			want = 1
		}
		if g := net.Nodes[3].View().Gen; g != want {
			t.Errorf("stamp %v: Gen %d, want %d", stamp, g, want)
		}
		net.Deliver("request() 3→1", "grant() 1→3")
		net.Deliver("request() 3→2", "grant() 2→3")
		net.Deliver("grant() 1→3")
		net.Deliver("grant() 2→3")
		if v := net.Nodes[3].View(); !v.InCS {
			t.Errorf("stamp %v: not in the critical section after every grant: %+v", stamp, v)
		}
	}
}
