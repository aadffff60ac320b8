package explore

import (
	"bytes"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"
)

// visited is the set of states a search has reached, shared by its
// workers: add inserts a state (its encoding enc, whose hash64 is h) and
// reports whether it was new.
type visited interface {
	add(h uint64, enc []byte) bool
	// prefetch starts bringing in the slot where h goes, without a lock:
	// an add of h that follows other work then finds it in the cache.
	prefetch(h uint64)
	// bytes returns the memory the set takes (kept as it grows: no lock).
	bytes() int64
	// release returns the memory the set holds outside the Go heap; the
	// set is not used after it.
	release()
}

// shardBits is log2 of the number of shards of a visited set: a shard is
// chosen by the hash's top bits and locked for an insert, so that workers
// rarely wait for one another.
const shardBits = 8

// fpSet keeps each state as its 64-bit fingerprint (hash64 of its
// canonical encoding) in open-addressing tables (linear probing, at most
// 3/4 full), one per shard. Two distinct states with one fingerprint make
// the second look visited: Collision gives the chance of that.
//
// The shards' tables of one size are parts of one region (a generation,
// bigAlloc's: huge pages), shard k's the k-th part; a generation is
// returned once every shard has grown out of it. Tables whose generation
// would be smaller than a huge page are the Go heap's.
type fpSet struct {
	shards [1 << shardBits]fpShard
	total  atomic.Int64 // bytes of the shards' tables
	genMu  sync.Mutex
	gens   [64]fpGen // by log2 of a shard's slots
}

// fpGen is a generation of an fpSet's tables: its memory, its mapping
// (bigAlloc's), and how many shards have grown out of it.
type fpGen struct {
	mem, m []byte
	moved  int
}

type fpShard struct {
	mu    sync.Mutex
	slots []uint64 // 0: empty
	n     int
	// base and mask are slots' address and length − 1, for prefetch
	// (read without the lock: a torn pair only prefetches a wrong line).
	base atomic.Pointer[uint64]
	mask atomic.Uint64
	_    [8]byte // one shard a cache line
}

func newFPSet() *fpSet {
	s := &fpSet{}
	for k := range s.shards {
		s.shards[k].setSlots(make([]uint64, 8))
	}
	s.total.Store(int64(len(s.shards)) * 8 * 8)
	return s
}

func (sh *fpShard) setSlots(slots []uint64) {
	sh.slots = slots
	sh.base.Store(&slots[0])
	sh.mask.Store(uint64(len(slots) - 1))
}

func (s *fpSet) prefetch(h uint64) {
	if h == 0 {
		h = 1
	}
	sh := &s.shards[h>>(64-shardBits)]
	prefetch(unsafe.Add(unsafe.Pointer(sh.base.Load()), (h&sh.mask.Load())*8))
}

