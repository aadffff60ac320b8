package rank

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// runFarm runs a farm of n tasks on p goroutine ranks (Local): task i
// sleeps a random time, drawn from seed, and returns "task i" (or fail's
// error); it returns what rank 0 emitted, which rank ran each task, and
// every rank's error.
func runFarm(t *testing.T, p, n int, seed uint64, fail map[int]bool, emitFail int) (emitted []string, ranOn []int, errs []error) {
	t.Helper()
	comms := Local(p)
	ranOn = make([]int, n)
	for i := range ranOn {
		ranOn[i] = -1
	}
	var mu sync.Mutex
	errs = make([]error, p)
	var wg sync.WaitGroup
	for r := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(r)))
			do := func(i int) ([]byte, error) {
				mu.Lock()
				if ranOn[i] != -1 {
					t.Errorf("task %d ran twice, on ranks %d and %d", i, ranOn[i], r)
				}
				ranOn[i] = r
				d := time.Duration(rng.IntN(300)) * time.Microsecond
				mu.Unlock()
				time.Sleep(d)
				if fail[i] {
					return nil, fmt.Errorf("task %d failed", i)
				}
				return []byte(fmt.Sprintf("task %d", i)), nil
			}
			emit := func(i int, b []byte) error {
				if r != 0 {
					t.Errorf("rank %d emitted task %d", r, i)
				}
				if i == emitFail {
					return fmt.Errorf("emit %d failed", i)
				}
				if want := fmt.Sprintf("task %d", len(emitted)); i != len(emitted) || string(b) != want {
					t.Errorf("emitted task %d (%q) after %d tasks", i, b, len(emitted))
				}
				emitted = append(emitted, string(b))
				return nil
			}
			errs[r] = Farm{Comm: comms[r]}.Run(n, do, emit)
		}()
	}
	wg.Wait()
	return emitted, ranOn, errs
}

// TestFarm: every task runs once, on some rank; rank 0 emits every result in
// task order whatever the order they end in; every rank takes part.
func TestFarm(t *testing.T) {
	for _, tc := range []struct{ p, n int }{{1, 0}, {1, 5}, {2, 0}, {2, 1}, {2, 40}, {3, 7}, {4, 200}} {
		t.Run(fmt.Sprintf("P=%d,n=%d", tc.p, tc.n), func(t *testing.T) {
			emitted, ranOn, errs := runFarm(t, tc.p, tc.n, uint64(tc.p*1000+tc.n), nil, -1)
			for r, err := range errs {
				if err != nil {
					t.Fatalf("rank %d: %v", r, err)
				}
			}
			if len(emitted) != tc.n {
				t.Fatalf("%d results emitted, want %d", len(emitted), tc.n)
			}
			used := map[int]bool{}
			for i, r := range ranOn {
				if r < 0 {
					t.Errorf("task %d never ran", i)
				}
				used[r] = true
			}
			if tc.n >= 40 && len(used) != tc.p {
				t.Errorf("%d tasks ran on %d of %d ranks: %v", tc.n, len(used), tc.p, ranOn)
			}
		})
	}
}

// TestFarmErrors: the first failure in task order is the one rank 0
// returns, with the text of the task's error wherever it ran, after the
// results before it and none after; tasks after it are not started once
// it is known; an emit error ends the farm the same way; the other ranks
// end without an error.
func TestFarmErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		p, n     int
		fail     []int
		emitFail int
		want     string
		emitted  int
	}{
		{"one failure", 3, 60, []int{17}, -1, "task 17 failed", 17},
		{"two failures, the first reported", 4, 80, []int{50, 9}, -1, "task 9 failed", 9},
		{"the first task", 2, 10, []int{0}, -1, "task 0 failed", 0},
		{"the last task", 2, 10, []int{9}, -1, "task 9 failed", 9},
		{"emit fails", 3, 30, nil, 12, "emit 12 failed", 12},
		{"alone", 1, 10, []int{4}, -1, "task 4 failed", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fail := map[int]bool{}
			for _, i := range tc.fail {
				fail[i] = true
			}
			emitted, ranOn, errs := runFarm(t, tc.p, tc.n, 7, fail, tc.emitFail)
			if errs[0] == nil || errs[0].Error() != tc.want {
				t.Errorf("rank 0: %v, want %q", errs[0], tc.want)
			}
			for r, err := range errs[1:] {
				if err != nil {
					t.Errorf("rank %d: %v", r+1, err)
				}
			}
			if len(emitted) != tc.emitted {
				t.Errorf("%d results emitted, want %d", len(emitted), tc.emitted)
			}
			ran := 0
			for _, r := range ranOn {
				if r >= 0 {
					ran++
				}
			}
			if tc.n > 20 && ran == tc.n {
				t.Errorf("every task ran (%d) after a failure early on", ran)
			}
		})
	}
}

