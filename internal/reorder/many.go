package reorder

import (
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/proto"
)

// Size is a batch of randomized runs of one size: Seeds runs (seeds 0 to
// Seeds−1) of N nodes with Requests requests each.
type Size struct{ N, Seeds, Requests int }

// RunSizes makes the runs of every size with alg, each size a subtest
// "n=N", and fails the test on the first run that fails.
func RunSizes(t *testing.T, alg proto.Algorithm, sizes []Size) {
	for _, z := range sizes {
		t.Run(fmt.Sprint("n=", z.N), func(t *testing.T) {
			for seed := range z.Seeds {
				Run(t, Config{Alg: alg, N: z.N, Seed: uint64(seed), Requests: z.Requests})
			}
		})
	}
}

// LoneTokenCost checks the cost of a lone request from the quiescent state
// for an algorithm whose token starts at node 0, for every n of ns: none
// at node 0, n messages (n−1 requests, the token) at nodes 1 and n−1.
func LoneTokenCost(t testing.TB, alg proto.Algorithm, ns []int) {
	t.Helper()
	for _, n := range ns {
		for _, from := range []proto.NodeID{0, 1, proto.NodeID(n - 1)} {
			want := n
			if from == 0 {
				want = 0
			}
			lone := NewLone(t, Config{Alg: alg, N: n})
			if got := lone.Serve(from, 7); got != want {
				t.Errorf("n=%d, request from %d: %d messages, want %d", n, from, got, want)
			}
		}
	}
}

// WithinStated makes the run c, logs its messages per request (the mean,
// the least and the most a request cost) beside the stated cost of c.Alg
// (a proto.CostAlgorithm), what naming the run in the log, and fails the
// test if a request cost more than the stated most or less than floor.
func WithinStated(t *testing.T, c Config, floor float64, what string) {
	t.Helper()
	res := Run(t, c)
	lo, hi := res.Costs()
	mean := float64(res.Msgs) / float64(len(res.ByTag))
	st := c.Alg.(proto.CostAlgorithm).StatedCost(c.N)
	t.Logf("N=%d %s saturated=%v: %d requests, %.2f messages per request (least %d, most %d; stated %s = %g…%g)",
		c.N, what, c.Saturate, len(res.ByTag), mean, lo, hi, st.Text, st.Low, st.High)
	if float64(lo) < floor || float64(hi) > st.High {
		t.Errorf("N=%d %s: requests cost %d to %d messages, outside %g…%g", c.N, what, lo, hi, floor, st.High)
	}
}

// ExactCost checks a permission algorithm whose every request costs
// exactly f·(n−1) messages, and states it (proto.CostAlgorithm's High): a
// lone request from the quiescent state at n ∈ {2, 4, 8, 16, 256}, from
// nodes 0, n/2 and n−1; and random requests (serials increasing per node,
// not consecutive, not ordered between nodes) with a random delivery order
// (FIFO per channel if fifo) at n ∈ {2, 4, 8, 16} (200 seeds, 50 at 16),
// with Run's checks and PlainMessages after every step, each request
// served with exactly f·(n−1) messages.
func ExactCost(t *testing.T, alg proto.Algorithm, f int, fifo bool) {
	t.Run("lone", func(t *testing.T) {
		for _, n := range []int{2, 4, 8, 16, 256} {
			want := int(alg.(proto.CostAlgorithm).StatedCost(n).High)
			lone := NewLone(t, Config{Alg: alg, N: n})
			for _, r := range []int{0, n / 2, n - 1} {
				if sent := lone.Serve(proto.NodeID(r), uint32(r+1)); sent != want || want != f*(n-1) {
					t.Errorf("n=%d, requester %d: %d messages (stated %d), want %d(n−1) = %d", n, r, sent, want, f, f*(n-1))
				}
			}
		}
	})
	for _, n := range []int{2, 4, 8, 16} {
		seeds := 200
		if n == 16 {
			seeds = 50
		}
		for seed := range seeds {
			t.Run(fmt.Sprintf("n=%d/seed=%d", n, seed), func(t *testing.T) {
				requests := 20 * n
				res := Run(t, Config{Alg: alg, N: n, Seed: uint64(seed), Requests: requests, FIFO: fifo, Checks: []func(proto.System) error{PlainMessages}})
				if least, most := res.Costs(); least != f*(n-1) || most != least || len(res.ByTag) != requests {
					t.Fatalf("%d requests cost %d to %d messages, want %d(n−1) = %d", len(res.ByTag), least, most, f, f*(n-1))
				}
			})
		}
	}
}
