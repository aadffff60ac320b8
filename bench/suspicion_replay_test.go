package bench

import (
	"testing"

	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/workload"
)

// TestSuspicionReplays replays the three crash runs that issue 27 (item 5)
// reported with one false suspicion each, with every invariant checked
// after every step: now none is false.
//
// In each, a crash set off a search that failed its last phase while the
// token was on its way to a requester (a loan at N = 8 seed 2, a gift in
// the other two): the search announced a new token generation, the token
// reached the requester after the announcement and was discarded as stale,
// and the requester, hearing nothing more of its request, suspected "the
// way" to its holder once its window W had passed (23δ at N = 8, 57δ at
// N = 32). The crash and the recovery both came before the requester
// asked, and the judge, which looked only for a node down, crashing or
// recovering during the silence, counted the suspicion as false. Its
// request was lost to the crash's handling: the judge now also gives the
// benefit of the doubt to a silence during which (or in the δ before
// which) a node received a message of the failure protocol (sim.Judge,
// docs/failures.md). opencube.TestSuspicionAfterRegeneration plays the
// same scenario in 4 nodes, step by step.
func TestSuspicionReplays(t *testing.T) {
	cases := []struct {
		name     string
		nodes    int
		think    float64
		seed     uint64
		minDelay float64
		fifo     bool
	}{
		{"N=8 think 4 min-delay 1 seed 2 (node 6 after 23δ)", 8, 4, 2, 1, false},
		{"N=8 think 4 min-delay 1 seed 3 (node 6 after 23δ)", 8, 4, 3, 1, false},
		{"N=32 think 32 fifo seed 3 (node 26 after 57δ)", 32, 32, 3, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := Spec{Algorithm: "opencube", Nodes: c.nodes, Requests: 10000, Workload: workload.Poisson, Seed: c.seed, CSTime: 1,
				Think: c.think, MinDelay: c.minDelay, FIFO: c.fifo, Check: CheckFull, NoBaseline: true,
				Faults: faults.FaultPlan{Crashes: 50, Spacing: "exp", Every: 200, Down: 20, DownDist: "exp", Target: "random"}}
			r, err := Run(s)
			if err != nil {
				t.Fatal(err)
			}
			if r.SafetyViolations+r.LivenessViolations > 0 {
				t.Fatalf("%s\nreplay: %s", r.Violation, Replay(s))
			}
			// The scenario needs a token discarded as stale; without one
			// the run no longer tests what it was kept for.
			if r.StaleTokensDiscarded == 0 || r.Suspicions == 0 {
				t.Fatalf("%d stale tokens discarded, %d suspicions: the run no longer plays the reported scenario\nreplay: %s",
					r.StaleTokensDiscarded, r.Suspicions, Replay(s))
			}
			if r.FalseSuspicions != 0 {
				t.Errorf("%d of %d suspicions judged false, want 0: %s\nreplay: %s", r.FalseSuspicions, r.Suspicions, r.FirstFalseSuspicion, Replay(s))
			}
		})
	}
}
