//go:build mpi

package rank

import (
	"testing"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/mpi"
)

// TestMPITargetedCrashes: crashes aimed at the token holder and at the
// root on real MPI ranks (path: TestTargetedCrashes, on goroutine ranks) (make mpi-test runs it on 8 ranks,
// N = 64 as in issue 17's `--crash-target token` command, with fewer
// requests): every planned crash happens (a few may be skipped when too
// few nodes are up), and a run whose deliveries all kept within δ has no
// safety violation.
func TestMPITargetedCrashes(t *testing.T) {
	p := mpi.WorldSize()
	n := min(64, 8*p)
	if n < 4 {
		n = 4
	}
	for _, target := range []faults.Target{"token", "root"} {
		spec := bench.Spec{Algorithm: "opencube", Nodes: n, Requests: 1, Workload: "poisson", Seed: 1, Delta: 4e-3, CSTime: 1,
			Think: 10 * float64(n), Faults: faults.FaultPlan{Crashes: 40, Spacing: "exp", Every: 50, Down: 20, DownDist: "exp", Target: target}}
		r, err := Run(MPI{}, spec, Options{})
		if err != nil {
			t.Fatalf("rank %d: %s: %v", mpi.WorldRank(), target, err)
		}
		if mpi.WorldRank() != 0 {
			continue
		}
		if r.Failures < 36 || r.OverheadPerFailure.N != r.Failures || r.MalformedFrames != 0 {
			t.Errorf("%s N=%d: failures %d (overhead samples %d) of 40 planned, malformed %d %s", target, n, r.Failures, r.OverheadPerFailure.N, r.MalformedFrames, r.MalformedExample)
		}
		if r.SafetyViolations != 0 && r.DelaysOverDelta == 0 {
			t.Errorf("%s N=%d: %d safety violations with every delivery within δ: %s", target, n, r.SafetyViolations, r.Violation)
		} else if r.SafetyViolations != 0 {
			t.Logf("%s N=%d: %d safety violations after %d deliveries later than δ (max %.1fδ): %s", target, n, r.SafetyViolations, r.DelaysOverDelta, r.MaxDelayDelta, r.Violation)
		}
		t.Logf("%s N=%d P=%d: %d failures, overhead/failure %.2f, served %d/%d, %d deliveries over δ (max %.2fδ), violations %d",
			target, n, p, r.Failures, r.OverheadPerFailure.Mean, r.RequestsServed, r.RequestsIssued, r.DelaysOverDelta, r.MaxDelayDelta, r.SafetyViolations)
	}
}
