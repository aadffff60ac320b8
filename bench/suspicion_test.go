package bench

import (
	"flag"
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/sim"
)

var suspicionSeeds = flag.Int("suspicion-seeds", 2, "seeds per configuration in TestNoFalseSuspicion")

// suspicionLoads are the loads of TestNoFalseSuspicion: saturated (every
// node asks again as soon as it leaves the critical section) and poisson
// think times from 1δ (saturated too) to 3200δ (idle), in δ.
var suspicionLoads = []float64{0, 1, 4, 32, 64, 160, 320, 3200}

// suspicionFloors are the delay floors of the seeds, in δ: every delay
// exactly δ first (where a timer and a delivery meet at the same instant),
// then uniform in [0, δ] and in [δ/2, δ].
var suspicionFloors = [3]float64{1, 0, 0.5}

// TestNoFalseSuspicion runs the failure protocol without any crash, at
// every load, N from 8 to 256, FIFO or not, with delay floors 0, δ/2 and δ
// (every delay exactly δ), every invariant checked after every step: no
// node may ever suspect a failure, start a search or regenerate a token.
// Seeds vary the channel kind and the delay floor; -suspicion-seeds runs
// more of them (make suspicion-seeds).
func TestNoFalseSuspicion(t *testing.T) {
	for _, n := range []int{8, 32, 64, 256} {
		for _, think := range suspicionLoads {
			workload, name := "poisson", fmt.Sprintf("think=%g", think)
			if think == 0 {
				workload, name = "saturated", "saturated"
			}
			t.Run(fmt.Sprintf("N=%d/%s", n, name), func(t *testing.T) {
				t.Parallel()
				requests := int64(5000)
				if n > 64 {
					requests = 1500
				}
				for k := 0; k < *suspicionSeeds; k++ {
					seed := uint64(k + 1)
					s := Spec{Algorithm: "opencube", Nodes: n, Requests: requests, Workload: workload, Seed: seed,
						CSTime: 1, Think: think, FT: true, FIFO: k%2 == 1, MinDelay: suspicionFloors[k%3], Check: sim.CheckFull}
					r, err := Run(s)
					if err != nil {
						t.Fatal(err)
					}
					if r.SafetyViolations+r.LivenessViolations > 0 || r.SearchesStarted > 0 || r.TokensRegenerated > 0 ||
						r.Suspicions > 0 || r.FalseSuspicions > 0 || r.RequestsServed != r.RequestsIssued {
						t.Fatalf("seed %d: %d searches, %d regenerations, %d suspicions (%d false: %s), %d/%d served; %s\nreplay: %s",
							seed, r.SearchesStarted, r.TokensRegenerated, r.Suspicions, r.FalseSuspicions, r.FirstFalseSuspicion,
							r.RequestsServed, r.RequestsIssued, r.Violation, Replay(s))
					}
				}
			})
		}
	}
}
