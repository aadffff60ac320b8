package results_test

import (
	"testing"

	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/results/mergetest"
	"github.com/ocbench/ocbench/sim"
)

// TestCountsRules checks the merge rule of every field of the counts
// types, as TestMergeRules does for Run: a counter without a rule, or whose
// rule does not add it up as it says, fails here (and the runtimes that
// add up their parts' counts panic).
func TestCountsRules(t *testing.T) {
	t.Run("sim.Counts", func(t *testing.T) {
		bg := func() *sim.Counts {
			var c sim.Counts
			c.Crashed(1)
			return &c
		}
		mergetest.CheckRules(t, bg, func(a, b *sim.Counts) *sim.Counts { a.Add(b); return a },
			map[string]mergetest.Custom[sim.Counts]{"FirstEntry": {Set: func(c *sim.Counts) { c.FirstEntry = []float64{2.5} }}})
	})
	t.Run("sim.Stats", func(t *testing.T) {
		bg := func() *sim.Stats {
			var st sim.Stats
			st.Crashed(1)
			return &st
		}
		mergetest.CheckRules(t, bg, func(a, b *sim.Stats) *sim.Stats { a.Add(b); return a },
			map[string]mergetest.Custom[sim.Stats]{"FirstEntry": {Set: func(st *sim.Stats) { st.FirstEntry = []float64{2.5} }}})
	})
}

// TestSumCounts: SumCounts merges many values at once as AddCounts does
// two by two.
func TestSumCounts(t *testing.T) {
	a := &sim.Stats{Counts: sim.Counts{Steps: 3, MaxDelay: 0.5}, PerTag: []uint32{1, 2}}
	b := &sim.Stats{Counts: sim.Counts{Steps: 4, MaxDelay: 0.25}, PerTag: []uint32{0, 1, 5}, FirstBreach: "b", OverBudget: true}
	c := &sim.Stats{Counts: sim.Counts{Steps: 5}, FirstBreach: "c"}
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
