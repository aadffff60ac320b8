package bench

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/internal/field"
	"github.com/ocbench/ocbench/workload"
)

// TestKofl runs kofl on every workload that suits it, without transient
// faults and with both plans: every request is served, no violation, and
// the record says ℓ, K, the k distribution (k in 1..K, one per request),
// the messages per entry, and, with faults, a stabilization within the
// run.
func TestKofl(t *testing.T) {
	for _, tr := range faults.TransientModes {
		for _, wl := range []workload.Kind{"sequential", "poisson", "saturated"} {
			for _, n := range []int{2, 16} {
				spec := Spec{Algorithm: "kofl", Nodes: n, Requests: 40, Workload: wl, Seed: 3, CSTime: 1, Ell: 5, KMax: 3,
					Check: CheckFull, Transient: faults.TransientPlan{Mode: tr}}
				name := fmt.Sprintf("%s/%s/N=%d", tr, wl, n)
				r, err := Run(spec)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				var issued int64
				for k, c := range r.KDistribution {
					if k < "1" || k > "3" || len(k) != 1 {
						t.Errorf("%s: k = %s requested", name, k)
					}
					issued += c
				}
				switch {
				case r.Violation != "":
					t.Errorf("%s: %s", name, r.Violation)
				case r.RequestsServed != r.RequestsIssued || issued != r.RequestsIssued:
					t.Errorf("%s: served %d, issued %d, k distribution over %d", name, r.RequestsServed, r.RequestsIssued, issued)
				case r.Ell != 5 || r.KMax != 3 || !r.FIFO:
					t.Errorf("%s: ℓ = %d, K = %d, FIFO %v", name, r.Ell, r.KMax, r.FIFO)
				case tr == "none" && (r.Stabilization != nil || r.MsgsPerEntry <= 0):
					t.Errorf("%s: stabilization %+v, msgs/entry %g", name, r.Stabilization, r.MsgsPerEntry)
				case tr != "none" && (r.Stabilization == nil || r.Stabilization.Rounds.Count != 1 || r.Stabilization.Runs[0].Faults < 1):
					t.Errorf("%s: stabilization %+v", name, r.Stabilization)
				}
			}
		}
	}
}

// TestKoflReplay: the same spec gives the same stabilization, seed for
// seed, and another seed another arbitrary configuration; Replay names
// every flag of the transient plan.
func TestKoflReplay(t *testing.T) {
	for _, tr := range []faults.TransientMode{"initial", "during"} {
		spec := Spec{Algorithm: "kofl", Nodes: 8, Requests: 30, Workload: "poisson", Seed: 11, CSTime: 2, Ell: 4, KMax: 2,
			Transient: faults.TransientPlan{Mode: tr}}
		a, err := Run(spec)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Run(spec)
		spec.Seed++
		c, _ := Run(spec)
		ra, rb, rc := a.Stabilization.Runs[0], b.Stabilization.Runs[0], c.Stabilization.Runs[0]
		if ra != rb || a.MessagesTotal != b.MessagesTotal {
			t.Errorf("%s: seed 11 gave %+v and %+v", tr, ra, rb)
		}
		if ra.Delta == rc.Delta && a.MessagesTotal == c.MessagesTotal {
			t.Errorf("%s: seeds 11 and 12 gave the same run", tr)
		}
		cmd := Replay(spec)
		for _, want := range []string{"--algo kofl", "--ell 4", "--k-max 2", "--transient " + string(tr), "--fifo"} {
			if !strings.Contains(cmd, want) {
				t.Errorf("replay %q lacks %q", cmd, want)
			}
		}
	}
}

// TestKoflInputs: the k-exclusion and transient flags are refused where
// they do not apply, with the flag named.
func TestKoflInputs(t *testing.T) {
	good := Spec{Algorithm: "kofl", Nodes: 8, Requests: 1, Workload: "poisson", Delta: 1}
	cases := []struct {
		name string
		edit func(*Spec)
		flag string
	}{
		{"ell on opencube", func(s *Spec) { s.Algorithm, s.Ell = "opencube", 3 }, "Ell"},
		{"k-max on opencube", func(s *Spec) { s.Algorithm, s.KMax = "opencube", 3 }, "KMax"},
		{"transient on opencube", func(s *Spec) { s.Algorithm, s.Transient.Mode = "opencube", "initial" }, "Transient.Mode"},
		{"k over ℓ", func(s *Spec) { s.Ell, s.KMax = 2, 3 }, "KMax"},
		{"negative ℓ", func(s *Spec) { s.Ell = -1 }, "Ell"},
		{"unknown plan", func(s *Spec) { s.Transient.Mode = "sometimes" }, "Transient.Mode"},
		{"link cap", func(s *Spec) { s.Transient = faults.TransientPlan{Mode: "initial", LinkCap: faults.MaxLinkCap + 1} }, "Transient.LinkCap"},
		{"corruptions", func(s *Spec) { s.Transient = faults.TransientPlan{Mode: "during", Events: -2} }, "Transient.Events"},
		{"corrupt every", func(s *Spec) { s.Transient = faults.TransientPlan{Mode: "during", Every: -1} }, "Transient.Every"},
		{"each", func(s *Spec) { s.Workload = "each" }, "Workload"},
		{"crashes", func(s *Spec) {
			s.Faults = faults.FaultPlan{Crashes: 1, Spacing: "exp", Every: 1, Down: 1, DownDist: "exp", Target: "random"}
		}, "Faults.Crashes"},
	}
	if err := good.Validate(); err != nil {
		t.Fatalf("good spec rejected: %v", err)
	}
	for _, c := range cases {
		s := good
		c.edit(&s)
		err := s.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), c.flag) {
			t.Errorf("%s: got %v, want an error naming %s", c.name, err, c.flag)
		}
	}
}

