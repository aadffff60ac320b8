package kexcl

import (
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/proto"
)

// TestNeedOf: k is in 1..K, every k in 1..K is drawn for enough serials,
// a Need function is clamped to 1..K, and K < 1 counts as 1.
func TestNeedOf(t *testing.T) {
	for _, c := range []struct {
		seed uint64
		kmax int
	}{{0, 1}, {1, 2}, {7, 3}, {42, 5}, {3, 8}} {
		seen := map[int]int{}
		for tag := range uint32(2000) {
			k := NeedOf(c.seed, c.kmax, nil, tag)
			if k < 1 || k > c.kmax {
				t.Fatalf("seed %d K %d tag %d: k = %d", c.seed, c.kmax, tag, k)
			}
			seen[k]++
		}
		if len(seen) != c.kmax {
			t.Errorf("seed %d K %d: only %d distinct k over 2000 serials", c.seed, c.kmax, len(seen))
		}
	}
	need := func(tag uint32) int { return int(tag) - 1 }
	for _, c := range []struct {
		tag  uint32
		kmax int
		want int
	}{{0, 3, 1}, {1, 3, 1}, {3, 3, 2}, {4, 3, 3}, {9, 3, 3}, {9, 0, 1}} {
		if got := NeedOf(0, c.kmax, need, c.tag); got != c.want {
			t.Errorf("NeedOf(need, K=%d, tag %d) = %d, want %d", c.kmax, c.tag, got, c.want)
		}
	}
	if got := NeedOf(5, 0, nil, 17); got != 1 {
		t.Errorf("K = 0: k = %d, want 1", got)
	}
}

type unitNode struct {
	in    bool
	units int
}

func (u *unitNode) Step(proto.Input, *proto.Output) {}
func (u *unitNode) View() proto.View                { return proto.View{Bits: proto.Bits{Up: true, InCS: u.in}} }
func (u *unitNode) Waiting(func(proto.NodeID))      {}
func (u *unitNode) Units() int                      { return u.units }

type plainNode struct{ unitNode }

func (p *plainNode) Units() {} // not a UnitNode: one unit while in

type sys []proto.Node

func (s sys) Nodes() []proto.Node                  { return s }
func (s sys) Down(proto.NodeID) bool               { return false }
func (s sys) ForEachInFlight(func(*proto.Message)) {}

// TestAtMost: the units of the nodes in the critical section add up;
// beyond ℓ the invariant fails.
func TestAtMost(t *testing.T) {
	s := sys{&unitNode{true, 2}, &unitNode{false, 0}, &unitNode{true, 1}, &plainNode{unitNode{true, 5}}}
	if u, k := InUse(s); u != 4 || k != 3 {
		t.Fatalf("InUse = %d units, %d nodes; want 4, 3", u, k)
	}
	for _, c := range []struct {
		ell int
		ok  bool
	}{{3, false}, {4, true}, {5, true}} {
		if err := AtMost(c.ell).Check(s); (err == nil) != c.ok {
			t.Errorf("ℓ = %d: %v", c.ell, err)
		}
	}
}

// TestUnit: K > 1, K < 0 and ℓ < 1 are refused, with the algorithm's
// name; every request asks for one unit.
func TestUnit(t *testing.T) {
	for _, c := range []struct {
		u    Unit
		want string // the error, "" for none
	}{
		{Unit{Ell: 1}, ""},
		{Unit{Ell: 3, K: 1}, ""},
		{Unit{Ell: 3, K: 2}, "alg: K = 2: why (K = 1)"},
		{Unit{Ell: 0}, "alg: ℓ = 0, want ≥ 1"},
		{Unit{Ell: 2, K: -1}, "alg: K = -1, want 1"},
	} {
		err := c.u.Check("alg", "why")
		if got := fmt.Sprint(err); (err == nil) != (c.want == "") || err != nil && got != c.want {
			t.Errorf("%+v: Check says %v, want %q", c.u, err, c.want)
		}
	}
	for tag := range uint32(100) {
		if k := (Unit{Ell: 4, Seed: 7}).NeedOf(tag); k != 1 {
			t.Fatalf("tag %d asks for %d units", tag, k)
		}
	}
}

// TestInvariants: none with crashes; otherwise ell_exclusion, the
// algorithm's own in order, and the deadlock check.
func TestInvariants(t *testing.T) {
	own := proto.Invariant{Name: "own", When: proto.EveryStep}
	if got := Invariants(2, true, own); got != nil {
		t.Errorf("with crashes: %v", got)
	}
	var names []string
	for _, inv := range Invariants(2, false, own, own) {
		names = append(names, inv.Name)
	}
	if want := "[ell_exclusion own own " + proto.NoDeadlock.Name + "]"; fmt.Sprint(names) != want {
		t.Errorf("invariants %v, want %s", names, want)
	}
}
