package opencube

import (
	"testing"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
)

// viewNode is a node that only shows a view: the invariants read nothing
// else of it.
type viewNode struct{ v view }

func (n *viewNode) Step(proto.Input, *proto.Output) {}
func (n *viewNode) View() proto.View                { return n.v.View }
func (n *viewNode) Tree() scheme.TreeView           { return n.v.TreeView }
func (n *viewNode) Waiting(func(proto.NodeID))      {}

// views is a proto.System of view-only nodes, nothing down, nothing in
// flight.
type views []proto.Node

func (s views) Nodes() []proto.Node                  { return s }
func (s views) Down(id proto.NodeID) bool            { return !s[id].View().Up }
func (s views) ForEachInFlight(func(*proto.Message)) {}

// initial returns the views of the initial open-cube of n nodes.
func initial(n int) views {
	s := make(views, n)
	a := Algorithm{FT: &Config{}}
	for i, nd := range a.NewNodes(n) {
		s[i] = &viewNode{viewOf(nd)}
	}
	return s
}

func (s views) set(id proto.NodeID, f func(v *view)) { f(&s[id].(*viewNode).v) }

// TestIdleRoots: in a run with crashes, at most one live node that neither
// asks nor searches is a root.
func TestIdleRoots(t *testing.T) {
	cases := []struct {
		name string
		edit func(s views)
		want string
	}{
		{name: "initial open-cube"},
		{name: "two idle roots", edit: func(s views) { s.set(3, func(v *view) { v.Father = proto.Nil }) },
			want: "crash relations: two idle roots, nodes 0 and 3"},
		{name: "a second root that asks", edit: func(s views) { s.set(3, func(v *view) { v.Father, v.Asked = proto.Nil, true }) }},
		{name: "a second root that searches", edit: func(s views) { s.set(3, func(v *view) { v.Father, v.Searching = proto.Nil, true }) }},
		{name: "a second root that is down", edit: func(s views) { s.set(3, func(v *view) { v.Father, v.Up = proto.Nil, false }) }},
		{name: "no root (crashes may leave none)", edit: func(s views) { s.set(0, func(v *view) { v.Father = 1 }) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := initial(4)
			if c.edit != nil {
				c.edit(s)
			}
			err := IdleRoots(s)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected violation: %v", err)
			case c.want != "" && (err == nil || err.Error() != c.want):
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

// TestShapeOfInitialCubes: the initial open-cube of every size from 2 to
// 1024 passes the shape check, and a node given a second father at its
// father's distance breaks it.
func TestShapeOfInitialCubes(t *testing.T) {
	for n := 2; n <= 1024; n *= 2 {
		s := initial(n)
		if err := Shape(s); err != nil {
			t.Fatalf("N=%d: %v", n, err)
		}
		if n >= 4 {
			s.set(3, func(v *view) { v.Father = 0 }) // 2 and 3 both at distance 2 from 0
			if err := Shape(s); err == nil || err.Error() != "open-cube: node 0 has two sons of power 1" {
				t.Fatalf("N=%d: got %v, want two sons of power 1", n, err)
			}
		}
	}
}

// TestIdleRootFast: idleRoot reads an open-cube node's fields as its view
// and tree view say, up or down, asking, searching, a root or not.
func TestIdleRootFast(t *testing.T) {
	for k := range 16 {
		down, asked, searching, root := k&1 != 0, k&2 != 0, k&4 != 0, k&8 != 0
		nodes := (&Algorithm{FT: &Config{}}).NewNodes(4)
		n := nodes[1].(*Node)
		if down {
			proto.Step(n, proto.Input{Kind: proto.Crash}, &proto.Output{})
		}
		n.core.Asked, n.searching, n.core.Father = asked, searching, 0
		if root {
			n.core.Father = proto.Nil
		}
		v := viewOf(n)
		want := v.Up && !v.Asked && !v.Searching && v.Father == proto.Nil
		if got := idleRoot(views(nodes), 1); got != want {
			t.Errorf("down %v, asked %v, searching %v, root %v: idleRoot %v, its view says %v", down, asked, searching, root, got, want)
		}
		if v.Up == down {
			t.Fatalf("down %v: the node's view says up %v", down, v.Up)
		}
	}
}
