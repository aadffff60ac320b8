package explore

import (
	"math/rand/v2"
	"testing"
)

// TestCompactSet: the compact set against a map, through its growths.
func TestCompactSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gens := []func() uint64{rng.Uint64, func() uint64 { return rng.Uint64() >> shardBits },
		func() uint64 { return rng.Uint64()<<40 | 0xabcde }, func() uint64 { return rng.Uint64N(5000) * 0x9e3779b97f4a7c15 }}
	for g, gen := range gens {
		s := newCompactSet()
		want := map[uint64]bool{}
		for range 100_000 {
			h := gen()
			if got := s.add(0, h, nil); got != !want[h] {
				t.Fatalf("generator %d: add(%#x) = %v after %d values", g, h, got, len(want))
			}
			want[h] = true
		}
		for h := range want {
			if s.add(0, h, nil) {
				t.Fatalf("generator %d: %#x was lost", g, h)
			}
		}
	}
}

// TestCompactSetBytes: from a million states on, the compact set takes at
// most 8 bytes a state (its tables' bytes over the states).
func TestCompactSetBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("3 million insertions")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	s := newCompactSet()
	n := 0
	for _, checkpoint := range []int{1_000_000, 1_500_000, 2_000_000, 3_000_000} {
		for n < checkpoint {
			if s.add(0, rng.Uint64(), nil) {
				n++
			}
		}
		if b := float64(s.bytes()) / float64(n); b > 8 {
			t.Errorf("%d states: %.2f B a state", n, b)
		}
	}
}

// BenchmarkCompactSet is BenchmarkFPSet's for the compact set.
func BenchmarkCompactSet(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	hs := make([]uint64, 1<<21)
	for k := range hs {
		hs[k] = rng.Uint64()
	}
	s := newCompactSet()
	b.ResetTimer()
	for k := range b.N {
		s.add(0, hs[k&(1<<21-1)], nil)
	}
}
