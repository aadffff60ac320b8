package explore

import (
	"fmt"
	"math"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ocbench/ocbench/internal/memsize"
)

// Run explores every state reachable from the initial configurations, in
// breadth-first order, and stops after the first level that holds a
// violation (giving a shortest run to one), at the end, or at a limit.
// Config.Workers goroutines expand each level together, sharing the
// visited set (fingerprints, or with StoreExact whole encodings) and the
// table of node states, each with its own next level, step cache and path
// log. With the reduction (Config.Reduce, where it applies) a state is
// expanded by a persistent set where one is found (reduce.go), and the
// level's proviso (proviso) expands in full the states whose set leads
// back to an earlier level.
func (e *Explorer) Run() (*Result, error) {
	return e.runParallel()
}

// found is what a worker met that ends the search after its level: a
// violation (the new state's fingerprint h and what it breaks), or a step
// that cannot be carried out (from the state of fingerprint h, by act).
// Of several, the least by (step error first, h, act) is kept, so that
// which one is reported does not depend on the order the workers took.
type found struct {
	stepErr error
	h       uint64
	act     uint32
	what    string
}

func (f *found) better(g *found) bool {
	if (f.stepErr != nil) != (g.stepErr != nil) {
		return f.stepErr != nil
	}
	if f.h != g.h {
		return f.h < g.h
	}
	return f.act < g.act
}

// worker is one goroutine's part of a parallel search.
type worker struct {
	_           [64]byte  // one a worker: apart from the others' (written at every state)
	id          int       // its index, for the visited set
	e           *Explorer // its own buffers and step cache
	log         *pathLog
	next        *level
	s           sys
	pend        [2]pending // successors computed, not yet looked up
	turn        int        // the one to fill next
	as          []action
	transitions int64
	terminal    int64
	found       *found
	err         error // an error that is no step's: the search fails
	flushes     int64 // its flushes to the tally, for checkDisk
	// pendStates are the new states not yet in the tally; counted the
	// bytes of next that are.
	pendStates int64
	counted    int64
	// spill, if not nil, takes next to disk when it holds spillAt bytes.
	spill   *spill
	spillAt int64
	// The reduction: reducing whether the state being expanded takes a
	// persistent set; hits the fingerprints of its successors that were
	// in the visited set already; deferred the states whose reduced
	// successors were not all new, for the level's proviso.
	reducing bool
	hits     []uint64
	deferred []deferred
	hitArena []uint64 // the deferred states' hits
	_        [64]byte
}

// clone returns an explorer for another worker: the configuration, the
// codec and the table of node states shared, its buffers and step cache
// its own.
func (e *Explorer) clone() *Explorer {
	w := &Explorer{cfg: e.cfg, alg: e.alg, nc: e.nc, types: e.types, family: e.family, token: e.token, ell: e.ell,
		every: e.every, quiet: e.quiet, stab: e.stab, recover: e.recover, nt: e.nt, items: e.items, roundEvent: e.roundEvent,
		internIdx: map[uint64]uint32{}, steps: map[uint64]*stepResult{}, fast: new([1 << fastBits]fastStep), cacheMax: e.cacheMax, reduce: e.reduce, forgets: e.forgets}
	return w
}

// batch is how many states a worker takes from the level at a time (and
// how often a level records where its records are).
const batch = 64

