package explore

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"
)

// compactSet keeps each state as its 64-bit fingerprint h (hash64 of its
// canonical encoding), compactly (Config.Store, StoreCompact): the top
// shardBits bits of h choose a shard, and the rest, x, is stored by
// quotienting in the shard's table of 128-byte buckets (compactTable): x's
// home bucket is a function of x (its quotient, which the table need not
// store), and a slot holds only the remainder that tells x from the other
// values of its home, with the bucket's distance from the home. A slot
// takes 63 − log2(buckets) bits or so, so that at the largest load (9/10)
// a state takes 7–8 bytes of memory from about a million states on (19 to
// 21 slots a bucket). A shard grows by an eighth when it is 9/10 full, so
// the set never holds more than 1/256 of itself twice, and its load stays
// between 4/5 and 9/10; each value is moved about eight times as the set
// grows, the CPU this store costs beyond the fast one (fpSet). Nothing is
// lost by the compaction: two states with distinct fingerprints are told
// apart. Two distinct states with one fingerprint make the second look
// visited: Collision gives the chance of that. Workers insert under a
// shard's lock.
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
// its bucket's distance from its home plus one (compactDispBits), and the count of
// a bucket's slots used.
type compactTable struct {
	b     []compactBucket
	nb    uint64
	w     uint
	rbits uint
	spb   int
}

// compactBucket is two cache lines of slots, packed from bit 0 on, the
// first spb used; its top 5 bits count them.
type compactBucket [16]uint64

const (
	// compactXBits is how many bits of a fingerprint a shard stores.
	compactXBits = 64 - shardBits
	// compactDispBits is the bits of a slot that say how far its bucket
	// is from the value's home: 1 to compactMaxDisp (0: a free slot). At
	// 9/10 full, a value beyond 7 buckets from its home is next to
	// unknown: such values are kept apart (compactShard.over).
	compactDispBits = 3
	compactMaxDisp  = 1<<compactDispBits - 1
	// compactCountShift places a bucket's count of slots used in the top
	// 5 bits of its last word, above its slots.
	compactCountShift = 64 - 5
)

func newCompactSet() *compactSet {
	s := &compactSet{}
	for k := range s.shards {
		t := newCompactTable(1)
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
	w := rbits + compactDispBits
	return &compactTable{b: make([]compactBucket, nb), nb: nb, w: w, rbits: rbits, spb: int((1024 - 5) / w)}
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
	d := v&compactMaxDisp - 1
	r := v >> compactDispBits
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
// A bucket's slots are used from the first on and never freed, so x is in
// the buckets from its home to the first that is not full.
func (t *compactTable) insert(x uint64) (added, ok bool) {
	b := t.home(x)
	r := x & (1<<t.rbits - 1) << compactDispBits
	mask := uint64(1)<<t.w - 1
	for d := uint64(1); d <= compactMaxDisp; d++ {
		bk := &t.b[b]
		want := r | d
		n := int(bk[15] >> compactCountShift)
		// slot(bk, i) for i < n, the offset carried instead of
		// multiplied (3–10% of an insert in BenchmarkCompactSet).
		o := uint(0)
		for range n {
			k, s := o/64, o%64
			if (bk[k&15]>>s|bk[(k+1)&15]<<(64-s))&mask == want {
				return false, true
			}
			o += t.w
		}
		if n < t.spb {
			t.put(bk, n, want)
			return true, true
		}
		if b++; b == t.nb {
			b = 0
		}
	}
	return false, false
}

// insertNew adds x, which the table does not hold (a shard's values moved
// to a larger table), and reports whether a slot within compactMaxDisp
// buckets of its home was free.
func (t *compactTable) insertNew(x uint64) bool {
	b := t.home(x)
	r := x & (1<<t.rbits - 1) << compactDispBits
	for d := uint64(1); d <= compactMaxDisp; d++ {
		bk := &t.b[b]
		if n := int(bk[15] >> compactCountShift); n < t.spb {
			t.put(bk, n, r|d)
			return true
		}
		if b++; b == t.nb {
			b = 0
		}
	}
	return false
}

// put writes v in slot i of bucket bk, the first free one, and counts it.
func (t *compactTable) put(bk *compactBucket, i int, v uint64) {
	o := uint(i) * t.w
	k, s := o/64, o%64
	bk[k&15] |= v << s
	if s+t.w > 64 {
		bk[(k+1)&15] |= v >> (64 - s)
	}
	bk[15] += 1 << compactCountShift
}

func (s *compactSet) prefetch(h uint64) {
	t := s.shards[h>>compactXBits].t.Load()
	b := &t.b[t.home(h&(1<<compactXBits-1))]
	prefetch(unsafe.Pointer(&b[0]))
	prefetch(unsafe.Pointer(&b[8])) // a bucket is two cache lines
}

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
		for i := range int(bk[15] >> compactCountShift) {
			sh.reinsert(t, old.value(uint64(b), old.slot(bk, i), &lo))
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
	if t.insertNew(x) {
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