func (s *fpSet) add(h uint64, _ []byte) bool {
	if h == 0 {
		h = 1 // 0 marks an empty slot
	}
	k := h >> (64 - shardBits)
	sh := &s.shards[k]
	sh.mu.Lock()
	if sh.n*4 >= len(sh.slots)*3 {
		s.total.Add(int64(len(sh.slots)) * 8) // the table doubles
		s.grow(sh, int(k))
	}
	mask := uint64(len(sh.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch sh.slots[i] {
		case 0:
			sh.slots[i] = h
			sh.n++
			sh.mu.Unlock()
			return true
		case h:
			sh.mu.Unlock()
			return false
		}
	}
}

// grow doubles shard k's table (sh, locked).
func (s *fpSet) grow(sh *fpShard, k int) {
	n := 2 * len(sh.slots)
	g := bits.TrailingZeros(uint(n))
	if n*8*len(s.shards) < hugePage {
		slots, _ := doubled[struct{}](sh.slots, nil)
		sh.setSlots(slots)
		return
	}
	s.genMu.Lock()
	gen := &s.gens[g]
	if gen.mem == nil {
		gen.mem, gen.m = bigAlloc(n * 8 * len(s.shards))
	}
	out := unsafe.Slice((*uint64)(unsafe.Pointer(&gen.mem[k*n*8])), n)
	s.genMu.Unlock()
	mask := uint64(n - 1)
	for _, h := range sh.slots {
		if h != 0 {
			out[freeSlot(out, mask, h)] = h
		}
	}
	sh.setSlots(out)
	s.genMu.Lock()
	if old := &s.gens[g-1]; old.mem != nil {
		if old.moved++; old.moved == len(s.shards) {
			bigFree(old.m)
			*old = fpGen{}
		}
	}
	s.genMu.Unlock()
}

func (s *fpSet) bytes() int64 { return s.total.Load() }

func (s *fpSet) release() {
	s.genMu.Lock()
	defer s.genMu.Unlock()
	for k := range s.shards {
		s.shards[k].slots = nil // prefetch may still read base: a prefetch never faults
	}
	for g := range s.gens {
		bigFree(s.gens[g].m)
		s.gens[g] = fpGen{}
	}
}

// exactSet keeps every state's encoding (--exact): a fingerprint's match
// is checked against the encoding, so no collision can hide a state.
type exactSet struct {
	shards [1 << shardBits]exactShard
	total  atomic.Int64 // bytes of the shards' tables and arenas
}

type exactShard struct {
	mu    sync.Mutex
	slots []uint64 // the fingerprint; 0: empty
	refs  []ref    // where its encoding is, in arena
	arena [][]byte // chunks, never copied as they fill
	n     int
}

func (s *exactSet) prefetch(uint64) {}

func (s *exactSet) release() {}

func newExactSet() *exactSet {
	s := &exactSet{}
	for k := range s.shards {
		s.shards[k].slots = make([]uint64, 8)
		s.shards[k].refs = make([]ref, 8)
	}
	s.total.Store(int64(len(s.shards)) * 8 * exactSlotBytes)
	return s
}

func (s *exactSet) add(h uint64, enc []byte) bool {
	if h == 0 {
		h = 1
	}
	sh := &s.shards[h>>(64-shardBits)]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.n*4 >= len(sh.slots)*3 {
		s.total.Add(int64(len(sh.slots)) * exactSlotBytes) // the tables double
		sh.grow()
	}
	mask := uint64(len(sh.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch sh.slots[i] {
		case 0:
			chunks := len(sh.arena)
			sh.slots[i], sh.refs[i] = h, sh.store(enc)
			for _, c := range sh.arena[chunks:] {
				s.total.Add(int64(cap(c)))
			}
			sh.n++
			return true
		case h:
			if r := sh.refs[i]; bytes.Equal(sh.arena[r.chunk][r.off:r.off+r.n], enc) {
				return false
			}
		}
	}
}

// store copies enc into the shard's arena.
func (sh *exactShard) store(enc []byte) ref {
	const chunk = 1 << 20
	k := len(sh.arena) - 1
	if k < 0 || len(sh.arena[k])+len(enc) > cap(sh.arena[k]) {
		sh.arena = append(sh.arena, make([]byte, 0, max(chunk, len(enc))))
		k++
	}
	off := len(sh.arena[k])
	sh.arena[k] = append(sh.arena[k], enc...)
	return ref{uint32(k), uint32(off), uint32(len(enc))}
}

func (sh *exactShard) grow() { sh.slots, sh.refs = doubled(sh.slots, sh.refs) }

// exactSlotBytes is a slot of an exactSet's tables: a fingerprint and a ref.
const exactSlotBytes = 8 + int64(unsafe.Sizeof(ref{}))

func (s *exactSet) bytes() int64 { return s.total.Load() }

// Collision is the probability that a 64-bit fingerprint collision hid a
// state in a search that stored n states: a state is hidden when its
// fingerprint equals one of the states stored before it, at most
// n(n−1)/2 pairs each 2^−64, so about n²/2^65 (the birthday bound).
func Collision(n int64) float64 {
	f := float64(n)
	return f * (f - 1) / 2 / (1 << 64)
}

// doubled returns an open-addressing table of fingerprints (0: an empty
// slot) and the values beside them (vals, parallel to slots; nil for a
// set without values) in tables twice as large, each fingerprint at its
// place by linear probing: what every visited set does when it grows.
func doubled[V any](slots []uint64, vals []V) ([]uint64, []V) {
	out := make([]uint64, 2*len(slots))
	var outVals []V
	if vals != nil {
		outVals = make([]V, 2*len(slots))
	}
	mask := uint64(len(out) - 1)
	for k, h := range slots {
		if h == 0 {
			continue
		}
		i := freeSlot(out, mask, h)
		out[i] = h
		if vals != nil {
			outVals[i] = vals[k]
		}
	}
	return out, outVals
}

// freeSlot returns the slot where fingerprint h goes in table out (mask
// its size less one) when h is not in it: the first free one from h's own,
// by linear probing.
func freeSlot(out []uint64, mask, h uint64) uint64 {
	i := h & mask
	for out[i] != 0 {
		i = (i + 1) & mask
	}
	return i
}