func (e *Explorer) runParallel() (*Result, error) {
	t0 := time.Now()
	nw := e.cfg.Workers
	res := &Result{Workers: nw, Exact: e.cfg.Store == StoreExact, Compact: e.cfg.compact(), Reduced: e.reduce, NoReduction: e.noReduce, Forgot: e.forgets, NoForget: e.noForget}
	var seen visited
	switch {
	case e.cfg.Store == StoreExact:
		seen = newExactSet()
	case res.Compact:
		seen = newCompactSet()
	default:
		seen = newFPSet(nw)
	}
	defer seen.release()
	e.cacheMax = max(maxCache/nw, 1<<12)
	ws := make([]*worker, nw)
	for k := range ws {
		ex := e
		if k > 0 {
			ex = e.clone()
		}
		l, err := newPathLog()
		if err != nil {
			for _, w := range ws[:k] {
				w.log.close()
			}
			return nil, err
		}
		ws[k] = &worker{id: k, e: ex, log: l, next: &level{}}
	}
	defer func() {
		for _, w := range ws {
			w.next.release()
		}
	}()
	logs := make([]*pathLog, nw)
	for k, w := range ws {
		logs[k] = w.log
	}
	defer func() {
		for _, l := range logs {
			l.close()
		}
	}()
	inits, err := e.initial()
	if err != nil {
		return nil, err
	}
	states := int64(0)
	var first *found
	// cur[k] is the level worker k built.
	cur := make([]*level, nw)
	for k := range cur {
		cur[k] = &level{}
	}
	defer func() {
		for _, l := range cur {
			l.release()
		}
	}()
	for k, s := range inits {
		e.legitimate(s)
		e.buf = appendState(e.buf[:0], s)
		h := hash64(e.buf)
		if !seen.add(0, h, e.buf) {
			continue
		}
		states++
		ws[0].log.add(h, uint64(k), action{kind: Start}.pack())
		if what := e.check(s); what != "" {
			if f := (&found{h: h, what: what}); first == nil || f.better(first) {
				first = f
			}
		}
		cur[0].add(e.buf, h)
	}
	for _, l := range logs {
		if err := l.endLevel(); err != nil {
			return nil, err
		}
	}
	tally := tally{cfg: &e.cfg, seen: seen}
	tally.states.Store(states)
	stop := &tally.stop
	if states >= e.cfg.MaxStates {
		tally.setLimit(fmt.Sprintf("the state limit (%d states) was reached", e.cfg.MaxStates))
	}
	// A worker's next level spills to disk past spillAt bytes (a 16th of
	// the memory share between the workers), and a level on disk is
	// expanded a segment of about the same size at a time.
	var spillAt int64
	if e.cfg.MaxBytes < math.MaxInt64 {
		spillAt = max(e.cfg.MaxBytes/int64(16*nw), 1)
		for _, w := range ws {
			if w.spill, err = newSpill(); err != nil {
				return nil, err
			}
			defer w.spill.close()
			w.spillAt = spillAt
		}
	}
	seg := &level{}
	defer seg.release()
	if spillAt > 0 {
		// The levels' chunks are no larger than a spill.
		for k, w := range ws {
			w.next.chunk, cur[k].chunk = int(min(spillAt, chunkSize)), int(min(spillAt, chunkSize))
		}
		seg.chunk = int(min(spillAt, chunkSize))
	}
	depth := 0
	for ; first == nil && !stop.Load(); depth++ {
		total, size := 0, int64(0)
		for _, l := range cur {
			total += l.n
			size += l.size
		}
		memSize := size
		for _, w := range ws {
			if w.spill != nil {
				r, b := w.spill.spilled()
				total, size = total+r, size+b
			}
		}
		if total == 0 {
			break
		}
		res.Depth = depth
		res.PeakFrontier = max(res.PeakFrontier, size)
		tally.frontier.Store(0)
		for _, w := range ws {
			w.next.reset()
			w.counted = 0
			w.deferred, w.hitArena = w.deferred[:0], w.hitArena[:0]
		}
		// The records on disk first, a segment at a time, then those in
		// memory.
		for _, w := range ws {
			for k := 0; w.spill != nil && k < len(w.spill.read) && !stop.Load(); {
				if k, err = w.spill.load(k, seg, spillAt); err != nil {
					return nil, err
				}
				if err := expandLevel([]*level{seg}, memSize, ws, seen, &tally); err != nil {
					return nil, err
				}
			}
		}
		seg.reset()
		if err := expandLevel(cur, 0, ws, seen, &tally); err != nil {
			return nil, err
		}
		if e.reduce && !stop.Load() {
			e.proviso(ws, seen, &tally)
			for _, w := range ws {
				if w.err != nil {
					return nil, w.err
				}
			}
		}
		for _, w := range ws {
			if err := w.log.endLevel(); err != nil {
				return nil, err
			}
			if w.found != nil && (first == nil || w.found.better(first)) {
				first = w.found
			}
			w.found = nil
			if w.spill != nil {
				if err := w.spill.swap(); err != nil {
					return nil, err
				}
			}
		}
		if e.reduce && reduceOff(ws) {
			res.ReduceOff = true
		}
		if e.cfg.Progress != nil {
			e.cfg.Progress(depth, min(tally.states.Load(), e.cfg.MaxStates))
		}
		for k, w := range ws {
			cur[k], w.next = w.next, cur[k]
		}
	}
	for _, w := range ws {
		res.Transitions += w.transitions
		res.Terminal += w.terminal
		r := &w.e.red
		res.ReducedStates += r.reduced - r.provisos
		res.FullStates += r.full + r.provisos
		res.Provisos += r.provisos
	}
	res.States = min(tally.states.Load(), e.cfg.MaxStates)
	res.Limit = tally.limit
	res.Elapsed = time.Since(t0)
	res.BytesPerState = float64(seen.bytes()) / float64(max(res.States, 1))
	if e.cfg.Store != StoreExact {
		res.Collision = Collision(res.States)
	}
	for _, l := range logs {
		res.LogBytes += l.size
	}
	for _, w := range ws {
		if w.spill != nil {
			res.SpilledBytes += w.spill.bytes
		}
	}
	res.NodeStates, res.NodeBytes = e.nt.size()
	if first == nil {
		return res, nil
	}
	// The violation is a state of level depth (a step error: the step
	// from a state of level depth−1), or with depth 0 an initial state.
	at := depth
	if first.stepErr != nil {
		at--
	}
	k, acts, err := trail(logs, at, first.h)
	if err != nil {
		return nil, err
	}
	path, err := e.replayFrom(k, acts)
	if err != nil {
		return nil, err
	}
	if first.stepErr != nil {
		return nil, &StepError{Err: first.stepErr, Path: path, At: unpack(first.act)}
	}
	res.Violation = &Violation{What: first.what, Path: path}
	return res, nil
}

