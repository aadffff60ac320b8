package bench

import (
	"testing"

	"github.com/ocbench/ocbench/sim"
)

func TestZZProf(t *testing.T) {
	spec := Spec{Algorithm: "kofl", Nodes: 16, Requests: 3000, Workload: "sequential", Seed: 3, CSTime: 1, Ell: 5, KMax: 3,
		Check: sim.CheckFull, Transient: TransientPlan{Mode: "initial"}}
	r, err := Run(spec)
	if err != nil || r.Violation != "" {
		t.Fatal(err, r.Violation)
	}
}
