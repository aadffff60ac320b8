package pool

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

// meter counts the tasks running at once and the memory they hold.
type meter struct {
	mu                 sync.Mutex
	running, maxRun    int
	held, maxHeld      float64
	alone, aloneBroken bool
}

func (m *meter) enter(cost, budget float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.running++
	m.held += cost
	m.maxRun = max(m.maxRun, m.running)
	m.maxHeld = max(m.maxHeld, m.held)
	if m.alone && m.running > 1 {
		m.aloneBroken = true
	}
	if cost > budget {
		m.alone = true
		if m.running > 1 {
			m.aloneBroken = true
		}
	}
}

func (m *meter) leave(cost, budget float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.running--
	m.held -= cost
	if cost > budget {
		m.alone = false
	}
}

// TestOrderAndBounds runs tasks that finish in a random order and checks
// that their results come back in submission order, that no more than Jobs
// run at once, that the memory they hold stays within the budget, and that
// a task above the budget runs alone.
func TestOrderAndBounds(t *testing.T) {
	cases := []struct {
		name   string
		n      int
		jobs   int
		budget float64
		costs  func(i int) float64
		order  func(n int) []int
	}{
		{"one worker", 20, 1, 0, nil, nil},
		{"four workers", 50, 4, 0, nil, nil},
		{"more workers than tasks", 3, 8, 0, nil, nil},
		{"memory bound", 40, 8, 10, func(i int) float64 { return float64(1 + i%5) }, nil},
		{"a task above the budget", 30, 4, 10, func(i int) float64 {
			if i%7 == 3 {
				return 25
			}
			return 3
		}, nil},
		{"longest first", 30, 3, 0, nil, func(n int) []int {
			o := make([]int, n)
			for i := range o {
				o[i] = n - 1 - i
			}
			return o
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(c.n)))
			delays := make([]time.Duration, c.n)
			for i := range delays {
				delays[i] = time.Duration(rng.IntN(3000)) * time.Microsecond
			}
			cost := func(i int) float64 {
				if c.costs == nil {
					return 0
				}
				return c.costs(i)
			}
			var m meter
			var finished []int
			var fmu sync.Mutex
			cfg := Config{Jobs: c.jobs, Budget: c.budget, Cost: c.costs}
			if c.order != nil {
				cfg.Order = c.order(c.n)
			}
			var got []int
			err := Run(c.n, cfg, func(i int) (string, error) {
				m.enter(cost(i), c.budget)
				time.Sleep(delays[i])
				m.leave(cost(i), c.budget)
				fmu.Lock()
				finished = append(finished, i)
				fmu.Unlock()
				return fmt.Sprint("task ", i), nil
			}, func(i int, v string) error {
				if v != fmt.Sprint("task ", i) {
					t.Errorf("emit(%d, %q): the result of another task", i, v)
				}
				got = append(got, i)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			want := make([]int, c.n)
			for i := range want {
				want[i] = i
			}
			if !slices.Equal(got, want) {
				t.Errorf("emitted %v, want %v", got, want)
			}
			if m.maxRun > c.jobs {
				t.Errorf("%d tasks ran at once, more than %d jobs", m.maxRun, c.jobs)
			}
			if c.budget > 0 && m.maxHeld > c.budget && !m.aloneBroken {
				// a task above the budget holds more than it alone
				over := false
				for i := range c.n {
					over = over || cost(i) > c.budget
				}
				if !over {
					t.Errorf("tasks held %g at once, more than the budget %g", m.maxHeld, c.budget)
				}
			}
			if m.aloneBroken {
				t.Error("a task above the budget ran beside another")
			}
			if c.jobs > 1 && c.n > c.jobs && c.budget == 0 && m.maxRun < 2 {
				t.Errorf("at most %d task ran at once with %d jobs", m.maxRun, c.jobs)
			}
		})
	}
}

