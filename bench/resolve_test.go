package bench

import (
	"errors"
	"testing"

	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/internal/field"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/workload"
)

// TestResolve checks that Resolve configures the algorithm a spec names
// once (units, failure protocol) and names the bad field of a spec it
// refuses.
func TestResolve(t *testing.T) {
	for _, c := range []struct {
		name  string
		spec  Spec
		field string // the field.Error's field; "" if the spec resolves
		check func(t *testing.T, p *Plan)
	}{
		{name: "kofl units", spec: Spec{Algorithm: "kofl", Nodes: 8, Requests: 10, Workload: workload.Sequential, Ell: 5, KMax: 3},
			check: func(t *testing.T, p *Plan) {
				if p.KExclusion == nil || p.SelfStabilizing == nil {
					t.Fatalf("kofl's plan has no k-exclusion or self-stabilizing view: %+v", p)
				}
				if ell, k := p.KExclusion.Units(); ell != 5 || k != 3 {
					t.Errorf("Units() = %d, %d, want 5, 3", ell, k)
				}
			}},
		{name: "opencube with crashes", spec: Spec{Algorithm: "opencube", Nodes: 8, Requests: 10, Workload: workload.Sequential, CSTime: 1,
			Faults: faults.FaultPlan{Crashes: 1, Spacing: "fixed", Every: 50, Down: 20, DownDist: "fixed", Target: "random"}},
			check: func(t *testing.T, p *Plan) {
				if !p.Spec.FT {
					t.Error("a spec with crashes resolves without FT")
				}
				if p.Algorithm == p.Registered {
					t.Error("the plan's algorithm is the registered one, not its failure protocol")
				}
				if _, ok := p.Registered.(proto.FaultTolerantAlgorithm); !ok {
					t.Error("the registered open-cube is not fault-tolerant")
				}
			}},
		{name: "unknown algorithm", spec: Spec{Algorithm: "nope", Nodes: 8, Requests: 10, Workload: workload.Sequential}, field: "Algorithm"},
		{name: "K above ℓ", spec: Spec{Algorithm: "kofl", Nodes: 8, Requests: 10, Workload: workload.Sequential, Ell: 2, KMax: 3}, field: "KMax"},
		{name: "time-out below kofl's", spec: Spec{Algorithm: "kofl", Nodes: 8, Requests: 10, Workload: workload.Sequential, Timeout: 0.5}, field: "Timeout"},
		{name: "time-out of an algorithm without one", spec: Spec{Algorithm: "opencube", Nodes: 8, Requests: 10, Workload: workload.Sequential, Timeout: 2}, field: "Timeout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := c.spec.Resolve()
			if c.field != "" {
				var fe *field.Error
				if !errors.As(err, &fe) || fe.Field != c.field {
					t.Fatalf("Resolve() = %v, %v; want a *field.Error of %s", p, err, c.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Spec.Delta != DefaultDelta {
				t.Errorf("the plan's spec is not filled: δ = %g", p.Spec.Delta)
			}
			c.check(t, p)
		})
	}
}

// TestDefaultThinkAtEveryN: the poisson workload's default think time (N ×
// cs-time) is accepted at every N, above field.MaxTime too (N = 2^20 at a CS
// time of 1δ was refused), while a think time beyond both bounds is not.
func TestDefaultThinkAtEveryN(t *testing.T) {
	for _, c := range []struct {
		nodes int
		think float64
		ok    bool
	}{
		{1 << 10, 0, true},
		{1 << 20, 0, true},
		{1 << 24, 0, true},
		{1 << 20, 1 << 20, true},
		{1 << 20, 1<<20 + 1, false},
		{32, 2e6, false},
	} {
		s := Spec{Algorithm: "opencube", Nodes: c.nodes, Requests: 1, Workload: "poisson", CSTime: 1, Think: c.think}
		_, err := s.Resolve()
		if (err == nil) != c.ok {
			t.Errorf("N = %d, think %g: %v, want accepted %v", c.nodes, c.think, err, c.ok)
		}
	}
}
