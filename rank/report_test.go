package rank

import (
	"testing"

	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/results/mergetest"
)

// TestReportRules checks the merge rule of every field of rankReport as
// rank 0 adds up the ranks' reports (addReports): each counter adds up as
// its tag says, the counts (sim.Counts, whose own rules TestCountsRules
// checks) and the messages per request are not dropped, and what is per
// rank is declared so and left to assemble.
func TestReportRules(t *testing.T) {
	plan := []faults.Fault{{At: 1}}
	bg := func() *rankReport { return &rankReport{Counts: faults.PlannedCounts(plan)} }
	merge := func(a, b *rankReport) *rankReport { return addReports(plan, []*rankReport{a, b}) }
	mergetest.CheckRules(t, bg, merge, map[string]mergetest.Custom[rankReport]{
		"Rank":     {Kept: true},
		"Host":     {Kept: true},
		"MinDelay": {Kept: true},
		"CPU":      {Kept: true},
	})
}
