package bench

import (
	"testing"

	"github.com/ocbench/ocbench/sim"
)

func TestKoflQuick(t *testing.T) {
	for _, tr := range []string{"none", "initial", "during"} {
		for _, wl := range []string{"poisson", "saturated", "sequential"} {
			spec := Spec{Algorithm: "kofl", Nodes: 16, Requests: 64, Workload: wl, Seed: 3, CSTime: 1, Ell: 5, KMax: 3,
				Check: sim.CheckFull, Transient: TransientPlan{Mode: tr}}
			r, err := Run(spec)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s: served %d/%d viol %q msgs/entry %.2f k %v stab %+v", tr, wl, r.RequestsServed, r.RequestsIssued, r.Violation, r.MsgsPerEntry, r.KDistribution, r.Stabilization)
		}
	}
}
