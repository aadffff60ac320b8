package proto

import (
	"bytes"
	"encoding/gob"
	"testing"
)

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

// TestRefGob: messages go through encoding/gob (the MPI runtime's trace
// records) with their references intact.
func TestRefGob(t *testing.T) {
	in := []Message{{Type: 1, From: 2, To: 3, J: RefTo(0), Src: RefTo(5), Stamp: 9}, {From: 1, To: 0}}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(in); err != nil {
		t.Fatal(err)
	}
	var out []Message
	if err := gob.NewDecoder(&buf).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].J != in[0].J || out[0].Src != in[0].Src || !out[1].J.IsNil() || !out[1].Src.IsNil() {
		t.Fatalf("gob round trip: %v, want %v", out, in)
	}
}
