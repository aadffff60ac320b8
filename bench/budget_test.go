package bench

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/internal/timebox"
	"github.com/ocbench/ocbench/workload"
)

// TestBudget: a run that spends its budget, of steps or of virtual time, is
// stopped and reported as a liveness violation with the command that
// replays it; a CS time of 0 in the saturated workload with crashes, which
// Validate refuses, loops at one instant until the budget stops it.
func TestBudget(t *testing.T) {
	spec := Spec{Algorithm: "opencube", Nodes: 16, Requests: 500, Workload: "poisson", Seed: 3, CSTime: 1, Think: 64,
		Faults: faults.FaultPlan{Crashes: 10, Spacing: "exp", Every: 50, Down: 20, DownDist: "exp", Target: "random"}}
	for _, c := range []struct {
		name string
		b    budget
		want string
	}{
		{"steps", budget{steps: 2000, virtual: math.Inf(1)}, "2000 steps"},
		{"virtual time", budget{steps: math.MaxInt64, virtual: 0.1}, "a virtual time of"},
	} {
		timebox.Within(t, 60*time.Second, func() {
			small := func(Spec, float64) budget { return c.b }
			r, err := runWithin(spec, small, budgetFor)
			if err != nil {
				t.Error(err) // not Fatal: this is not the test's goroutine
				return
			}
			if r.LivenessViolations != 1 || !strings.Contains(r.Violation, "end of its budget") || !strings.Contains(r.Violation, c.want) ||
				!strings.Contains(r.Violation, "seed 3") || !strings.Contains(r.Violation, "; replay: ocbench ") {
				t.Errorf("%s: %d liveness violations: %s", c.name, r.LivenessViolations, r.Violation)
			}
			if c.name == "virtual time" && r.VirtualSeconds > 0.1+c.b.virtual/1024+1e-3 {
				t.Errorf("%s: stopped at %gs, past the budget of 0.1s", c.name, r.VirtualSeconds)
			}
		})
	}
	// A CS time of 0 in the saturated workload with crashes, which Validate
	// refuses, and a poisson think time of 0 (N × cs-time with a CS time of
	// 0), which the command refuses (a spec may still ask for it): the node
	// holding the token enters again at the same instant until the budget
	// stops it.
	zeno := Spec{Algorithm: "opencube", Nodes: 8, Requests: 10, Workload: "saturated", Seed: 1, CSTime: 0,
		Faults: faults.FaultPlan{Crashes: 3, Spacing: "exp", Every: 50, Down: 20, DownDist: "exp", Target: "random"}}
	if zeno.Validate() == nil {
		t.Fatal("Validate takes a CS time of 0 in the saturated workload with crashes")
	}
	timebox.Within(t, 60*time.Second, func() {
		zeno.fill()
		plan, err := newPlan(zeno, lookup(zeno.Algorithm)) // Resolve refuses it
		if err != nil {
			t.Fatal(err)
		}
		o := simulate(plan)
		if !strings.Contains(o.stuck, "end of its budget") {
			t.Errorf("saturated: a loop at one instant was not stopped by the budget: stuck %q, err %v, t=%gs, %d steps", o.stuck, o.err, o.now, o.stats.Steps)
		}
	})
	zeno.Workload = "poisson"
	timebox.Within(t, 60*time.Second, func() {
		r, err := Run(zeno)
		if err != nil {
			t.Error(err)
			return
		}
		if r.LivenessViolations == 0 || !strings.Contains(r.Violation, "end of its budget") || !strings.Contains(r.Violation, "replay: ") {
			t.Errorf("poisson: a loop at one instant was not stopped by the budget: %q", r.Violation)
		}
	})
}

