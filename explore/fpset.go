package explore

import (
	"bytes"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// visited is the set of states a search has reached, shared by its
// workers: add inserts a state for worker w (0 ≤ w < the workers the set
// was made for; one worker adds at a time under one w): its encoding enc,
// whose hash64 is h; it reports whether the state was new.
type visited interface {
	add(w int, h uint64, enc []byte) bool
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
// chosen by the hash's top bits.
const shardBits = 8

// fpSet keeps each state as its 64-bit fingerprint (hash64 of its
// canonical encoding) in open-addressing tables (linear probing, at most
// 3/4 full), one per shard. Two distinct states with one fingerprint make
// the second look visited: Collision gives the chance of that.
//
// Workers insert without a lock: a slot is claimed by compare-and-swap,
// and each worker counts what it added to each shard in counters of its
// own. A table grows with the set stopped: the worker whose count reaches
// its limit for the shard stops the others (fpSet.stop, which a worker
// reads before each insert, and fpWorker.busy, which it sets while it
// inserts), adds up the shard's counts, doubles the table if it is 3/4
// full, and shares the room left among the workers as their new limits.
// No worker adds more than its share of the room, so a table is never
// more than 3/4 full. The writes an insert makes are to the slot (random:
// seldom a line the other core holds) and to the worker's own lines.
//
// The shards' tables of one size are parts of one region (a generation,
// bigAlloc's: huge pages), shard k's the k-th part; a generation is
// returned once every shard has grown out of it. Tables whose generation
// would be smaller than a huge page are the Go heap's.
type fpSet struct {
	// slots are the shards' tables (0: empty), replaced with the set
	// stopped.
	slots [1 << shardBits][]uint64
	// tabs are the tables' addresses and lengths − 1 for prefetch, which
	// reads them without stopping the set (a torn pair only prefetches a
	// wrong line; a prefetch never faults).
	tabs    [1 << shardBits]fpTab
	workers []fpWorker
	// stop is 1 while a worker grows a table; growMu lets one at a time.
	stop   atomic.Uint32
	_      [60]byte
	growMu sync.Mutex
	total  atomic.Int64 // bytes of the shards' tables
	genMu  sync.Mutex
	gens   [64]fpGen // by log2 of a shard's slots
}

// fpWorker is one worker's part of an fpSet: busy while it inserts, and
// per shard what it added and how much it may add before the shard is
// looked at again. Its worker writes it; the worker that grows a table
// writes every worker's limits, with the set stopped.
type fpWorker struct {
	busy  atomic.Uint32
	_     [60]byte
	added [1 << shardBits]int64
	limit [1 << shardBits]int64
}

// fpGen is a generation of an fpSet's tables: its memory, its mapping
// (bigAlloc's), and how many shards have grown out of it.
type fpGen struct {
	mem, m []byte
	moved  int
}

// fpTab is a shard's table's address and length − 1.
type fpTab struct {
	base atomic.Pointer[uint64]
	mask atomic.Uint64
}

// fpFirstSlots is the size of a shard's first table.
const fpFirstSlots = 8

// newFPSet returns an empty set for the given number of workers.
func newFPSet(workers int) *fpSet {
	s := &fpSet{workers: make([]fpWorker, workers)}
	first := fpFirstSlots
	for first*3/4 < 2*workers {
		first *= 2 // room for one value a worker at least
	}
	for k := range s.slots {
		s.setSlots(k, make([]uint64, first))
		s.share(k, 0)
	}
	s.total.Store(int64(len(s.slots)) * int64(first) * 8)
	return s
}

// setSlots makes slots shard k's table (the set stopped, or not yet
// shared).
func (s *fpSet) setSlots(k int, slots []uint64) {
	s.slots[k] = slots
	s.tabs[k].base.Store(&slots[0])
	s.tabs[k].mask.Store(uint64(len(slots) - 1))
}

// share sets the workers' limits on shard k, which holds n values (the
// set stopped): the room up to 3/4 of its table, shared among them (at
// least one each: a table whose 3/4 holds fewer than n + workers values
// has grown first).
func (s *fpSet) share(k int, n int64) {
	room := max((int64(len(s.slots[k]))*3/4-n)/int64(len(s.workers)), 1)
	for w := range s.workers {
		s.workers[w].limit[k] = s.workers[w].added[k] + room
	}
}

func (s *fpSet) prefetch(h uint64) {
	if h == 0 {
		h = 1
	}
	t := &s.tabs[h>>(64-shardBits)]
	prefetch(unsafe.Add(unsafe.Pointer(t.base.Load()), (h&t.mask.Load())*8))
}

func (s *fpSet) add(w int, h uint64, _ []byte) bool {
	if h == 0 {
		h = 1 // 0 marks an empty slot
	}
	me := &s.workers[w]
	for {
		me.busy.Store(1)
		if s.stop.Load() == 0 {
			break
		}
		me.busy.Store(0)
		for s.stop.Load() != 0 {
			runtime.Gosched()
		}
	}
	k := h >> (64 - shardBits)
	slots := s.slots[k]
	mask := uint64(len(slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		v := atomic.LoadUint64(&slots[i])
		if v == 0 {
			if !atomic.CompareAndSwapUint64(&slots[i], 0, h) {
				v = atomic.LoadUint64(&slots[i]) // another worker's
			} else {
				me.added[k]++
				full := me.added[k] >= me.limit[k]
				me.busy.Store(0)
				if full {
					s.grow(w, int(k))
				}
				return true
			}
		}
		if v == h {
			me.busy.Store(0)
			return false
		}
	}
}

// grow stops the set and, if shard k's table is 3/4 full, doubles it;
// then it shares the room left among the workers. w is the worker that
// calls it (not busy).
func (s *fpSet) grow(w, k int) {
	s.growMu.Lock()
	defer s.growMu.Unlock()
	s.stop.Store(1)
	for j := range s.workers {
		for j != w && s.workers[j].busy.Load() != 0 {
			runtime.Gosched()
		}
	}
	var n int64
	for j := range s.workers {
		n += s.workers[j].added[k]
	}
	// Each worker may add one more at least: double while that could
	// take the table past 3/4.
	for n+int64(len(s.workers)) > int64(len(s.slots[k]))*3/4 {
		s.total.Add(int64(len(s.slots[k])) * 8)
		s.double(k)
	}
	s.share(k, n)
	s.stop.Store(0)
}

// double doubles shard k's table (the set stopped).
func (s *fpSet) double(k int) {
	n := 2 * len(s.slots[k])
	g := bits.TrailingZeros(uint(n))
	if n*8*len(s.slots) < hugePage {
		slots, _ := doubled[struct{}](s.slots[k], nil)
		s.setSlots(k, slots)
		return
	}
	s.genMu.Lock()
	gen := &s.gens[g]
	if gen.mem == nil {
		gen.mem, gen.m = bigAlloc(n * 8 * len(s.slots))
	}
	out := unsafe.Slice((*uint64)(unsafe.Pointer(&gen.mem[k*n*8])), n)
	s.genMu.Unlock()
	mask := uint64(n - 1)
	for _, h := range s.slots[k] {
		if h != 0 {
			out[freeSlot(out, mask, h)] = h
		}
	}
	s.setSlots(k, out)
	s.genMu.Lock()
	if old := &s.gens[g-1]; old.mem != nil {
		if old.moved++; old.moved == len(s.slots) {
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
	for k := range s.slots {
		s.slots[k] = nil // prefetch may still read tabs: a prefetch never faults
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

func (s *exactSet) add(_ int, h uint64, enc []byte) bool {
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
