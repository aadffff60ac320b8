package nishio_test

import (
	"testing"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/workload"
)

// TestCrashes runs the failure protocol in the simulator with crashes and
// recoveries, every invariant checked after every step (sim.CheckFull: at
// most one node in the critical section, at most one live token, HeldToken),
// and requires every request of a node that stayed up to be served: one
// crash at a time (gaps long beside the downtimes), crashes that overlap
// (the ipsc2 preset's rates), and crashes aimed at the token's holder.
func TestCrashes(t *testing.T) {
	for _, c := range []struct {
		name        string
		n           int
		workload    workload.Kind
		every, down float64
		target      faults.Target
		seeds       int
	}{
		{"one at a time", 8, "poisson", 300, 20, "random", 20},
		{"overlapping", 16, "poisson", 50, 20, "random", 20},
		{"saturated", 8, "saturated", 40, 20, "random", 20},
		{"token holder", 8, "poisson", 100, 20, "token", 20},
		{"token holder saturated", 4, "saturated", 60, 10, "token", 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			for seed := 1; seed <= c.seeds; seed++ {
				r, err := bench.Run(bench.Spec{Algorithm: "nishio", Nodes: c.n, Requests: 300, Workload: c.workload, Seed: uint64(seed),
					CSTime: 1, Check: bench.CheckFull, NoBaseline: true,
					Faults: faults.FaultPlan{Crashes: 30, Spacing: "exp", Every: c.every, Down: c.down, DownDist: "exp", Target: c.target}})
				if err != nil {
					t.Fatal(err)
				}
				if r.SafetyViolations+r.LivenessViolations > 0 || r.RequestsLost > 0 {
					t.Fatalf("seed %d: %d safety, %d liveness violations, %d requests lost: %s", seed, r.SafetyViolations, r.LivenessViolations, r.RequestsLost, r.Violation)
				}
				if c.target == "token" && r.Events["tokens_regenerated"] == 0 {
					t.Errorf("seed %d: %d crashes of the token's holder, no token regenerated", seed, r.Failures)
				}
			}
		})
	}
}
