package explore

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ocbench/ocbench/internal/memsize"
)

// level is one BFS level: its states as records (the state's key, the
// length of its encoding, the encoding) in chunks that are never copied
// as the level grows, and where every batch of records begins.
type level struct {
	chunks [][]byte
	starts []pos // where records 0, batch, 2·batch, … begin
	n      int   // records
	size   int64 // bytes
	last   int   // the chunk being filled
	chunk  int   // the size of a new chunk (0: chunkSize)
}

type pos struct{ chunk, off int }

// ref is where an encoding is in chunks of bytes.
type ref struct{ chunk, off, n uint32 }

const chunkSize = 4 << 20

// add appends the record of a state: its encoding b and its key (its
// number in runTracked, its fingerprint in runParallel).
func (l *level) add(b []byte, key uint64) {
	need := 8 + binary.MaxVarintLen64 + len(b)
	k := l.last
	if len(l.chunks) == 0 || len(l.chunks[k])+need > cap(l.chunks[k]) {
		if len(l.chunks) > 0 {
			k++
		}
		for k < len(l.chunks) && need > cap(l.chunks[k]) {
			k++ // a chunk kept from an earlier level, too small for b
		}
		if k == len(l.chunks) {
			l.chunks = append(l.chunks, make([]byte, 0, max(cmp.Or(l.chunk, chunkSize), need)))
		}
		l.last = k
	}
	c := l.chunks[k]
	if l.n%batch == 0 {
		l.starts = append(l.starts, pos{k, len(c)})
	}
	n := len(c)
	c = binary.LittleEndian.AppendUint64(c, key)
	c = binary.AppendUvarint(c, uint64(len(b)))
	c = append(c, b...)
	l.chunks[k] = c
	l.n++
	l.size += int64(len(c) - n)
}

// cursor reads a level's records in order, from one of its starts.
type cursor struct {
	l     *level
	chunk int
	off   int
}

// next returns the next record's key and encoding; there must be one.
func (c *cursor) next() (uint64, []byte) {
	for c.off == len(c.l.chunks[c.chunk]) {
		c.chunk, c.off = c.chunk+1, 0
	}
	b := c.l.chunks[c.chunk][c.off:]
	key := binary.LittleEndian.Uint64(b)
	n, k := binary.Uvarint(b[8:])
	enc := b[8+k : 8+k+int(n)]
	c.off += 8 + k + int(n)
	return key, enc
}

// reset empties l, keeping its chunks for the next level it holds (the
// levels alternate: the memory of a level is reused two levels on).
func (l *level) reset() {
	for k := range l.chunks {
		l.chunks[k] = l.chunks[k][:0]
	}
	l.starts, l.n, l.size, l.last = l.starts[:0], 0, 0, 0
}

// reduceSample is how many states the reduction is tried on before it is
// turned off, if it applied to fewer than a fifth of them.
const reduceSample = 20_000

