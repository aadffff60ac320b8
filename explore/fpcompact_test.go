package explore

import (
	"math/bits"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// This file keeps, with its tests, a compact alternative to fpSet that
// was measured and not adopted (docs/explore.md, "Speed and memory"): at
// 7.3–8 bytes a state from a million states on, it cost the open-cube
// speed case 1.8 times the CPU (growing by an eighth) or 1.25 times
// (doubling, which gives back the bytes).

// compactSet keeps each state as its 64-bit fingerprint h (hash64 of its
// canonical encoding), compactly: the top shardBits bits of h choose a
// shard, and the rest, x, is stored by quotienting in the shard's table
// of 128-byte buckets (compactTable): x's home bucket is a function of x (its
// quotient, which the table need not store), and a slot holds only the
// remainder that tells x from the other values of its home, with the
// bucket's distance from the home. A slot takes 64 − log2(buckets) bits
// or so, so that at the largest load (9/10) a state takes 7–8 bytes of
// memory from about a million states on (19 or 20 slots a bucket), 8–9
// in a small table. A shard grows by an eighth when it is 9/10 full, so
// the set never holds more than 1/256 of itself twice, and its load stays
// between 4/5 and 9/10. Nothing is lost by the compaction: two states
// with distinct fingerprints are told apart. Two distinct states with one
// fingerprint make the second look visited: Collision gives the chance of
// that.
type compactSet struct {
	shards [1 << shardBits]compactShard
	total  atomic.Int64 // bytes of the shards' tables
}

type compactShard struct {
	mu sync.Mutex
	// t is the table (replaced when it grows; read without the lock by
	// prefetch only).
	t atomic.Pointer[compactTable]
	n int // slots used
	// over holds the values that found no free slot within compactMaxDisp
	// buckets of their home (at a load of 9/10, next to none).
	over map[uint64]struct{}
	_    [32]byte // one shard a cache line
}

// compactTable is one shard's table: nb buckets of slots of w bits, spb a
// bucket, each 0 (free) or a value's remainder (its rbits low bits) and
// its bucket's distance from its home plus one (4 bits).
type compactTable struct {
	b     []compactBucket
	nb    uint64
	w     uint
	rbits uint
	spb   int
}

// compactBucket is a cache line of slots, packed from bit 0 on.
type compactBucket [16]uint64

const (
	// compactXBits is how many bits of a fingerprint a shard stores.
	compactXBits = 64 - shardBits
	// compactMaxDisp bounds how far from its home bucket a value is stored (the
	// 4 bits of distance: 1 to 15).
	compactMaxDisp = 15
)

func newCompactSet() *compactSet {
	s := &compactSet{}
	for k := range s.shards {
		t := newCompactTable(4)
		s.shards[k].t.Store(t)
		s.total.Add(t.bytes())
	}
	return s
}

// newCompactTable returns a table of nb buckets, empty. The home of x is
// ⌊x·nb / 2^compactXBits⌋, so the values of one home are an interval of at most
// ⌈2^compactXBits/nb⌉ ≤ 2^rbits values: their rbits low bits tell them apart.
func newCompactTable(nb uint64) *compactTable {
	rbits := uint(compactXBits - bits.Len64(nb) + 1)
	w := rbits + 4
	return &compactTable{b: make([]compactBucket, nb), nb: nb, w: w, rbits: rbits, spb: int(1024 / w)}
}

func (t *compactTable) bytes() int64 { return int64(len(t.b)) * int64(unsafe.Sizeof(compactBucket{})) }

func (t *compactTable) home(x uint64) uint64 {
	hi, _ := bits.Mul64(x<<shardBits, t.nb)
	return hi
}

// value returns the x stored in bucket b as v (remainder and distance
// d): the one of home b − d whose low bits are the remainder. lo caches
// the least value of recent homes.
func (t *compactTable) value(b uint64, v uint64, lo *compactLo) uint64 {
	d := v&15 - 1
	r := v >> 4
	if b < d {
		b += t.nb
	}
	b -= d
	c := &lo[b%uint64(len(lo))]
	if c[0] != b+1 {
		// ⌈b·2^compactXBits / nb⌉, the least value of home b.
		q, rem := bits.Div64(b>>(64-compactXBits), b<<compactXBits, t.nb)
		if rem != 0 {
			q++
		}
		c[0], c[1] = b+1, q
	}
	q := c[1]
	return q + (r-q)&(1<<t.rbits-1)
}

// compactLo holds, for a few homes b, b + 1 and the least value of b.
type compactLo [16][2]uint64

func (t *compactTable) slot(b *compactBucket, i int) uint64 {
	o := uint(i) * t.w
	k, s := o/64, o%64
	// The next word's bits past the slot are masked off (and a slot in
	// the last word lies in it whole).
	return (b[k]>>s | b[(k+1)&15]<<(64-s)) & (1<<t.w - 1)
}

// insert adds x unless it is there and reports whether it was added; ok
// is false when no slot within compactMaxDisp buckets of its home is free.
func (t *compactTable) insert(x uint64) (added, ok bool) {
	b := t.home(x)
	r := x & (1<<t.rbits - 1) << 4
	mask := uint64(1)<<t.w - 1
	for d := uint64(1); d <= compactMaxDisp; d++ {
		bk := &t.b[b]
		want := r | d
		o := uint(0)
		for range t.spb {
			k, s := o/64, o%64
			v := (bk[k&15]>>s | bk[(k+1)&15]<<(64-s)) & mask
			if v == 0 {
				bk[k&15] |= want << s
				if s+t.w > 64 {
					bk[k+1] |= want >> (64 - s)
				}
				return true, true
			}
			if v == want {
				return false, true
			}
			o += t.w
		}
		if b++; b == t.nb {
			b = 0
		}
	}
	return false, false
}

func (s *compactSet) prefetch(h uint64) {
	t := s.shards[h>>compactXBits].t.Load()
	b := &t.b[t.home(h&(1<<compactXBits-1))]
	prefetch(unsafe.Pointer(&b[0]))
	prefetch(unsafe.Pointer(&b[8])) // a bucket is two cache lines
}

// compactSet is a visited set: one that search.go could take instead of fpSet.
var _ visited = (*compactSet)(nil)

func (s *compactSet) add(_ int, h uint64, _ []byte) bool {
	sh := &s.shards[h>>compactXBits]
	x := h & (1<<compactXBits - 1)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	t := sh.t.Load()
	if sh.n*10 >= int(t.nb)*t.spb*9 {
		t = sh.grow(s)
	}
	added, ok := t.insert(x)
	switch {
	case added:
		sh.n++
		return true
	case ok:
		return false
	}
	if _, in := sh.over[x]; in {
		return false
	}
	if sh.over == nil {
		sh.over = map[uint64]struct{}{}
	}
	sh.over[x] = struct{}{}
	s.total.Add(compactOverBytes)
	return true
}

// compactOverBytes is what a value kept outside the table costs (a map entry).
const compactOverBytes = 24

// grow replaces the shard's table by one an eighth larger, with the same
// values.
func (sh *compactShard) grow(s *compactSet) *compactTable {
	old := sh.t.Load()
	t := newCompactTable(old.nb + max(old.nb/8, 1))
	over := sh.over
	sh.over, sh.n = nil, 0
	var lo compactLo
	for b := range old.b {
		bk := &old.b[b]
		for i := range old.spb {
			v := old.slot(bk, i)
			if v == 0 {
				break
			}
			sh.reinsert(t, old.value(uint64(b), v, &lo))
		}
	}
	for x := range over {
		sh.reinsert(t, x)
	}
	s.total.Add(t.bytes() - old.bytes() - int64(len(over)-len(sh.over))*compactOverBytes)
	sh.t.Store(t)
	return t
}

func (sh *compactShard) reinsert(t *compactTable, x uint64) {
	if _, ok := t.insert(x); ok {
		sh.n++
		return
	}
	if sh.over == nil {
		sh.over = map[uint64]struct{}{}
	}
	sh.over[x] = struct{}{}
}

func (s *compactSet) bytes() int64 { return s.total.Load() }

func (s *compactSet) release() {}

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
