package results_test

import (
	"testing"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/sim"
)

// TestCountsRules checks the merge rule of every field of the counts
// types, as TestMergeRules does for Run: a counter without a rule, or whose
// rule does not add it up as it says, fails here (and the runtimes that
// add up their parts' counts panic).
func TestCountsRules(t *testing.T) {
	t.Run("sim.Stats", func(t *testing.T) {
		results.CheckCountsRules(t, func() *sim.Stats { return &sim.Stats{} },
			func(a, b *sim.Stats) *sim.Stats { results.AddCounts(a, b); return a }, nil)
	})
	t.Run("bench.Tally", func(t *testing.T) {
		bg := func() *bench.Tally {
			tl := bench.NewTally()
			tl.Crashed(1)
			return &tl
		}
		results.CheckCountsRules(t, bg, func(a, b *bench.Tally) *bench.Tally { a.Add(b); return a },
			map[string]func(*bench.Tally){"FirstEntry": func(tl *bench.Tally) { tl.FirstEntry = []float64{2.5} }})
	})
}

// TestSumCounts: SumCounts merges many values at once as AddCounts does
// two by two.
func TestSumCounts(t *testing.T) {
	a := &sim.Stats{Steps: 3, MaxDelay: 0.5, PerTag: []uint32{1, 2}}
	b := &sim.Stats{Steps: 4, MaxDelay: 0.25, PerTag: []uint32{0, 1, 5}, FirstBreach: "b", OverBudget: true}
	c := &sim.Stats{Steps: 5, FirstBreach: "c"}
	got := results.SumCounts([]*sim.Stats{a, b, c})
	var want sim.Stats
	for _, s := range []*sim.Stats{a, b, c} {
		results.AddCounts(&want, s)
	}
	if got.Steps != 12 || got.MaxDelay != 0.5 || got.FirstBreach != "b" || !got.OverBudget ||
		len(got.PerTag) != 3 || got.PerTag[1] != 3 || got.PerTag[2] != 5 {
		t.Errorf("SumCounts = %+v", got)
	}
	if got.Steps != want.Steps || got.MaxDelay != want.MaxDelay || got.FirstBreach != want.FirstBreach ||
		got.OverBudget != want.OverBudget || len(got.PerTag) != len(want.PerTag) {
		t.Errorf("SumCounts = %+v, AddCounts one by one = %+v", got, want)
	}
}
