package bench

import (
	"testing"

	"github.com/ocbench/ocbench/faults"
)

// TestProgress: the progress callback is called now and then (not per
// event), counts never go back, and the last call is marked done with the
// run's totals.
func TestProgress(t *testing.T) {
	cases := []struct {
		name string
		spec Spec
	}{
		{"failure-free", Spec{Algorithm: "opencube", Nodes: 16, Requests: 3000, Workload: "sequential", Seed: 1, CSTime: 1}},
		{"crashes", Spec{Algorithm: "opencube", Nodes: 16, Requests: 1, Workload: "poisson", Seed: 1, CSTime: 1,
			Faults: faults.FaultPlan{Crashes: 20, Spacing: "exp", Every: 100, Down: 20, DownDist: "exp", Target: "random"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var calls []Progress
			c.spec.Progress = func(p Progress) { calls = append(calls, p) }
			r, err := Run(c.spec)
			if err != nil {
				t.Fatal(err)
			}
			if len(calls) == 0 || len(calls) > int(r.RequestsServed)/ProgressEvery+c.spec.Faults.Crashes+2 {
				t.Fatalf("%d calls for %d served requests and %d crashes", len(calls), r.RequestsServed, c.spec.Faults.Crashes)
			}
			for k := 1; k < len(calls); k++ {
				if calls[k].Served < calls[k-1].Served || calls[k].Failures < calls[k-1].Failures {
					t.Fatalf("progress went back: %+v then %+v", calls[k-1], calls[k])
				}
			}
			last := calls[len(calls)-1]
			if !last.Done || last.Served != r.RequestsServed || last.Failures != r.Failures || last.FailuresPlanned != c.spec.Faults.Crashes {
				t.Errorf("last call %+v; run served %d, failures %d", last, r.RequestsServed, r.Failures)
			}
		})
	}
}
