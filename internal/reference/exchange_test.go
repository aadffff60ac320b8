package reference

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/results"
)

// hub connects the goroutines of a goroutine runtime: each is a process
// of bench.RunParts, and every collective is a round in which each
// process puts its contribution in its slot and waits for the others'.
type hub struct {
	n       int
	mu      sync.Mutex
	cur     *round
	aborted chan struct{} // closed when a process fails: the others stop waiting
	once    sync.Once
}

// round is one collective of the hub.
type round struct {
	in   []any
	left int
	done chan struct{}
}

// errAborted is a collective's error once another process has failed.
var errAborted = errors.New("another goroutine failed")

// all puts x in process me's slot of the current round and returns every
// process's, in process order, once all have put theirs.
func (h *hub) all(me int, x any) ([]any, error) {
	h.mu.Lock()
	if h.cur == nil {
		h.cur = &round{in: make([]any, h.n), left: h.n, done: make(chan struct{})}
	}
	r := h.cur
	r.in[me] = x
	if r.left--; r.left == 0 {
		h.cur = nil // the next collective is a new round
		close(r.done)
	}
	h.mu.Unlock()
	select {
	case <-r.done:
		return r.in, nil
	case <-h.aborted:
		return nil, errAborted
	}
}

// goroutine is process me of a hub: a bench.Exchange, the whole of what a
// runtime brings to run split runs.
type goroutine struct {
	h  *hub
	me int
}

// swap is what a process gives a Swap round.
type swap struct {
	out [][]bench.Parcel
	vec []int64
}

func (g goroutine) Processes() (int, int) { return g.h.n, g.me }

func (g goroutine) Swap(out [][]bench.Parcel, vec []int64, nsum int) ([]bench.Parcel, []int64, error) {
	mine := swap{out: make([][]bench.Parcel, len(out)), vec: vec}
	for q := range out {
		mine.out[q] = append([]bench.Parcel(nil), out[q]...) // out is the caller's again on return
	}
	all, err := g.h.all(g.me, mine)
	if err != nil {
		return nil, nil, err
	}
	var in []bench.Parcel
	vecs := make([][]int64, len(all))
	for q, x := range all {
		in = append(in, x.(swap).out[g.me]...)
		vecs[q] = x.(swap).vec
	}
	return in, combine(vecs, nsum), nil
}

func (g goroutine) Reduce(vec []int64, nsum int) ([]int64, error) {
	all, err := g.h.all(g.me, vec)
	if err != nil {
		return nil, err
	}
	vecs := make([][]int64, len(all))
	for q, x := range all {
		vecs[q] = x.([]int64)
	}
	return combine(vecs, nsum), nil
}

func (g goroutine) AllGather(b []byte) ([][]byte, error) {
	all, err := g.h.all(g.me, b)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(all))
	for q, x := range all {
		out[q] = x.([]byte)
	}
	return out, nil
}

func (g goroutine) Gather(mine []bench.Ending) ([]bench.Ending, error) {
	all, err := g.h.all(g.me, mine)
	if err != nil || g.me != 0 {
		return nil, err
	}
	var out []bench.Ending
	for _, x := range all {
		out = append(out, x.([]bench.Ending)...)
	}
	return out, nil
}

// combine adds up the processes' vectors: the first nsum elements
// summed, the others their minimum.
func combine(vecs [][]int64, nsum int) []int64 {
	out := make([]int64, len(vecs[0]))
	for i := range out {
		if i >= nsum {
			out[i] = math.MaxInt64
		}
		for _, v := range vecs {
			if i < nsum {
				out[i] += v[i]
			} else {
				out[i] = min(out[i], v[i])
			}
		}
	}
	return out
}

// runGoroutines runs spec split as owner says over n goroutines, each a
// process of bench.RunParts through a goroutine exchange.
func runGoroutines(spec bench.Spec, owner []int, n int) (*results.Run, error) {
	plan, err := spec.Resolve()
	if err != nil {
		return nil, err
	}
	h := &hub{n: n, aborted: make(chan struct{})}
	recs := make([][]*results.Run, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for me := range n {
		wg.Go(func() {
			recs[me], errs[me] = bench.RunParts(goroutine{h, me}, []*bench.Plan{plan}, [][]int{owner})
			if errs[me] != nil {
				h.once.Do(func() { close(h.aborted) })
			}
		})
	}
	wg.Wait()
	for me, err := range errs {
		if err != nil && !errors.Is(err, errAborted) {
			return nil, fmt.Errorf("goroutine %d: %w", me, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for me := 1; me < n; me++ {
		if recs[me] != nil {
			return nil, fmt.Errorf("goroutine %d got records", me)
		}
	}
	return recs[0][0], nil
}

// TestGoroutinesEqualSimulator runs every reference case that can be
// split as parts on goroutines (one part each, and two parts each), which
// exchange their boundaries through the goroutine exchange above, and
// requires the simulator's record and trace: a runtime is one
// bench.Exchange.
func TestGoroutinesEqualSimulator(t *testing.T) {
	eachSplittable(t, func(name string, spec bench.Spec, want string, wantTrace []byte) {
		for _, c := range []struct {
			parts, goroutines int
			place             string
		}{{3, 3, "cyclic"}, {4, 2, "block"}} {
			t.Run(fmt.Sprintf("%s/%d-parts-%d-goroutines-%s", name, c.parts, c.goroutines, c.place), func(t *testing.T) {
				owner := placements(spec.Nodes, c.parts)[c.place]
				sameAsSimulator(t, name, spec, want, wantTrace, func(s bench.Spec) (any, error) { return runGoroutines(s, owner, c.goroutines) })
			})
		}
	})
}
