package bench

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/proto"
)

// TestOutside: a plan is outside a fault model when it has two nodes down
// at once for a one-at-a-time model, or recoveries for a model without.
func TestOutside(t *testing.T) {
	plan := func(every, down, permanent float64) faults.FaultPlan {
		return faults.FaultPlan{Crashes: 5, Spacing: "fixed", Every: every, Down: down, DownDist: "fixed", Permanent: permanent, Target: "random"}
	}
	one := proto.FaultModel{OneAtATime: true}
	never := proto.FaultModel{NoRecovery: true}
	for _, c := range []struct {
		name  string
		plan  faults.FaultPlan
		model proto.FaultModel
		want  string // in the result; "" for none
	}{
		{"spaced crashes, one at a time", plan(100, 10, 0), one, ""},
		{"overlapping downtimes", plan(5, 50, 0), one, "nodes down at once"},
		{"permanent crashes overlap", plan(100, 10, 1), one, "5 nodes down at once"},
		{"recoveries, no-recovery model", plan(100, 10, 0), never, "5 of 5 crashed nodes recover"},
		{"permanent crashes, no-recovery model", plan(100, 10, 1), never, ""},
		{"any plan, open model", plan(5, 50, 0), proto.FaultModel{}, ""},
		{"permanent crashes, every node must recover", plan(100, 10, 1), proto.FaultModel{AllRecover: true}, "5 of 5 crashed nodes never recover"},
		{"recoveries, every node must recover", plan(100, 10, 0), proto.FaultModel{AllRecover: true}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := faults.Outside(c.model, c.plan.Schedule(1, 16, 1e-3))
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Errorf("Outside = %q, want %q", got, c.want)
			}
		})
	}
}

// TestFaultTolerantRuns: every algorithm with a failure protocol runs
// crashes with its fault model in the record; one without is refused.
func TestFaultTolerantRuns(t *testing.T) {
	names := algo.FaultTolerant()
	if len(names) == 0 || names[0] != "opencube" {
		t.Fatalf("algo.FaultTolerant() = %v, want opencube first", names)
	}
	for _, a := range names {
		r, err := Run(Spec{Algorithm: a, Nodes: 16, Requests: 200, Workload: "poisson", Seed: 1, CSTime: 1,
			Faults: faults.FaultPlan{Crashes: 5, Spacing: "exp", Every: 50, Down: 20, DownDist: "exp", Target: "random"}})
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		if r.FaultModel == "" || r.Failures != 5 {
			t.Errorf("%s: fault model %q, %d failures", a, r.FaultModel, r.Failures)
		}
	}
	_, err := Run(Spec{Algorithm: "raymond", Nodes: 16, Requests: 200, Workload: "poisson", Seed: 1, CSTime: 1,
		Faults: faults.FaultPlan{Crashes: 5, Spacing: "exp", Every: 50, Down: 20, DownDist: "exp", Target: "random"}})
	if err == nil || !strings.Contains(err.Error(), "no failure protocol") {
		t.Errorf("raymond with crashes: error %v, want a refusal", err)
	}
}

var ftSeeds = flag.Int("ft-seeds", 60, "seeds per configuration in TestFaultModelSweep")

// TestFaultModelSweep runs every fault-tolerant algorithm under crash plans
// inside its fault model (fixed gaps longer than the downtime for a
// one-at-a-time model; permanent crashes for a model without recovery), at
// several loads and with crashes aimed at the token holder: every run ends
// with no violation and no request of a node that stayed up lost. Plans
// outside the model run too, and must say so in the record.
func TestFaultModelSweep(t *testing.T) {
	for _, a := range algo.FaultTolerant() {
		m := lookup(a).(proto.FaultTolerantAlgorithm).FaultModel()
		perm := 0.0
		if m.NoRecovery {
			perm = 1
		}
		for _, c := range []struct {
			nodes  int
			think  float64
			target faults.Target
		}{{8, 16, "random"}, {16, 160, "random"}, {16, 16, "token"}, {32, 320, "random"}} {
			t.Run(fmt.Sprintf("%s/N=%d/think=%g/%s", a, c.nodes, c.think, c.target), func(t *testing.T) {
				t.Parallel()
				crashes := min(6, c.nodes-3)
				for seed := uint64(1); seed <= uint64(shortened("ft-seeds", *ftSeeds, 12)); seed++ {
					s := Spec{Algorithm: a, Nodes: c.nodes, Requests: int64(10 * c.nodes), Workload: "poisson", Seed: seed,
						CSTime: 1, Think: c.think, NoBaseline: true, Check: CheckFull, FIFO: seed%4 == 0, MinDelay: delayFloors[seed%3],
						Faults: faults.FaultPlan{Crashes: crashes, Spacing: "fixed", Every: 100, Down: 20, DownDist: "fixed", Permanent: perm, Target: c.target}}
					r, err := Run(s)
					if err != nil {
						t.Fatal(err)
					}
					if r.FaultModelBroken != "" {
						t.Fatalf("seed %d: the plan is outside the model: %s", seed, r.FaultModelBroken)
					}
					if r.SafetyViolations+r.LivenessViolations > 0 || r.RequestsLost > 0 {
						t.Fatalf("seed %d: %s (lost %d)", seed, r.Violation, r.RequestsLost)
					}
				}
			})
		}
		t.Run(a+"/outside", func(t *testing.T) {
			s := Spec{Algorithm: a, Nodes: 16, Requests: 160, Workload: "poisson", Seed: 1, CSTime: 1, Think: 32, NoBaseline: true,
				Faults: faults.FaultPlan{Crashes: 10, Spacing: "exp", Every: 10, Down: 40, DownDist: "exp", Target: "random"}}
			r, err := Run(s)
			if err != nil {
				t.Fatal(err)
			}
			if (m.OneAtATime || m.NoRecovery) != (r.FaultModelBroken != "") {
				t.Errorf("model %+v, plan with overlaps and recoveries: fault_model_broken %q", m, r.FaultModelBroken)
			}
		})
	}
}
