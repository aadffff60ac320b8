package rank

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/workload"
)

// TestKofl: kofl runs on goroutine ranks — Start at time 0, an arbitrary
// initial configuration (the same on every rank), the CToken that never
// stops, requests of k units — with every request served, ℓ, K and the k
// distribution in the record, and, without transient faults, no more than
// ℓ units in use by the critical-section stays.
func TestKofl(t *testing.T) {
	for _, c := range []struct {
		nodes, p  int
		workload  workload.Kind
		transient faults.TransientMode
	}{
		{16, 4, "poisson", "none"},
		{16, 4, "saturated", "initial"},
		{8, 2, "sequential", "none"},
		{16, 8, "sequential", "initial"},
	} {
		t.Run(fmt.Sprintf("N%d/P%d/%s/%s", c.nodes, c.p, c.workload, c.transient), func(t *testing.T) {
			spec := bench.Spec{Algorithm: "kofl", Nodes: c.nodes, Requests: 64, Workload: c.workload, Seed: 5,
				Delta: 2e-3, CSTime: 1, Ell: 4, KMax: 2, Transient: faults.TransientPlan{Mode: c.transient}}
			got := runLocal(t, c.p, spec, Options{Placement: "block"})
			var byK int64
			for _, n := range got.KDistribution {
				byK += n
			}
			switch {
			case got.SafetyViolations+got.LivenessViolations != 0:
				t.Errorf("violations: %s", got.Violation)
			case got.RequestsServed != got.RequestsIssued || got.RequestsIssued < 64 || byK != got.RequestsIssued:
				t.Errorf("served %d of %d, k distribution over %d", got.RequestsServed, got.RequestsIssued, byK)
			case got.Ell != 4 || got.KMax != 2 || got.MessagesByType["ctoken"] == 0:
				t.Errorf("ℓ %d, K %d, messages %v", got.Ell, got.KMax, got.MessagesByType)
			case (c.transient == "initial") != strings.HasPrefix(got.Transient, "arbitrary"):
				t.Errorf("transient %q", got.Transient)
			}
		})
	}
}

// TestCheckUnits: the units in use from critical-section stays, exits
// before entries at the same instant.
func TestCheckUnits(t *testing.T) {
	stays := []workload.Stay{{Node: 1, Enter: 0, Out: 2, Units: 2}, {Node: 2, Enter: 1, Out: 3, Units: 1}, {Node: 3, Enter: 2, Out: 4, Units: 2}}
	if over, why := checkUnits(stays, 3); over != 0 {
		t.Errorf("ℓ = 3: %d over: %s", over, why)
	}
	if over, why := checkUnits(stays, 2); over != 2 || !strings.Contains(why, "node 2 entered the critical section at t=1.000000s: 3 units in use, ℓ = 2") {
		t.Errorf("ℓ = 2: %d over: %q", over, why)
	}
	// A stay that ends as it begins uses its units at its entry.
	stays = []workload.Stay{{Node: 1, Enter: 0, Out: 2, Units: 2}, {Node: 2, Enter: 1, Out: 1, Units: 1}, {Node: 3, Enter: 2, Out: 3, Units: 2}}
	if over, why := checkUnits(stays, 2); over != 1 || !strings.Contains(why, "node 2 entered the critical section at t=1.000000s: 3 units in use, ℓ = 2") {
		t.Errorf("ℓ = 2, a stay of no length: %d over: %q", over, why)
	}
}

// TestCheckRejectsCorruptions: corruption events during a run need the
// simulator's view of the links.
func TestCheckRejectsCorruptions(t *testing.T) {
	spec := bench.Spec{Algorithm: "kofl", Nodes: 8, Requests: 10, Workload: "poisson", Seed: 1, CSTime: 1,
		Transient: faults.TransientPlan{Mode: "during"}}
	if _, _, err := Check(spec, "block", 2); err == nil || !strings.HasPrefix(err.Error(), "Transient.Mode: under MPI only initial") {
		t.Errorf("got %v", err)
	}
}
