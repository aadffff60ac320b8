package rank

import (
	"errors"
	"testing"
	"time"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/results"
)

// TestSummarizeDelays: the quantiles are order statistics (the smallest
// value with at least that share of the sample at or below it), and δ is
// the rule applied to the 99.9th percentile.
func TestSummarizeDelays(t *testing.T) {
	ramp := make([]float64, 2000) // 1 µs … 2000 µs, shuffled
	for k := range ramp {
		ramp[k] = float64((k*7)%2000+1) * 1e-6
	}
	for _, c := range []struct {
		name                    string
		in                      []float64
		median, p99, p999, maxD float64
		delta                   float64
	}{
		{"none", nil, 0, 0, 0, 0, DeltaFloor},
		{"one", []float64{50e-6}, 50e-6, 50e-6, 50e-6, 50e-6, 150e-6},
		{"ramp", ramp, 1000e-6, 1980e-6, 1998e-6, 2000e-6, 3 * 1998e-6},
		{"tiny", []float64{1e-6, 2e-6, 3e-6}, 2e-6, 3e-6, 3e-6, 3e-6, DeltaFloor},
		{"huge", []float64{5}, 5, 5, 5, 5, DeltaCeil},
	} {
		d := SummarizeDelays(c.in)
		near := func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }
		if d.Count != len(c.in) || !near(d.Median, c.median) || !near(d.P99, c.p99) || !near(d.P999, c.p999) || !near(d.Max, c.maxD) || !near(d.Delta, c.delta) {
			t.Errorf("%s: got %+v; want median %g p99 %g p99.9 %g max %g δ %g", c.name, d, c.median, c.p99, c.p999, c.maxD, c.delta)
		}
	}
}

// TestMeasureDelays: ranks of one process measure delays; every rank
// learns the same distribution and δ, from every frame sent.
func TestMeasureDelays(t *testing.T) {
	const p = 4
	sh := DefaultDelayShape(p, 2)
	sh.Duration = 200 * time.Millisecond
	got := make([]Delays, p)
	onLocalRanks(t, p, func(r int, c Comm) (err error) {
		got[r], err = MeasureDelays(c, sh)
		return err
	})
	for r := range got {
		if got[r] != got[0] {
			t.Errorf("rank %d learnt %+v, rank 0 %+v", r, got[r], got[0])
		}
	}
	d := got[0]
	if d.Count < minSamples/2 || d.Median <= 0 || d.Median > d.P99 || d.P99 > d.P999 || d.P999 > d.Max {
		t.Errorf("implausible distribution %+v", d)
	}
	if want := ChooseDelta(d.P999); d.Delta != want || d.Rule != DeltaRule {
		t.Errorf("δ %g by %q; want %g by %q", d.Delta, d.Rule, want, DeltaRule)
	}
	one, err := MeasureDelays(Local(1)[0], sh) // one rank: how late its own bursts start
	if err != nil || one.Count == 0 || one.Delta != ChooseDelta(one.P999) {
		t.Errorf("one rank: %+v, %v", one, err)
	}
	if _, err := MeasureDelays(Local(1)[0], DelayShape{}); err == nil {
		t.Error("a shape of zeros: no error")
	}
}

// TestRunSeeds: seeds run at once on goroutine ranks, each with its
// baseline; the records come back in order, each with its seed's crashes,
// and only the first carries the job's CPU time (merging sums it once).
// Specs of different N cannot share a job.
func TestRunSeeds(t *testing.T) {
	var specs []bench.Spec
	for seed := uint64(1); seed <= 3; seed++ {
		specs = append(specs, bench.Spec{Algorithm: "opencube", Nodes: 16, Requests: 1, Workload: "poisson", Seed: seed,
			Delta: 4e-3, CSTime: 1, Think: 80,
			Faults: faults.FaultPlan{Crashes: 4 + int(seed), Spacing: "exp", Every: 40, Down: 10, DownDist: "exp", Target: "random"}})
	}
	const p = 4
	recs := runSeedsLocal(t, p, specs)
	if len(recs) != len(specs) {
		t.Fatalf("%d records for %d seeds", len(recs), len(specs))
	}
	for k, r := range recs {
		s := specs[k]
		if r.Seed != s.Seed || r.Failures != s.Faults.Crashes || r.SafetyViolations != 0 || r.BaselineMessages == 0 || r.MalformedFrames != 0 {
			t.Errorf("record %d: seed %d, failures %d (want %d), baseline %d messages, malformed %d, violation %q",
				k, r.Seed, r.Failures, s.Faults.Crashes, r.BaselineMessages, r.MalformedFrames, r.Violation)
		}
		if cpu := len(r.CPUSecondsPerRank); (k == 0) != (cpu == p) || (k == 0) != (r.WallSeconds > 0) {
			t.Errorf("record %d: CPU of %d ranks, wall %v", k, cpu, r.WallSeconds)
		}
	}
	if m := results.Merge(recs); m.Failures != 5+6+7 || len(m.CPUSecondsPerRank) != p || len(m.Seeds) != 3 {
		t.Errorf("merged: %d failures, CPU of %d ranks, seeds %v", m.Failures, len(m.CPUSecondsPerRank), m.Seeds)
	}
	mixed := []bench.Spec{specs[0], specs[1]}
	mixed[1].Delta *= 2
	var ve *ValidationError
	if _, err := RunSeeds(Local(1)[0], mixed, Options{}); !errors.As(err, &ve) {
		t.Errorf("runs of two δ at once (one clock): %v", err)
	}
}
