package explore

import (
	"math/rand/v2"
	"slices"
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
		s := newFPSet(1)
		defer s.release()
		want := map[uint64]bool{}
		for range 300_000 {
			h := c.gen()
			if got := s.add(0, h, nil); got != !want[h] {
				t.Fatalf("%s: add(%#x) = %v after %d values, want %v", c.name, h, got, len(want), !want[h])
			}
			want[h] = true
		}
		for h := range want {
			if s.add(0, h, nil) {
				t.Fatalf("%s: %#x was lost", c.name, h)
			}
		}
	}
}

// TestFPSetWorkers: workers adding overlapping values find each new
// exactly once between them, whether they share the work evenly, one of
// them adds nearly everything (its limits run out while the others'
// stay), or the values all fall in one shard; the tables never fill past
// 3/4 (else an add could probe for ever).
func TestFPSetWorkers(t *testing.T) {
	cases := []struct {
		name    string
		workers int
		each    []int // values each worker adds
		value   func(uint64) uint64
	}{
		{"even", 4, []int{100_000, 100_000, 100_000, 100_000}, func(v uint64) uint64 { return v * 0x9e3779b97f4a7c15 }},
		{"one busy", 2, []int{200_000, 300}, func(v uint64) uint64 { return v * 0x9e3779b97f4a7c15 }},
		{"one shard", 3, []int{50_000, 50_000, 50_000}, func(v uint64) uint64 { return (v * 0x9e3779b97f4a7c15) >> shardBits }},
		{"many workers", 100, slices.Repeat([]int{500}, 100), func(v uint64) uint64 { return v * 0x9e3779b97f4a7c15 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newFPSet(c.workers)
			defer s.release()
			draw := func(k int) []uint64 {
				rng := rand.New(rand.NewPCG(5, uint64(k)))
				vs := make([]uint64, c.each[k])
				for i := range vs {
					vs[i] = c.value(rng.Uint64N(uint64(c.each[k])))
				}
				return vs
			}
			var wg sync.WaitGroup
			added := make([]int, c.workers)
			for k := range c.workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for _, h := range draw(k) {
						if s.add(k, h, nil) {
							added[k]++
						}
					}
				}()
			}
			wg.Wait()
			distinct := map[uint64]bool{}
			for k := range c.workers {
				for _, h := range draw(k) {
					distinct[h] = true
				}
			}
			total := 0
			for _, a := range added {
				total += a
			}
			if total != len(distinct) {
				t.Errorf("%d added by the workers, %d distinct", total, len(distinct))
			}
			for k, slots := range s.slots {
				used := 0
				for _, h := range slots {
					if h != 0 {
						used++
					}
				}
				if used*4 > len(slots)*3 {
					t.Errorf("shard %d: %d of %d slots used, more than 3/4", k, used, len(slots))
				}
			}
		})
	}
}

// BenchmarkFPSet adds fresh fingerprints (half of them met before).
func BenchmarkFPSet(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	hs := make([]uint64, 1<<21)
	for k := range hs {
		hs[k] = rng.Uint64()
	}
	s := newFPSet(1)
	defer s.release()
	b.ResetTimer()
	for k := range b.N {
		s.add(0, hs[k&(1<<21-1)], nil)
	}
}
