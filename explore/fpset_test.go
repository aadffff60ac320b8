package explore

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// TestFPSet: the fingerprint set against a map, through its growths,
// with fingerprints that share their low bits or their shard.
func TestFPSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name string
		gen  func() uint64
	}{
		{"uniform", rng.Uint64},
		{"one shard", func() uint64 { return rng.Uint64() >> shardBits }},
		{"shared low bits", func() uint64 { return rng.Uint64()<<40 | 0xabcde }},
		{"few values", func() uint64 { return rng.Uint64N(5000) * 0x9e3779b97f4a7c15 }},
		{"small numbers", func() uint64 { return rng.Uint64N(1 << 20) }},
	}
	for _, c := range cases {
		s := newFPSet()
		defer s.release()
		want := map[uint64]bool{}
		for range 300_000 {
			h := c.gen()
			if got := s.add(h, nil); got != !want[h] {
				t.Fatalf("%s: add(%#x) = %v after %d values, want %v", c.name, h, got, len(want), !want[h])
			}
			want[h] = true
		}
		for h := range want {
			if s.add(h, nil) {
				t.Fatalf("%s: %#x was lost", c.name, h)
			}
		}
	}
}

// TestFPSetWorkers: workers adding overlapping values find each new
// exactly once between them.
func TestFPSetWorkers(t *testing.T) {
	s := newFPSet()
	defer s.release()
	const workers, each = 4, 100_000
	var wg sync.WaitGroup
	added := make([]int, workers)
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(5, uint64(k)))
			for range each {
				h := rng.Uint64N(each) * 0x9e3779b97f4a7c15
				if s.add(h, nil) {
					added[k]++
				}
			}
		}()
	}
	wg.Wait()
	distinct := map[uint64]bool{}
	for k := range workers {
		rng := rand.New(rand.NewPCG(5, uint64(k)))
		for range each {
			distinct[rng.Uint64N(each)*0x9e3779b97f4a7c15] = true
		}
	}
	total := 0
	for _, a := range added {
		total += a
	}
	if total != len(distinct) {
		t.Errorf("%d added by the workers, %d distinct", total, len(distinct))
	}
}

// BenchmarkFPSet adds fresh fingerprints (half of them met before).
func BenchmarkFPSet(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	hs := make([]uint64, 1<<21)
	for k := range hs {
		hs[k] = rng.Uint64()
	}
	s := newFPSet()
	defer s.release()
	b.ResetTimer()
	for k := range b.N {
		s.add(hs[k&(1<<21-1)], nil)
	}
}
