package nodecast

import (
	"strings"
	"testing"

	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

type a struct {
	proto.Node
	id proto.NodeID
}
type b struct{ proto.Node }

func TestChecked(t *testing.T) {
	for _, c := range []struct {
		name  string
		nodes []proto.Node
		err   string
	}{
		{"all a", []proto.Node{&a{}, &a{}}, ""},
		{"none", []proto.Node{}, ""},
		{"a b", []proto.Node{&a{}, &b{}}, "node 1 is a *nodecast.b, not a A node"},
	} {
		got, err := Checked(steptest.System(c.nodes, nil), "A", Is[*a])
		switch {
		case c.err == "" && (err != nil || len(got) != len(c.nodes)):
			t.Errorf("%s: %d nodes, %v", c.name, len(got), err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		}
	}
}

func TestAll(t *testing.T) {
	ns := []proto.Node{&a{}, &a{}}
	s := steptest.System(ns, nil)
	if got := All[*a](s); len(got) != 2 || got[0] != ns[0] || got[1] != ns[1] {
		t.Errorf("All: %v", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("All of a b: no panic")
		}
	}()
	All[*a](steptest.System([]proto.Node{&a{}, &b{}}, nil))
}

// TestNew: n nodes, node i set up with id i.
func TestNew(t *testing.T) {
	ns := New(3, func(nd *a, id proto.NodeID) { nd.id = id + 10 })
	if len(ns) != 3 {
		t.Fatalf("%d nodes, want 3", len(ns))
	}
	for i, p := range ns {
		if nd, ok := p.(*a); !ok || nd.id != proto.NodeID(i)+10 {
			t.Errorf("node %d: %#v", i, p)
		}
	}
}
