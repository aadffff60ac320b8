// Package pool runs independent tasks on a pool of goroutines and hands
// their results back in the order the tasks were submitted, whatever the
// order in which they finish: a sweep's output is then the same on any
// number of workers. Each task reserves its share of a memory budget
// before it starts, so that the tasks running at once fit in it together.
package pool

import (
	"errors"
	"sync"
)

// Config is how Run runs its tasks.
type Config struct {
	// Jobs is the most tasks that run at once (at least 1).
	Jobs int
	// Budget is the memory the tasks running at once may reserve in all,
	// in bytes; 0 or less: no bound. A task whose Cost is above the
	// budget runs alone (it reserves the whole budget).
	Budget float64
	// Cost is the memory task i reserves while it runs, in bytes (nil:
	// none).
	Cost func(i int) float64
	// Order is the order in which the tasks start, a permutation of 0..n−1
	// (nil: 0, 1, …, n−1). Results are handed back in the order 0, 1, …
	// all the same; a start order with the longest tasks first ends a
	// sweep sooner.
	Order []int
}

// ErrOrder is returned when Config.Order is not a permutation of the tasks.
var ErrOrder = errors.New("pool: the start order is not a permutation of the tasks")

// Run runs do(i) for i in 0..n−1 on up to c.Jobs goroutines at once and
// calls emit(i, result) in the order of i, on the calling goroutine, as
// soon as the results of 0..i are in. A task starts once a worker is free
// and its cost fits in what the running tasks leave of the budget; tasks
// start in c.Order, a later one never before an earlier one (so a large
// task is not starved by small ones).
//
// The first error in the order of i, of do or of emit, ends Run: no task
// after it starts, the tasks already running are waited for, emit is not
// called for i or anything after it, and Run returns that error. So an
// error is the one a run of the tasks one at a time, in order, would
// return.
func Run[T any](n int, c Config, do func(i int) (T, error), emit func(i int, v T) error) error {
	if n <= 0 {
		return nil
	}
	order := c.Order
	if order == nil {
		order = make([]int, n)
		for i := range order {
			order[i] = i
		}
	} else if !permutation(order, n) {
		return ErrOrder
	}
	p := &state[T]{n: n, c: c, stop: n, done: make([]bool, n), vals: make([]T, n), errs: make([]error, n)}
	p.cond = sync.NewCond(&p.mu)
	go p.dispatch(order, do)
	var err error
	for i := 0; i < n; i++ {
		p.mu.Lock()
		for !p.done[i] && i < p.stop {
			p.cond.Wait()
		}
		if !p.done[i] { // stopped before i started, by an emit error: unreachable
			p.mu.Unlock()
			break
		}
		v, e := p.vals[i], p.errs[i]
		var zero T
		p.vals[i] = zero // the caller keeps what it needs of it
		p.mu.Unlock()
		if e == nil {
			e = emit(i, v)
		}
		if e != nil {
			err = e
			p.halt(i)
			break
		}
	}
	p.mu.Lock()
	for p.running > 0 || !p.dispatched {
		p.cond.Wait()
	}
	p.mu.Unlock()
	return err
}

// state is one Run's bookkeeping, guarded by mu.
type state[T any] struct {
	n    int
	c    Config
	mu   sync.Mutex
	cond *sync.Cond
	// stop: no task at or after it starts (n: none stopped); the lowest
	// task that failed.
	stop       int
	running    int
	reserved   float64
	dispatched bool // the dispatcher has returned
	done       []bool
	vals       []T
	errs       []error
}

// halt stops every task after i from starting.
func (p *state[T]) halt(i int) {
	p.mu.Lock()
	p.stop = min(p.stop, i)
	p.cond.Broadcast()
	p.mu.Unlock()
}

// cost is what task i reserves: its Cost, at most the budget.
func (p *state[T]) cost(i int) float64 {
	if p.c.Cost == nil || p.c.Budget <= 0 {
		return 0
	}
	return min(max(p.c.Cost(i), 0), p.c.Budget)
}

// dispatch starts the tasks in order as workers and memory allow.
func (p *state[T]) dispatch(order []int, do func(int) (T, error)) {
	jobs := max(p.c.Jobs, 1)
	p.mu.Lock()
	defer func() {
		p.dispatched = true
		p.cond.Broadcast()
		p.mu.Unlock()
	}()
	for _, i := range order {
		need := p.cost(i)
		for i < p.stop && (p.running >= jobs || p.running > 0 && p.c.Budget > 0 && p.reserved+need > p.c.Budget) {
			p.cond.Wait()
		}
		if i >= p.stop {
			continue // an earlier task failed; those before it still run
		}
		p.running++
		p.reserved += need
		go func() {
			v, err := do(i)
			p.mu.Lock()
			p.vals[i], p.errs[i], p.done[i] = v, err, true
			p.running--
			p.reserved -= need
			if err != nil {
				p.stop = min(p.stop, i+1) // i itself is done: its error is emitted
			}
			p.cond.Broadcast()
			p.mu.Unlock()
		}()
	}
}

// permutation reports whether order holds each of 0..n−1 once.
func permutation(order []int, n int) bool {
	if len(order) != n {
		return false
	}
	seen := make([]bool, n)
	for _, i := range order {
		if i < 0 || i >= n || seen[i] {
			return false
		}
		seen[i] = true
	}
	return true
}
