package explore

import (
	"slices"
	"sync"
)

// The cycle proviso of the reduction, for a level-synchronous BFS. A
// state of level d whose persistent set leads to a state of a level no
// deeper than d is expanded in full. Every cycle of the reduced graph has
// such an edge (along an edge the BFS depth grows by at most one, and round
// a cycle it comes back to where it began), so every cycle holds a state
// expanded in full, which is what the proviso must ensure (no transition
// put off round a cycle for ever). Which states it expands depends only on
// the levels, not on the order the workers took: a successor that was in
// the visited set already is told apart from one a worker added in this
// very level once the level is built, by looking it up among the level's
// new states; the states concerned are then expanded in full, in a second
// pass over the level, whose new states join the next level too.

// reduceSample is how many states the reduction is tried on before it is
// turned off, if it applied to fewer than a fifth of them.
const reduceSample = 20_000

// deferred is a state expanded by a persistent set, some of whose
// successors were in the visited set already: its encoding (in the level
// being expanded), its fingerprint, the transitions taken, and where the
// successors' fingerprints are in the worker's hitArena.
type deferred struct {
	enc    []byte
	from   uint64
	taken  []action
	lo, hi int
}

// proviso expands in full the deferred states of the level just built
// one of whose successors by its persistent set lies in an earlier level,
// each worker its own.
func (e *Explorer) proviso(ws []*worker, seen visited, t *tally) {
	in := map[uint64]bool{} // the hits, and whether each is a state of the next level
	for _, w := range ws {
		for _, h := range w.hitArena {
			in[h] = false
		}
	}
	if len(in) == 0 {
		return
	}
	for _, w := range ws {
		at := cursor{l: w.next}
		for range w.next.n {
			if h, _ := at.next(); !in[h] {
				if _, ok := in[h]; ok {
					in[h] = true
				}
			}
		}
	}
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.flush(t)
			defer w.drain(seen, t)
			for _, d := range w.deferred {
				if t.stop.Load() || w.err != nil {
					return
				}
				if !slices.ContainsFunc(w.hitArena[d.lo:d.hi], func(h uint64) bool { return !in[h] }) {
					continue
				}
				w.e.red.provisos++
				w.rest(&d, seen, t)
			}
		}()
	}
	wg.Wait()
}

// rest expands the deferred state d by the transitions its persistent set
// left out.
func (w *worker) rest(d *deferred, seen visited, t *tally) {
	e, s := w.e, &w.s
	if !w.load(d.enc) {
		return
	}
	as := e.actions(s, w.as[:0])
	as = slices.DeleteFunc(as, func(a action) bool { return slices.Contains(d.taken, a) })
	w.as = as
	w.reducing = false
	w.successors(as, d.from, seen, t)
}

// reduceOff turns the reduction off for the rest of the search, and
// reports so, once it has been tried on reduceSample states or more and
// applied to fewer than a fifth of them: it costs more than it saves
// there. Turning it off is sound (a full expansion is always a
// persistent set), and since it is decided between levels, on the counts
// of whole levels, the states do not depend on the workers.
func reduceOff(ws []*worker) bool {
	var reduced, all int64
	for _, w := range ws {
		reduced += w.e.red.reduced
		all += w.e.red.reduced + w.e.red.full
	}
	if all < reduceSample || reduced*5 >= all {
		return false
	}
	for _, w := range ws {
		w.e.reduce = false
	}
	return true
}