// TestFarmChunks: rank 0 hands out chunks that shrink to one task as the
// queue empties, so that n tasks take far fewer than n requests.
func TestFarmChunks(t *testing.T) {
	c := &farmCoord{f: Farm{Comm: Local(4)[0]}, n: 1000, stop: 1000}
	var sizes []int
	for {
		_, n := c.chunk()
		if n == 0 {
			break
		}
		sizes = append(sizes, n)
	}
	if sizes[0] != 1000/(farmChunkPerRank*4) || sizes[len(sizes)-1] != 1 {
		t.Errorf("chunks %v: want 62 first and 1 last", sizes)
	}
	if !slices.IsSortedFunc(sizes, func(a, b int) int { return b - a }) {
		t.Errorf("chunks %v do not shrink", sizes)
	}
	sum := 0
	for _, s := range sizes {
		sum += s
	}
	if sum != 1000 || len(sizes) > 150 {
		t.Errorf("chunks %v: %d tasks in %d chunks", sizes, sum, len(sizes))
	}
}

// TestFarmResultsCodec: results and errors survive the wire; a truncated
// or malformed message is refused.
func TestFarmResultsCodec(t *testing.T) {
	rs := []farmResult{{i: 3, val: []byte("abc")}, {i: 4, val: []byte{}}, {i: 9, err: errors.New("run x: failed")}}
	got, err := decodeFarmResults(encodeFarmResults(rs))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].i != 3 || string(got[0].val) != "abc" || got[1].i != 4 || len(got[1].val) != 0 || got[1].err != nil ||
		got[2].i != 9 || got[2].err == nil || got[2].err.Error() != "run x: failed" {
		t.Errorf("decoded %+v", got)
	}
	b := encodeFarmResults(rs)
	for _, bad := range [][]byte{b[:5], b[:len(b)-1], append(append([]byte{}, b[:4]...), 7, 0, 0, 0, 0)} {
		if _, err := decodeFarmResults(bad); err == nil {
			t.Errorf("%v decoded", bad)
		}
	}
}

// TestFarmArrived: Arrived sees each result from another rank once, as it
// arrives, and never rank 0's own.
func TestFarmArrived(t *testing.T) {
	comms := Local(3)
	var arrived atomic.Int64
	var mu sync.Mutex
	where := map[int]int{}
	var wg sync.WaitGroup
	for r := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := Farm{Comm: comms[r]}
			if r == 0 {
				f.Arrived = func(i int, b []byte) {
					arrived.Add(1)
					mu.Lock()
					defer mu.Unlock()
					if where[i] == 0 || !strings.HasPrefix(string(b), "ok") {
						t.Errorf("task %d (%q) arrived from rank %d", i, b, where[i])
					}
				}
			}
			err := f.Run(50, func(i int) ([]byte, error) {
				mu.Lock()
				where[i] = r
				mu.Unlock()
				time.Sleep(100 * time.Microsecond)
				return []byte("ok"), nil
			}, func(int, []byte) error { return nil })
			if err != nil {
				t.Errorf("rank %d: %v", r, err)
			}
		}()
	}
	wg.Wait()
	remote := 0
	for _, r := range where {
		if r != 0 {
			remote++
		}
	}
	if int(arrived.Load()) != remote || remote == 0 {
		t.Errorf("%d arrivals for %d tasks run on other ranks", arrived.Load(), remote)
	}
}
