package bench

import (
	"flag"
	"fmt"
	"testing"
)

var crashSeeds = flag.Int("crash-seeds", 2000, "seeds in TestCrashSweep")

// TestCrashSweep runs the open-cube with random crashes and recoveries,
// overlapping failures, concurrent searches and anomalies, with message
// delays up to δ, over many seeds: after every step at most one node is in
// the critical section and at most one live token exists, and at the end
// every request of a node that stayed up was served.
func TestCrashSweep(t *testing.T) {
	configs := []struct {
		nodes   int
		think   float64
		crashes int
		every   float64
		down    float64
		perm    float64
		target  string
	}{
		{8, 16, 12, 30, 10, 0, "random"},
		{16, 64, 20, 50, 10, 0, "random"},
		{16, 32, 20, 20, 40, 0, "random"}, // overlapping failures
		{32, 128, 20, 60, 20, 0.2, "random"},
		{16, 64, 15, 50, 10, 0, "token"},
		{16, 64, 15, 50, 10, 0, "root"},
		{16, 64, 15, 50, 10, 0, "path"},
	}
	per := max(*crashSeeds/len(configs), 1)
	for _, c := range configs {
		t.Run(fmt.Sprintf("N=%d/crashes=%d/every=%g/down=%g/%s", c.nodes, c.crashes, c.every, c.down, c.target), func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= uint64(per); seed++ {
				spec := Spec{Algorithm: "opencube", Nodes: c.nodes, Requests: int64(10 * c.nodes), Workload: "poisson",
					Seed: seed, CSTime: 1, Think: c.think, FIFO: seed%4 == 0, NoBaseline: true,
					Faults: FaultPlan{Crashes: c.crashes, Spacing: "exp", Every: c.every, Down: c.down, DownDist: "exp",
						Permanent: c.perm, Target: c.target}}
				r, err := Run(spec)
				if err != nil {
					t.Fatal(err)
				}
				if r.SafetyViolations+r.LivenessViolations > 0 {
					t.Fatalf("%s\nreplay: ocbench --nodes %d --workload poisson --requests %d --think %g --cs-time 1 --crashes %d --crash-every %g --downtime %g --permanent %g --crash-target %s --fifo=%v --seed %d",
						r.Violation, c.nodes, spec.Requests, c.think, c.crashes, c.every, c.down, c.perm, c.target, spec.FIFO, seed)
				}
				if r.Failures == 0 {
					t.Fatalf("seed %d: no crash was injected", seed)
				}
			}
		})
	}
}
