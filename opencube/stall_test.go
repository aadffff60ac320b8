package opencube_test

import (
	"testing"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	_ "github.com/ocbench/ocbench/opencube" // registers the algorithm
	"github.com/ocbench/ocbench/workload"
)

// TestStallReplays replays the four runs in which the project's protocol
// stalled (scripts/paper-protocol.sh, the ipsc2 preset's overlapping
// crashes: gaps exp(mean 50δ), down exp(mean 20δ)): no request served for
// a watchdog period (256δ at N = 32, 512δ at N = 64) while requests waited.
// Two stalls were a request lost with its holder's crash, which its
// requester would have noticed only at a deadline as far away as it had
// already waited (N = 64 seeds 47 and 85); two were a cycle of waits that
// a node's search rebuilt as often as a chase found it (N = 32 seeds 21
// and 89). docs/failures.md, "Two stalls under saturation". Each run must
// end with no violation, every check after every step, and must still
// crash nodes that hold requests (the runs are kept for that).
func TestStallReplays(t *testing.T) {
	cases := []struct {
		name    string
		nodes   int
		crashes int
		load    workload.Kind
		think   float64
		seed    uint64
	}{
		{"N=32 saturated seed 21 (cycle of waits)", 32, 300, workload.Saturated, 0, 21},
		{"N=32 think 32 seed 89 (cycle of waits)", 32, 300, workload.Poisson, 32, 89},
		{"N=64 saturated seed 47 (request lost with its holder)", 64, 200, workload.Saturated, 0, 47},
		{"N=64 saturated seed 85 (request lost with its holder)", 64, 200, workload.Saturated, 0, 85},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := bench.Spec{Algorithm: "opencube", Nodes: c.nodes, Requests: 1, Workload: c.load, Think: c.think,
				Seed: c.seed, CSTime: 1, MinDelay: 0.5, Check: bench.CheckFull, NoBaseline: true,
				Faults: faults.FaultPlan{Crashes: c.crashes, Spacing: "exp", Every: 50, Down: 20, DownDist: "exp", Target: "random"}}
			r, err := bench.Run(s)
			if err != nil {
				t.Fatal(err)
			}
			if r.SafetyViolations+r.LivenessViolations > 0 {
				t.Fatalf("%s\nreplay: %s", r.Violation, bench.Replay(s))
			}
			if r.Failures != c.crashes || r.Events["requests_dropped_by_crash"] == 0 {
				t.Fatalf("%d failures, %d requests dropped by a crash: want %d and some\nreplay: %s",
					r.Failures, r.Events["requests_dropped_by_crash"], c.crashes, bench.Replay(s))
			}
		})
	}
}