// runTracked is the search of the partial-order reduction: one
// goroutine, each state stored as its 64-bit hash with its number (which
// the reduction's proviso compares) and its parent link. It explores in
// breadth-first order and stops at the first violation (the shortest run
// to one), at the end, or at a limit.
func (e *Explorer) runTracked() (*Result, error) {
	t0 := time.Now()
	res := &Result{Workers: 1}
	seen := newHashSet(1 << 16)
	// parent[k] and act[k] give how state k was first reached.
	var parent, act []uint32
	var cur, next level
	inits, err := e.initial()
	if err != nil {
		return nil, err
	}
	var violation string
	violator := uint32(0)
	e.initOf = map[uint32]int{}
	for k, s := range inits {
		e.legitimate(s)
		e.buf = appendState(e.buf[:0], s)
		id := uint32(len(parent))
		if _, isNew := seen.add(hash64(e.buf), id); !isNew {
			continue
		}
		parent = append(parent, id)
		act = append(act, action{kind: Start}.pack())
		e.initOf[id] = k
		if what := e.check(s); what != "" && violation == "" {
			violation, violator = what, id
		}
		cur.add(e.buf, uint64(id))
	}
	var s, c sys
	var as []action
	for depth := 0; cur.n > 0 && violation == "" && res.Limit == ""; depth++ {
		res.Depth = depth
		res.PeakFrontier = max(res.PeakFrontier, cur.size)
		next.reset()
		at := cursor{l: &cur}
		for range cur.n {
			key, enc := at.next()
			if !e.readState(enc, &s) {
				return nil, errCorrupt
			}
			if err := e.decodeNodes(&s); err != nil {
				return nil, err
			}
			as = e.actions(&s, as[:0])
			if len(as) == 0 {
				res.Terminal++
			}
			reduced := false
			if e.reduce {
				if as, reduced = e.ample(&s, as); reduced {
					e.red.reduced++
				} else {
					e.red.full++
				}
				if e.red.reduced+e.red.full == reduceSample && e.red.reduced*5 < reduceSample {
					// It pays for its cost where it applies often; here
					// it does not: the rest of the search is full.
					e.reduce = false
					res.ReduceOff = true
				}
			}
			// With a reduced set, a successor already numbered no higher
			// than this state may close a cycle of reduced states: then
			// the state is expanded in full (the proviso).
			closes := false
			from := uint32(key)
			for pass := 0; pass < 2; pass++ {
				if pass == 1 {
					if !reduced || !closes || violation != "" || res.Limit != "" {
						break
					}
					e.red.provisos++
					taken := slices.Clone(as)
					as = e.actions(&s, as[:0])
					as = slices.DeleteFunc(as, func(a action) bool { return slices.Contains(taken, a) })
				}
				for _, a := range as {
					res.Transitions++
					if err := e.apply(&s, a, &c, nil); err != nil {
						return nil, e.fail(parent, act, from, a, err)
					}
					e.legitimate(&c)
					e.buf = appendState(e.buf[:0], &c)
					id := uint32(len(parent))
					if old, isNew := seen.add(hash64(e.buf), id); !isNew {
						closes = closes || old <= from
						continue
					}
					parent = append(parent, from)
					act = append(act, a.pack())
					if what := e.check(&c); what != "" {
						violation, violator = what, id
						break
					}
					next.add(e.buf, uint64(id))
					if int64(len(parent)) >= e.cfg.MaxStates {
						res.Limit = fmt.Sprintf("the state limit (%d states) was reached", e.cfg.MaxStates)
						break
					}
					if next.size+cur.size+seen.bytes()+8*int64(cap(parent)) > e.cfg.MaxBytes {
						res.Limit = fmt.Sprintf("the search outgrew its memory limit (%s for the visited set, the states' parents and the BFS levels)", memsize.Format(float64(e.cfg.MaxBytes)))
						break
					}
				}
			}
			if violation != "" || res.Limit != "" {
				break
			}
		}
		if e.cfg.Progress != nil {
			e.cfg.Progress(depth, int64(len(parent)))
		}
		cur, next = next, cur
	}
	res.States = int64(len(parent))
	res.Elapsed = time.Since(t0)
	res.BytesPerState = float64(seen.bytes()+int64(cap(parent)+cap(act))*4) / float64(max(res.States, 1))
	res.Collision = Collision(res.States)
	res.NodeStates, res.NodeBytes = e.nt.size()
	res.Reduced = e.reduce || res.ReduceOff
	res.ReducedStates, res.FullStates, res.Provisos = e.red.reduced, e.red.full, e.red.provisos
	if violation != "" {
		path, err := e.replay(parent, act, violator)
		if err != nil {
			return nil, err
		}
		res.Violation = &Violation{What: violation, Path: path}
	}
	return res, nil
}

// fail turns an error of a step (a node that sent to a node that does not
// exist, a timer without time) into a violation with its path.
func (e *Explorer) fail(parent, act []uint32, from uint32, a action, err error) error {
	path, perr := e.replay(parent, act, from)
	if perr != nil {
		return perr
	}
	return &StepError{Err: err, Path: path, At: a}
}

// ErrNeedsTime is the error (wrapped in a StepError) of an untimed
// exploration (Config.Ticks 0) in which a node sets a timer.
var ErrNeedsTime = errors.New("needs discrete time")

// StepError is a step the explorer cannot carry out, with the path to the
// state it was taken from.
type StepError struct {
	Err  error
	Path []Step
	At   action
}

func (s *StepError) Error() string {
	return fmt.Sprintf("after %d steps, %s of node %d: %v", len(s.Path), s.At.kind, s.At.node, s.Err)
}

func (s *StepError) Unwrap() error { return s.Err }

// replay rebuilds the path to state id from the parent links, replaying
// it from its initial state to record every step.
func (e *Explorer) replay(parent, act []uint32, id uint32) ([]Step, error) {
	var rev []action
	for unpack(act[id]).kind != Start {
		rev = append(rev, unpack(act[id]))
		id = parent[id]
	}
	slices.Reverse(rev)
	// id is an initial state: find which.
	return e.replayFrom(e.initOf[id], rev)
}

// replayFrom replays acts from initial state k (of initial()'s list) and
// records every step.
func (e *Explorer) replayFrom(k int, acts []action) ([]Step, error) {
	inits, err := e.initial()
	if err != nil {
		return nil, err
	}
	if k < 0 || k >= len(inits) {
		return nil, fmt.Errorf("explore: initial state %d of %d", k, len(inits))
	}
	s := inits[k]
	e.legitimate(s)
	var steps []Step
	tick := 0
	var c sys
	for _, a := range acts {
		var st Step
		if err := e.apply(s, a, &c, &st); err != nil {
			return nil, err
		}
		if a.kind == Tick {
			tick++
		}
		st.Tick = tick
		e.legitimate(&c)
		steps = append(steps, st)
		s = cloneSys(&c)
	}
	return steps, nil
}

func cloneSys(s *sys) *sys {
	return &sys{ids: append([]uint32(nil), s.ids...), nodes: append(s.nodes[:0:0], s.nodes...),
		views: append(s.views[:0:0], s.views...), ext: append(s.ext[:0:0], s.ext...),
		msgs: append(s.msgs[:0:0], s.msgs...), timers: append(s.timers[:0:0], s.timers...),
		crashes: s.crashes, legit: s.legit}
}
