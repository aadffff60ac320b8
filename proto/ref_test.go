package proto

import "testing"

// TestRef: the zero Ref names no node, RefTo(Nil) is the zero Ref, and a
// Ref gives back the id it was built from (node 0 included).
func TestRef(t *testing.T) {
	var zero Ref
	if !zero.IsNil() || zero.Node() != Nil || zero.String() != "nil" || zero != RefTo(Nil) || !zero.Is(Nil) {
		t.Fatalf("zero Ref: IsNil %v, Node %d, %q", zero.IsNil(), zero.Node(), zero)
	}
	for _, id := range []NodeID{0, 1, 7, 1<<31 - 2} {
		r := RefTo(id)
		if r.IsNil() || r.Node() != id || !r.Is(id) || r.Is(id+1) || r.Is(Nil) || r == zero {
			t.Fatalf("RefTo(%d): IsNil %v, Node %d", id, r.IsNil(), r.Node())
		}
	}
	if s := RefTo(0).String(); s != "0" {
		t.Fatalf("RefTo(0).String() = %q", s)
	}
	// A Message left without J or Src names no node.
	if m := (Message{Type: 1, From: 2, To: 3}); !m.J.IsNil() || !m.Src.IsNil() {
		t.Fatalf("unset J, Src: %v, %v", m.J, m.Src)
	}
}