// expandLevel has the workers expand the states of levels ls (the
// workers' parts of a BFS level, or a segment of it read from disk) into
// their next levels; held is what other levels in memory take.
func expandLevel(ls []*level, held int64, ws []*worker, seen visited, t *tally) error {
	// Batch g of ls is batch g − nb[k] of ls[k].
	nb := make([]int, len(ls)+1)
	t.curSize = held
	for k, l := range ls {
		t.curSize += l.size
		nb[k+1] = nb[k] + len(l.starts)
	}
	stop := &t.stop
	var claim atomic.Int64
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.flush(t) // the states counted since the last flush
			defer w.drain(seen, t)
			for !stop.Load() && w.err == nil {
				g := int(claim.Add(1)) - 1
				if g >= nb[len(ls)] {
					return
				}
				k := 0
				for nb[k+1] <= g {
					k++
				}
				l, j := ls[k], g-nb[k]
				at := cursor{l: l, chunk: l.starts[j].chunk, off: l.starts[j].off}
				for r := min(batch, l.n-j*batch); r > 0 && !stop.Load() && w.err == nil; r-- {
					key, enc := at.next()
					w.expand(enc, key, seen, t)
				}
			}
		}()
	}
	wg.Wait()
	for _, w := range ws {
		if w.err != nil {
			return w.err
		}
	}
	return nil
}

// expand computes the successors of the state encoded as enc, of
// fingerprint from, adding the new ones to the visited set, its path log
// and its next level.
func (w *worker) expand(enc []byte, from uint64, seen visited, t *tally) {
	e := w.e
	s := &w.s
	if !w.load(enc) {
		return
	}
	as := e.actions(s, w.as[:0])
	w.as = as
	if len(as) == 0 {
		w.terminal++
	}
	w.reducing = false
	if e.reduce {
		if as, w.reducing = e.ample(s, as); w.reducing {
			e.red.reduced++
		} else {
			e.red.full++
		}
		w.hits = w.hits[:0]
	}
	if w.successors(as, from, seen, t) || !w.reducing {
		return
	}
	// Every successor of the persistent set is looked up before the
	// next state's: the level's proviso needs those already visited.
	if q := &w.pend[w.turn^1]; q.ok && w.settle(q, seen, t) {
		return
	}
	if len(w.hits) > 0 {
		lo := len(w.hitArena)
		w.hitArena = append(w.hitArena, w.hits...)
		w.deferred = append(w.deferred, deferred{enc: slices.Clone(enc), from: from, taken: slices.Clone(as), lo: lo, hi: len(w.hitArena)})
	}
}

// successors applies the transitions as to the state w.s (of fingerprint
// from), adding the new successors to the visited set, the path log and
// the next level; it reports whether the state's expansion must stop (a
// step error or a limit).
func (w *worker) successors(as []action, from uint64, seen visited, t *tally) bool {
	e, s := w.e, &w.s
	for _, a := range as {
		w.transitions++
		p := &w.pend[w.turn]
		if err := e.apply(s, a, &p.c, nil); err != nil {
			if f := (&found{stepErr: err, h: from, act: a.pack()}); w.found == nil || f.better(w.found) {
				w.found = f
			}
			return true
		}
		e.legitimate(&p.c)
		p.buf = appendState(p.buf[:0], &p.c)
		p.h, p.from, p.act, p.track = hash64(p.buf), from, a.pack(), w.reducing
		seen.prefetch(p.h)
		// The successor before this one is looked up now: its slot was
		// prefetched a successor's work ago.
		w.turn ^= 1
		q := &w.pend[w.turn]
		p.ok = true
		if q.ok && w.settle(q, seen, t) {
			return true
		}
	}
	return false
}

