package results

import (
	"strings"
	"testing"
)

// TestMergePools: the summaries of merged seeds are pooled by count (mean)
// and by the largest quantiles, and the first seed whose fault plan broke
// the algorithm's fault model is named.
func TestMergePools(t *testing.T) {
	a := &Run{Seed: 1, Requests: Requests{SyncDelayDelta: Summary{Count: 2, Mean: 1, Median: 1, P99: 2, Max: 2}, WaitDelta: Summary{Count: 1, Mean: 4, Max: 4}}}
	b := &Run{Seed: 2, Requests: Requests{SyncDelayDelta: Summary{Count: 6, Mean: 3, Median: 3, P99: 5, Max: 6}},
		Crash: Crash{FaultModelBroken: "2 nodes down at once"}}
	m := Merge([]*Run{a, b})
	if s := m.SyncDelayDelta; s.Count != 8 || s.Mean != 2.5 || s.P99 != 5 || s.Max != 6 {
		t.Errorf("sync delay %+v, want count 8, mean 2.5, p99 5, max 6", s)
	}
	if w := m.WaitDelta; w.Count != 1 || w.Mean != 4 {
		t.Errorf("wait %+v, want the one sample of seed 1", w)
	}
	if !strings.HasPrefix(m.FaultModelBroken, "seed 2: 2 nodes down") {
		t.Errorf("fault_model_broken %q, want seed 2's", m.FaultModelBroken)
	}
}
