package explore

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
)

// level is one BFS level: its states as records (the state's key, the
// length of its encoding, the encoding) in chunks that are never copied
// as the level grows, and where every batch of records begins.
type level struct {
	_      [64]byte // one a worker: apart from the others' (written at every state)
	chunks [][]byte
	starts []pos    // where records 0, batch, 2·batch, … begin
	n      int      // records
	size   int64    // bytes
	last   int      // the chunk being filled
	chunk  int      // the size of a new chunk (0: chunkSize)
	maps   [][]byte // the mappings of chunks from bigAlloc, for release
	_      [64]byte
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
			size := max(cmp.Or(l.chunk, chunkSize), need)
			if size < hugePage {
				l.chunks = append(l.chunks, make([]byte, 0, size))
			} else {
				c, m := bigAlloc(size)
				l.chunks = append(l.chunks, c[:0])
				if m != nil {
					l.maps = append(l.maps, m)
				}
			}
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

// release returns the memory of l's chunks; l is empty and usable after
// it.
func (l *level) release() {
	for _, m := range l.maps {
		bigFree(m)
	}
	*l = level{chunk: l.chunk}
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
	// With forgetting, acts are the search's, taken in states whose
	// forgettable values were set; the run recorded is the real one,
	// without forgetting, through the same actions: a delivery is of the
	// message whose forgotten form is the one the search delivered.
	forgets := e.forgets
	e.forgets = false
	defer func() { e.forgets = forgets }()
	q := s
	for _, a := range acts {
		ra := a
		if forgets {
			var err error
			if ra, err = e.realAction(s, q, a); err != nil {
				return nil, err
			}
			var qc sys
			e.forgets = true
			err = e.apply(q, a, &qc, nil)
			e.forgets = false
			if err != nil {
				return nil, err
			}
			q = cloneSys(&qc)
		}
		var st Step
		if err := e.apply(s, ra, &c, &st); err != nil {
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
