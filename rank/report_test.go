package rank

import (
	"testing"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/results/mergetest"
)

// TestReportRules checks the merge rule of every field of rankReport as
// rank 0 adds up the ranks' reports (addReports): each counter adds up as
// its tag says, the counts (sim.Counts, whose own rules TestCountsRules
// checks) and the messages per request are not dropped, and what is per
// rank is declared so and left to assemble.
func TestReportRules(t *testing.T) {
	spec := bench.Spec{Algorithm: "opencube", Nodes: 8, Requests: 10, Workload: "poisson", Seed: 1, FT: true,
		Faults: faults.FaultPlan{Crashes: 1, Every: 10, Spacing: "fixed", Down: 5, DownDist: "fixed", Target: "random"}}
	plan, err := spec.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	ctl := bench.NewController(plan, bench.ControlOptions{WallClock: true})
	if ctl.Crashes() != 1 {
		t.Fatalf("the plan has %d crashes, want 1", ctl.Crashes())
	}
	bg := func() *rankReport { return &rankReport{Counts: ctl.Counts()} }
	merge := func(a, b *rankReport) *rankReport { return addReports(ctl, []*rankReport{a, b}) }
	mergetest.CheckRules(t, bg, merge, map[string]mergetest.Custom[rankReport]{
		"Rank":     {Kept: true},
		"Host":     {Kept: true},
		"MinDelay": {Kept: true},
		"CPU":      {Kept: true},
	})
}