// TestBudgetHeadroom: the runs of the tests and of the README use a small
// part of their budget (at most 1/4 of it; measured: at most 1/30 of the
// virtual time and 1/250 of the steps).
func TestBudgetHeadroom(t *testing.T) {
	ipsc := func(n, crashes int) Spec {
		return Spec{Algorithm: "opencube", Nodes: n, Requests: 1, Workload: "poisson", Seed: 1, CSTime: 1, Think: 10 * float64(n),
			Faults: faults.FaultPlan{Crashes: crashes, Spacing: "exp", Every: 50, Down: 20, DownDist: "exp", Target: "random"}}
	}
	specs := []Spec{ipsc(32, 300), ipsc(64, 200), crashConfigs[2].spec(1), crashConfigs[3].spec(2),
		{Algorithm: "opencube", Nodes: 32, Requests: 3000, Workload: "poisson", Seed: 1, CSTime: 1, Think: 32,
			Faults: faults.FaultPlan{Crashes: 100, Spacing: "exp", Every: 100, Down: 20, DownDist: "exp", Target: "random"}},
		{Algorithm: "naimi-trehel", Nodes: 2, Requests: 5000, Workload: "saturated", Seed: 1, CSTime: 1},
		{Algorithm: "opencube", Nodes: 64, Requests: 5000, Workload: "sequential", Seed: 1, CSTime: 1}}
	for _, s := range specs {
		plan, err := s.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		s = plan.Spec
		var b budget
		plan.budgetOf = func(s Spec, until float64) budget {
			b = budgetFor(s, until)
			return b
		}
		o := simulate(plan)
		if o.stuck != "" || o.err != nil || float64(o.stats.Steps) > float64(b.steps)/4 || o.now > b.virtual/4 {
			t.Errorf("%s N=%d %s: %d steps of %d, %gs of %gs; stuck %q, err %v", s.Algorithm, s.Nodes, s.Workload,
				o.stats.Steps, b.steps, o.now, b.virtual, o.stuck, o.err)
		}
	}
}

// TestBaselineViolation: a crash run whose crash-free baseline ends with a
// violation (here: its budget spent) fails: the record has the violation,
// prefixed "baseline: ", with the command that replays it, counts it, and
// gives no differential overhead.
func TestBaselineViolation(t *testing.T) {
	spec := Spec{Algorithm: "opencube", Nodes: 16, Requests: 100, Workload: "poisson", Seed: 5, CSTime: 1, Think: 64,
		Faults: faults.FaultPlan{Crashes: 10, Spacing: "exp", Every: 50, Down: 20, DownDist: "exp", Target: "random"}}
	good, err := Run(spec)
	if err != nil {
		t.Fatal(err)
	}
	if good.Violation != "" || good.OverheadDifferential.N != 1 || good.BaselineMessages == 0 {
		t.Fatalf("the run with its own budget: violation %q, differential over %d seeds", good.Violation, good.OverheadDifferential.N)
	}
	small := func(Spec, float64) budget { return budget{steps: 500, virtual: math.Inf(1)} }
	r, err := runWithin(spec, budgetFor, small)
	if err != nil {
		t.Fatal(err)
	}
	if r.LivenessViolations != 1 || r.SafetyViolations != 0 || !strings.HasPrefix(r.Violation, "baseline: the run reached ") || !strings.Contains(r.Violation, "the end of its budget (500 steps") ||
		!strings.Contains(r.Violation, "; replay: ocbench ") || !strings.Contains(r.Violation, "--seed 5") {
		t.Errorf("%d liveness, %d safety violations: %q", r.LivenessViolations, r.SafetyViolations, r.Violation)
	}
	if r.OverheadDifferential.N != 0 || r.BaselineMessages != 0 {
		t.Errorf("a differential over %d seeds, %d baseline messages, from a baseline cut short", r.OverheadDifferential.N, r.BaselineMessages)
	}
	if r.Failures != good.Failures || r.MessagesTotal != good.MessagesTotal {
		t.Errorf("the crash run changed with its baseline's budget: %d failures, %d messages; was %d, %d", r.Failures, r.MessagesTotal, good.Failures, good.MessagesTotal)
	}
}

// TestThinkOnlyForPoisson: the default think time N × cs-time is checked
// against its bounds only where a workload thinks: make scale (N = 2^20,
// sequential) must run, and so must a poisson run of that size, whose
// default think time is within MaxThink (TestDefaultThinkAtEveryN).
func TestThinkOnlyForPoisson(t *testing.T) {
	for _, c := range []struct {
		workload workload.Kind
		ok       bool
	}{{"sequential", true}, {"saturated", true}, {"poisson", true}} {
		_, err := Spec{Algorithm: "opencube", Nodes: 1 << 20, Requests: 10, Workload: c.workload, CSTime: 1}.Normalized()
		if (err == nil) != c.ok {
			t.Errorf("%s at N=2^20: error %v", c.workload, err)
		}
	}
}
