package bench

import (
	"strings"
	"testing"

	"github.com/ocbench/ocbench/proto"
)

// TestOutside: a plan is outside a fault model when it has two nodes down
// at once for a one-at-a-time model, or recoveries for a model without.
func TestOutside(t *testing.T) {
	plan := func(every, down, permanent float64) FaultPlan {
		return FaultPlan{Crashes: 5, Spacing: "fixed", Every: every, Down: down, DownDist: "fixed", Permanent: permanent, Target: "random"}
	}
	one := proto.FaultModel{OneAtATime: true}
	never := proto.FaultModel{NoRecovery: true}
	for _, c := range []struct {
		name  string
		plan  FaultPlan
		model proto.FaultModel
		want  string // in the result; "" for none
	}{
		{"spaced crashes, one at a time", plan(100, 10, 0), one, ""},
		{"overlapping downtimes", plan(5, 50, 0), one, "nodes down at once"},
		{"permanent crashes overlap", plan(100, 10, 1), one, "5 nodes down at once"},
		{"recoveries, no-recovery model", plan(100, 10, 0), never, "5 of 5 crashed nodes recover"},
		{"permanent crashes, no-recovery model", plan(100, 10, 1), never, ""},
		{"any plan, open model", plan(5, 50, 0), proto.FaultModel{}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.plan.Outside(c.model, 1, 16, 1e-3)
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Errorf("Outside = %q, want %q", got, c.want)
			}
		})
	}
}

// TestFaultTolerantRuns: every algorithm with a failure protocol runs
// crashes with its fault model in the record; one without is refused.
func TestFaultTolerantRuns(t *testing.T) {
	names := FaultTolerant()
	if len(names) == 0 || names[0] != "opencube" {
		t.Fatalf("FaultTolerant() = %v, want opencube first", names)
	}
	for _, a := range names {
		r, err := Run(Spec{Algorithm: a, Nodes: 16, Requests: 200, Workload: "poisson", Seed: 1, CSTime: 1,
			Faults: FaultPlan{Crashes: 5, Spacing: "exp", Every: 50, Down: 20, DownDist: "exp", Target: "random"}})
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		if r.FaultModel == "" || r.Failures != 5 {
			t.Errorf("%s: fault model %q, %d failures", a, r.FaultModel, r.Failures)
		}
	}
	_, err := Run(Spec{Algorithm: "raymond", Nodes: 16, Requests: 200, Workload: "poisson", Seed: 1, CSTime: 1,
		Faults: FaultPlan{Crashes: 5, Spacing: "exp", Every: 50, Down: 20, DownDist: "exp", Target: "random"}})
	if err == nil || !strings.Contains(err.Error(), "no failure protocol") {
		t.Errorf("raymond with crashes: error %v, want a refusal", err)
	}
}
