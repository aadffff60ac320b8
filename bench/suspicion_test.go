package bench

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/workload"
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
			workload, name := workload.Poisson, fmt.Sprintf("think=%g", think)
			if think == 0 {
				workload, name = "saturated", "saturated"
			}
			t.Run(fmt.Sprintf("N=%d/%s", n, name), func(t *testing.T) {
				t.Parallel()
				requests := int64(5000)
				if n > 64 {
					requests = 1500
				}
				if testing.Short() && !flagGiven("suspicion-seeds") {
					requests /= 5
				}
				for k := 0; k < *suspicionSeeds; k++ {
					seed := uint64(k + 1)
					s := Spec{Algorithm: "opencube", Nodes: n, Requests: requests, Workload: workload, Seed: seed,
						CSTime: 1, Think: think, FT: true, FIFO: k%2 == 1, MinDelay: suspicionFloors[k%3], Check: CheckFull}
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

// TestPaperProtocol: §5 as written (--protocol paper) suspects on a clock,
// so under load it suspects live nodes and, without confirmation, makes a
// second token (the run README quotes); the project's protocol runs the
// same seed clean, with no suspicion at all.
func TestPaperProtocol(t *testing.T) {
	s := Spec{Algorithm: "opencube", Nodes: 32, Requests: 5000, Workload: "poisson", Seed: 1, CSTime: 1, Think: 32, FT: true, Check: CheckCounts}
	for _, c := range []struct {
		protocol Protocol
		broken   bool
	}{{ProtocolPaper, true}, {ProtocolOCBench, false}} {
		s.Protocol = c.protocol
		r, err := Run(s)
		if err != nil {
			t.Fatal(err)
		}
		if r.Protocol != string(c.protocol) {
			t.Errorf("record names protocol %q, want %q", r.Protocol, c.protocol)
		}
		switch {
		case c.broken && (r.SafetyViolations == 0 || r.FalseSuspicions == 0 || !strings.Contains(r.Violation, "2 tokens exist")):
			t.Errorf("%s: %d safety violations, %d false suspicions (%q): want a second token after false suspicions", c.protocol, r.SafetyViolations, r.FalseSuspicions, r.Violation)
		case !c.broken && (r.SafetyViolations+r.LivenessViolations > 0 || r.Suspicions > 0):
			t.Errorf("%s: %d suspicions, violation %q", c.protocol, r.Suspicions, r.Violation)
		}
	}
}
