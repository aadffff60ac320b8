package tsorder

import (
	"strings"
	"testing"

	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

type node struct {
	proto.Node
	v proto.View
}

func (n node) View() proto.View { return n.v }

func TestBefore(t *testing.T) {
	for _, c := range []struct {
		a    uint64
		i    proto.NodeID
		b    uint64
		j    proto.NodeID
		want bool
	}{{1, 5, 2, 0, true}, {2, 0, 1, 5, false}, {3, 1, 3, 2, true}, {3, 2, 3, 1, false}, {3, 2, 3, 2, false}} {
		if got := Before(c.a, c.i, c.b, c.j); got != c.want {
			t.Errorf("Before(%d, %d, %d, %d) = %v", c.a, c.i, c.b, c.j, got)
		}
	}
}

// TestCSFirst: the first request in the critical section passes; a later
// one, or a node in it without asking, fails.
func TestCSFirst(t *testing.T) {
	asking := func(ts uint64) node { return node{v: proto.View{Bits: proto.Bits{Asked: true}, Gen: ts}} }
	in := func(ts uint64) node { return node{v: proto.View{Bits: proto.Bits{Asked: true, InCS: true}, Gen: ts}} }
	for _, c := range []struct {
		name string
		s    []proto.Node
		err  string
	}{
		{"nobody in", []proto.Node{asking(3), asking(2)}, ""},
		{"first in", []proto.Node{asking(3), in(2), node{}}, ""},
		{"tie broken by id", []proto.Node{in(2), asking(2)}, ""},
		{"later in", []proto.Node{asking(4), asking(2), in(3)}, "node 2 is in the critical section with request (3, 2), but node 1's (2, 1) precedes it"},
		{"later by id", []proto.Node{asking(2), in(2)}, "node 0's (2, 0) precedes it"},
		{"in without asking", []proto.Node{node{v: proto.View{Bits: proto.Bits{InCS: true}}}}, "without asking"},
	} {
		err := CSFirst(steptest.System(c.s, nil))
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
}