// pending is a successor computed, its visited-set lookup not yet done.
type pending struct {
	c       sys
	buf     []byte
	h, from uint64
	act     uint32
	ok      bool
	track   bool // a successor by a persistent set: a hit goes to hits
}

// settle looks successor q up in the visited set and, if it is new, logs,
// checks and keeps it; it reports whether a limit stops the search.
func (w *worker) settle(q *pending, seen visited, t *tally) bool {
	q.ok = false
	if !seen.add(w.id, q.h, q.buf) {
		if q.track {
			w.hits = append(w.hits, q.h)
		}
		return false
	}
	w.log.add(q.h, q.from, q.act)
	w.pendStates++
	if what := w.e.check(&q.c); what != "" {
		if f := (&found{h: q.h, what: what}); w.found == nil || f.better(w.found) {
			w.found = f
		}
	} else {
		w.next.add(q.buf, q.h)
		if w.spill != nil && w.next.size >= w.spillAt {
			t.frontier.Add(-w.counted)
			w.counted = 0
			w.spill.out(w.next)
		}
	}
	if w.pendStates >= flushEvery || w.pendStates >= t.cfg.MaxStates {
		return w.flush(t)
	}
	return false
}

// drain settles the successors still pending.
func (w *worker) drain(seen visited, t *tally) {
	for k := range w.pend {
		if w.pend[k].ok {
			w.settle(&w.pend[k], seen, t)
		}
	}
}

// flushEvery is how many new states a worker counts before it adds them
// to the search's tally (a shared counter written at every state would
// move its cache line from core to core at every state).
const flushEvery = 256

// tally is what the workers of a level count together, and the limits.
type tally struct {
	cfg       *Config
	seen      visited
	states    atomic.Int64 // states reached
	frontier  atomic.Int64 // bytes of the level being built
	curSize   int64        // bytes of the level being expanded
	stop      atomic.Bool  // a limit was reached
	limitOnce sync.Once
	limit     string
}

// diskEvery is how many of a worker's flushes go between two looks at
// the free disk (the first flush looks).
const diskEvery = 64

// diskFrom is what a search writes to disk (about) before its default
// look at the free disk begins: a small search does not stop on a disk
// that is nearly full.
const diskFrom = 64 << 20

// checkDisk stops the search if the file system of its temporary files
// has less free than Config.MinDiskFree says; with its default, only once
// the search has written diskFrom (written: about what it wrote).
func (t *tally) checkDisk(written int64) {
	if t.cfg.MinDiskFree < 0 || t.cfg.MinDiskFree == 0 && written < diskFrom {
		return
	}
	dir := os.TempDir()
	free, size, ok := diskFree(dir)
	if !ok {
		return
	}
	least := t.cfg.MinDiskFree
	if least == 0 {
		least = min(1<<30, size/4)
	}
	if free < least {
		t.setLimit(fmt.Sprintf("the disk of its temporary files (%s: the path logs and the BFS levels spilled; TMPDIR chooses it) has less than %s free",
			dir, memsize.Format(float64(least))))
	}
}

func (t *tally) setLimit(why string) {
	t.limitOnce.Do(func() { t.limit = why })
	t.stop.Store(true)
}

// flush adds the worker's new states and bytes to t and reports whether
// a limit was reached.
func (w *worker) flush(t *tally) bool {
	n := t.states.Add(w.pendStates)
	b := t.frontier.Add(w.next.size - w.counted)
	w.pendStates, w.counted = 0, w.next.size
	if w.flushes++; w.flushes%diskEvery == 1 {
		written := n * PathLogBytes // the path logs
		if w.spill != nil {
			written += w.spill.bytes
		}
		t.checkDisk(written)
	}
	switch {
	case t.cfg.stopped():
		t.setLimit(StopLimit)
	case n >= t.cfg.MaxStates:
		t.setLimit(fmt.Sprintf("the state limit (%d states) was reached", t.cfg.MaxStates))
	case b+t.curSize+t.seen.bytes() > t.cfg.MaxBytes:
		t.setLimit(fmt.Sprintf("the search outgrew its memory limit (%s for the visited set and the BFS levels)", memsize.Format(float64(t.cfg.MaxBytes))))
	}
	return t.stop.Load()
}

// load reads the state enc encodes into the worker's state and decodes its
// nodes; on a corrupt record or a node that does not decode it notes the
// error (w.err) and returns false.
func (w *worker) load(enc []byte) bool {
	if !w.e.readState(enc, &w.s) {
		w.err = errCorrupt
		return false
	}
	if err := w.e.decodeNodes(&w.s); err != nil {
		w.err = err
		return false
	}
	return true
}
