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
