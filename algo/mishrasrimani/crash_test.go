package mishrasrimani_test

import (
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/workload"
)

// TestCrashes runs the algorithm with its failure protocol on the
// simulator (random delays in [0, δ], non-FIFO) under crashes inside its
// fault model — one node down at a time, with recoveries — for many
// seeds, with every check after every step (at most one node in the CS,
// at most one live token, the invariants), and requires that every
// request of a node that stayed up was served. Crashes aimed at the token
// holder lose the token: it must be regenerated.
func TestCrashes(t *testing.T) {
	for _, c := range []struct {
		n        int
		workload workload.Kind
		target   faults.Target
		seeds    int
	}{
		{4, "poisson", "token", 60},
		{8, "saturated", "token", 30},
		{8, "poisson", "random", 30},
		{16, "poisson", "token", 15},
	} {
		t.Run(fmt.Sprintf("n=%d/%s/%s", c.n, c.workload, c.target), func(t *testing.T) {
			regenerated := int64(0)
			for seed := 1; seed <= c.seeds; seed++ {
				spec := bench.Spec{Algorithm: "mishra-srimani", Nodes: c.n, Requests: 100, Workload: c.workload,
					Seed: uint64(seed), CSTime: 1, Check: bench.CheckFull, NoBaseline: true,
					Faults: faults.FaultPlan{Crashes: 20, Spacing: "fixed", Every: 100, Down: 20, DownDist: "fixed", Target: c.target}}
				r, err := bench.Run(spec)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if r.Violation != "" || r.SafetyViolations+r.LivenessViolations != 0 || r.RequestsLost != 0 {
					t.Fatalf("seed %d: %s (%d lost)", seed, r.Violation, r.RequestsLost)
				}
				if r.FaultModelBroken != "" {
					t.Fatalf("seed %d: the plan is outside the fault model: %s", seed, r.FaultModelBroken)
				}
				regenerated += r.TokensRegenerated
			}
			t.Logf("%d tokens regenerated", regenerated)
			if c.target == "token" && regenerated == 0 {
				t.Error("no token was regenerated, though crashes hit the holder")
			}
		})
	}
}
