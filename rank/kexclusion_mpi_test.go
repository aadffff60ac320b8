//go:build mpi

package rank

import (
	"testing"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/mpi"
)

// TestMPIKofl: kofl on real MPI ranks, from an arbitrary initial
// configuration: every request served, no violation. Its messages follow
// real time (the CToken never stops), so there is no parity with the
// simulator to check.
func TestMPIKofl(t *testing.T) {
	p := mpi.WorldSize()
	spec := bench.Spec{Algorithm: "kofl", Nodes: max(4, 2*p), Requests: 100, Workload: "poisson", Seed: 3, Delta: 2e-3, CSTime: 1,
		Ell: 3, KMax: 2, Transient: faults.TransientPlan{Mode: "initial"}}
	got, err := Run(MPI{}, spec, Options{Placement: "block"})
	if err != nil {
		t.Fatalf("rank %d: %v", mpi.WorldRank(), err)
	}
	if mpi.WorldRank() != 0 {
		return
	}
	if got.SafetyViolations+got.LivenessViolations != 0 || got.RequestsServed != got.RequestsIssued || got.Ell != 3 {
		t.Errorf("served %d of %d, ℓ %d: %s", got.RequestsServed, got.RequestsIssued, got.Ell, got.Violation)
	}
}