// TestKoflCorruptions: over a few seeds the during plan strikes with every
// kind of event — nodes scrambled (their invented critical sections
// ended), messages injected (junk, duplicates) and destroyed — and every
// run stabilizes after its last event with every request served.
func TestKoflCorruptions(t *testing.T) {
	var invented, injected, destroyed int64
	for seed := uint64(1); seed <= 12; seed++ {
		spec := Spec{Algorithm: "kofl", Nodes: 8, Requests: 40, Workload: "saturated", Seed: seed, CSTime: 1, Ell: 3, KMax: 2,
			Check: CheckFull, Transient: faults.TransientPlan{Mode: "during", Events: 8, Every: 10}}
		r, err := Run(spec)
		if err != nil {
			t.Fatal(err)
		}
		st := r.Stabilization
		if r.Violation != "" || st == nil || st.NotStabilized != 0 || st.Runs[0].Faults != 8 || r.RequestsServed != r.RequestsIssued {
			t.Fatalf("seed %d: %s; stabilization %+v; served %d of %d", seed, r.Violation, st, r.RequestsServed, r.RequestsIssued)
		}
		invented += st.InventedCS
		injected += st.Injected
		destroyed += st.Destroyed
	}
	if invented == 0 || injected == 0 || destroyed == 0 {
		t.Errorf("over 12 seeds: %d invented critical sections, %d messages injected, %d destroyed; want each > 0", invented, injected, destroyed)
	}
}

// TestKoflAdversarial: every adversarial configuration at N = 4, 8 and 16
// starts illegitimate (the measure can count something) and stabilizes
// with every request served and no violation; its record names it, and
// its replay command names the configuration and the time-out.
func TestKoflAdversarial(t *testing.T) {
	for _, name := range algo.Adversaries("kofl") {
		for _, n := range []int{4, 8, 16} {
			for _, timeout := range []float64{0, 1.5} {
				spec := Spec{Algorithm: "kofl", Nodes: n, Requests: 30, Workload: "poisson", Seed: 7, CSTime: 1, Ell: 3, KMax: 2,
					Check: CheckFull, Timeout: timeout, Transient: faults.TransientPlan{Mode: "adversarial", Adversary: name}}
				label := fmt.Sprintf("%s/N=%d/timeout=%g", name, n, timeout)
				r, err := Run(spec)
				if err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				st := r.Stabilization
				switch {
				case r.Violation != "":
					t.Errorf("%s: %s", label, r.Violation)
				case r.RequestsServed != r.RequestsIssued:
					t.Errorf("%s: served %d of %d", label, r.RequestsServed, r.RequestsIssued)
				case st == nil || len(st.Runs) != 1 || !st.Runs[0].Stabilized:
					t.Errorf("%s: stabilization %+v", label, st)
				case st.Runs[0].AsyncRounds < 1 || st.Runs[0].Delta <= 0:
					t.Errorf("%s: stabilized at once (%g rounds, %gδ): the configuration was legitimate", label, st.Runs[0].AsyncRounds, st.Runs[0].Delta)
				case !strings.Contains(r.Transient, name) || st.AsyncBound != 5*float64(n):
					t.Errorf("%s: transient %q, async bound %g", label, r.Transient, st.AsyncBound)
				}
				replay := Replay(spec)
				if !strings.Contains(replay, "--adversary "+name) || (timeout != 0) != strings.Contains(replay, "--timeout") {
					t.Errorf("%s: replay %q", label, replay)
				}
			}
		}
	}
}

// TestKoflTimeout: Root's time-out moves the stabilization time after an
// arbitrary configuration (the wait for the first START), and values out
// of range or for algorithms without one are refused naming the field.
func TestKoflTimeout(t *testing.T) {
	delta := map[float64]float64{}
	for _, timeout := range []float64{1, 4, 16} {
		spec := Spec{Algorithm: "kofl", Nodes: 8, Requests: 20, Workload: "sequential", Seed: 2, CSTime: 1, Ell: 3, KMax: 2,
			Timeout: timeout, Transient: faults.TransientPlan{Mode: "initial"}}
		r, err := Run(spec)
		if err != nil {
			t.Fatal(err)
		}
		if r.Violation != "" || r.Timeout != timeout || r.Stabilization == nil {
			t.Fatalf("timeout %g: violation %q, recorded %g", timeout, r.Violation, r.Timeout)
		}
		delta[timeout] = r.Stabilization.Delta.Mean
	}
	if !(delta[1] < delta[4] && delta[4] < delta[16]) {
		t.Errorf("stabilization times %v do not grow with the time-out", delta)
	}
	for _, c := range []struct {
		algo    string
		timeout float64
	}{{"kofl", 0.5}, {"kofl", -1}, {"kofl", 1e5}, {"opencube", 4}} {
		s := Spec{Algorithm: c.algo, Nodes: 8, Requests: 1, Workload: "sequential", Seed: 1, Timeout: c.timeout}
		err := s.Validate()
		var fe *field.Error
		if !errors.As(err, &fe) || fe.Field != "Timeout" {
			t.Errorf("%s timeout %g: %v", c.algo, c.timeout, err)
		}
	}
}