// TestBudgetHolds checks the memory held at once against the budget when
// every task fits in it.
func TestBudgetHolds(t *testing.T) {
	var m meter
	const budget = 7
	cost := func(i int) float64 { return float64(1 + i%4) }
	err := Run(60, Config{Jobs: 16, Budget: budget, Cost: cost}, func(i int) (int, error) {
		m.enter(cost(i), budget)
		time.Sleep(time.Duration(i%5) * 300 * time.Microsecond)
		m.leave(cost(i), budget)
		return i, nil
	}, func(int, int) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if m.maxHeld > budget {
		t.Errorf("tasks held %g at once, more than the budget %g", m.maxHeld, float64(budget))
	}
	if m.maxRun < 2 {
		t.Errorf("only %d task ran at once: the budget left room for more", m.maxRun)
	}
}

// TestFirstErrorInOrder makes several tasks fail, the later ones sooner,
// and checks that Run returns the first failure in submission order, that
// everything before it is emitted and nothing after it.
func TestFirstErrorInOrder(t *testing.T) {
	for _, jobs := range []int{1, 2, 4, 8} {
		t.Run(fmt.Sprint("jobs=", jobs), func(t *testing.T) {
			failing := map[int]bool{9: true, 11: true, 14: true}
			var emitted []int
			err := Run(40, Config{Jobs: jobs}, func(i int) (int, error) {
				// the later failures come back first
				time.Sleep(time.Duration(20-min(i, 20)) * 200 * time.Microsecond)
				if failing[i] {
					return 0, fmt.Errorf("task %d failed", i)
				}
				return i, nil
			}, func(i, v int) error {
				emitted = append(emitted, i)
				return nil
			})
			if err == nil || err.Error() != "task 9 failed" {
				t.Fatalf("error %v, want task 9's", err)
			}
			if len(emitted) != 9 || emitted[8] != 8 {
				t.Errorf("emitted %v, want 0..8", emitted)
			}
		})
	}
}

// TestNoStartAfterFailure checks that no task starts after one has failed,
// while an earlier one still runs.
func TestNoStartAfterFailure(t *testing.T) {
	var mu sync.Mutex
	var started []int
	err := Run(10, Config{Jobs: 2}, func(i int) (int, error) {
		mu.Lock()
		started = append(started, i)
		mu.Unlock()
		if i == 1 {
			return 0, errors.New("task 1 failed")
		}
		time.Sleep(30 * time.Millisecond)
		return i, nil
	}, func(int, int) error { return nil })
	if err == nil || err.Error() != "task 1 failed" {
		t.Fatalf("error %v, want task 1's", err)
	}
	slices.Sort(started)
	if !slices.Equal(started, []int{0, 1}) {
		t.Errorf("tasks %v started, want 0 and 1 only", started)
	}
}

// TestEmitError checks that an error of emit ends Run with it, after the
// running tasks end.
func TestEmitError(t *testing.T) {
	stop := errors.New("full disk")
	var mu sync.Mutex
	running := 0
	var emitted []int
	err := Run(30, Config{Jobs: 3}, func(i int) (int, error) {
		mu.Lock()
		running++
		mu.Unlock()
		time.Sleep(time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
		return i, nil
	}, func(i, _ int) error {
		if i == 5 {
			return stop
		}
		emitted = append(emitted, i)
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("error %v, want %v", err, stop)
	}
	if len(emitted) != 5 {
		t.Errorf("emitted %v, want 0..4", emitted)
	}
	mu.Lock()
	defer mu.Unlock()
	if running != 0 {
		t.Errorf("%d tasks still running after Run returned", running)
	}
}

func TestBadOrder(t *testing.T) {
	for _, order := range [][]int{{0, 1}, {0, 0, 1}, {0, 1, 3}, {2, 1, -1}} {
		err := Run(3, Config{Jobs: 2, Order: order}, func(i int) (int, error) { return i, nil }, func(int, int) error { return nil })
		if !errors.Is(err, ErrOrder) {
			t.Errorf("order %v: error %v, want ErrOrder", order, err)
		}
	}
}

func TestNoTasks(t *testing.T) {
	called := false
	err := Run(0, Config{Jobs: 4}, func(int) (int, error) { called = true; return 0, nil }, func(int, int) error { called = true; return nil })
	if err != nil || called {
		t.Errorf("no tasks: error %v, called %v", err, called)
	}
}
