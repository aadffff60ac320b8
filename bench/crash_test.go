package bench

import (
	"flag"
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/faults"
)

var crashSeeds = flag.Int("crash-seeds", 2000, "seeds in TestCrashSweep")

// crashConfig is one configuration of the crash sweep.
type crashConfig struct {
	nodes   int
	think   float64
	crashes int
	every   float64
	down    float64
	perm    float64
	target  faults.Target
}

// crashConfigs are the configurations of TestCrashSweep and TestShapeSweep.
var crashConfigs = []crashConfig{
	{8, 16, 12, 30, 10, 0, "random"},
	{16, 64, 20, 50, 10, 0, "random"},
	{16, 32, 20, 20, 40, 0, "random"}, // overlapping failures
	{32, 128, 20, 60, 20, 0.2, "random"},
	{16, 64, 15, 50, 10, 0, "token"},
	{16, 64, 15, 50, 10, 0, "root"},
	{16, 64, 15, 50, 10, 0, "path"},
}

// delayFloors are the smallest delays of the sweep's runs, in δ, by seed:
// delays uniform in [0, δ], in [δ/2, δ], and every delay exactly δ (the
// bound is inclusive: equal delays must be as safe as any others).
var delayFloors = [3]float64{0, 0.5, 1}

// spec returns the run of the sweep for one seed.
func (c crashConfig) spec(seed uint64) Spec {
	return Spec{Algorithm: "opencube", Nodes: c.nodes, Requests: int64(10 * c.nodes), Workload: "poisson",
		Seed: seed, CSTime: 1, Think: c.think, FIFO: seed%4 == 0, MinDelay: delayFloors[seed%3], NoBaseline: true, Check: CheckFull,
		Faults: faults.FaultPlan{Crashes: c.crashes, Spacing: "exp", Every: c.every, Down: c.down, DownDist: "exp",
			Permanent: c.perm, Target: c.target}}
}

// TestCrashSweep runs the open-cube with random crashes and recoveries,
// overlapping failures, concurrent searches and anomalies, with message
// delays up to δ, over many seeds: after every step at most one node is in
// the critical section and at most one live token exists, at the end every
// request of a node that stayed up was served, and once every live node has
// requested once more (the repair pass, Spec.Repair) the father relation is
// an open-cube (of the live nodes, when some stay down).
func TestCrashSweep(t *testing.T) {
	configs := crashConfigs
	per := max(shortened("crash-seeds", *crashSeeds, 20*len(configs))/len(configs), 1)
	for _, c := range configs {
		t.Run(fmt.Sprintf("N=%d/crashes=%d/every=%g/down=%g/%s", c.nodes, c.crashes, c.every, c.down, c.target), func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= uint64(per); seed++ {
				spec := c.spec(seed)
				spec.Repair = true
				r, err := Run(spec)
				if err != nil {
					t.Fatal(err)
				}
				if r.SafetyViolations+r.LivenessViolations > 0 || !r.OpenCubeAtEnd {
					t.Fatalf("%s (open-cube at end: %v)\nreplay: ocbench --nodes %d --workload poisson --requests %d --think %g --cs-time 1 --crashes %d --crash-every %g --downtime %g --permanent %g --crash-target %s --fifo=%v --min-delay %g --repair --seed %d",
						r.Violation, r.OpenCubeAtEnd, c.nodes, spec.Requests, c.think, c.crashes, c.every, c.down, c.perm, c.target, spec.FIFO, spec.MinDelay, seed)
				}
				if r.Failures == 0 {
					t.Fatalf("seed %d: no crash was injected", seed)
				}
			}
		})
	}
}

// TestCrashReplays replays runs that once failed, each with every invariant
// checked after every step.
//
//   - Two tokens (seeds 1735, 2548, 4393 of the sweep): a token sent to a
//     node while it was down reached it just after it recovered, while a
//     regeneration it had not heard of was being confirmed; the node took
//     it and the regeneration made a second token. A recovered node now
//     discards tokens for 2δ (docs/failures.md).
//   - A false liveness violation at a very light load (think 3200δ at
//     N = 32): no request had been issued for more than the watchdog's
//     period, and the watchdog took the one just issued for a stalled one.
func TestCrashReplays(t *testing.T) {
	cases := []struct {
		name string
		spec Spec
	}{
		{"two tokens, N=8 seed 1735", Spec{Nodes: 8, Requests: 80, Think: 16, Seed: 1735,
			Faults: faults.FaultPlan{Crashes: 12, Every: 30, Down: 10, Target: "random"}}},
		{"two tokens, N=16 seed 2548", Spec{Nodes: 16, Requests: 160, Think: 32, Seed: 2548, FIFO: true,
			Faults: faults.FaultPlan{Crashes: 20, Every: 20, Down: 40, Target: "random"}}},
		{"two tokens, N=16 root seed 4393", Spec{Nodes: 16, Requests: 160, Think: 64, Seed: 4393,
			Faults: faults.FaultPlan{Crashes: 15, Every: 50, Down: 10, Target: "root"}}},
		{"light load, N=32 think 3200 seed 1", Spec{Nodes: 32, Requests: 1100, Think: 3200, Seed: 1,
			Faults: faults.FaultPlan{Crashes: 100, Every: 100, Down: 20, Target: "random"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.spec
			s.Algorithm, s.Workload, s.CSTime, s.NoBaseline = "opencube", "poisson", 1, true
			s.Faults.Spacing, s.Faults.DownDist = "exp", "exp"
			r, err := Run(s)
			if err != nil {
				t.Fatal(err)
			}
			if r.SafetyViolations+r.LivenessViolations > 0 {
				t.Fatal(r.Violation)
			}
			// Requests of a node that crashed while asking are abandoned;
			// every other request must be served.
			if r.Failures == 0 || r.RequestsIssued < s.Requests || r.RequestsServed+r.RequestsAbandoned != r.RequestsIssued {
				t.Fatalf("%d failures, %d issued (at least %d), %d served, %d abandoned by crashes", r.Failures, r.RequestsIssued, s.Requests, r.RequestsServed, r.RequestsAbandoned)
			}
		})
	}
}

// TestPowerTarget: --crash-target power samples every power of the cube
// about as often, and the record splits the overhead by victim power.
func TestPowerTarget(t *testing.T) {
	s := Spec{Algorithm: "opencube", Nodes: 16, Requests: 100, Workload: "poisson", Seed: 1, CSTime: 1, Think: 160, NoBaseline: true,
		Faults: faults.FaultPlan{Crashes: 50, Spacing: "exp", Every: 200, Down: 20, DownDist: "exp", Target: "power"}}
	r, err := Run(s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Violation != "" || len(r.VictimPowers) != r.Failures || len(r.OverheadByVictimPower) != 5 {
		t.Fatalf("violation %q, %d victim powers for %d failures, strata %+v", r.Violation, len(r.VictimPowers), r.Failures, r.OverheadByVictimPower)
	}
	for _, st := range r.OverheadByVictimPower {
		if st.Failures < 5 {
			t.Errorf("power %d: %d failures, want about %d", st.Power, st.Failures, r.Failures/5)
		}
	}
	if !(r.OverheadStratified > 0) {
		t.Errorf("stratified overhead %g", r.OverheadStratified)
	}
}
