package explore

import (
	"slices"
	"testing"
)

// TestAnyTimerCoversTimed: a search without time in which timers fire at
// any point after they are set (AnyTimer) reaches every state the search
// in discrete time reaches, once the times are taken off (the messages'
// windows, the timers' ticks, the ticks spent in the critical section):
// so a clean result without time holds for the timed system. raynal, the
// registered algorithm without a failure protocol that sets timers, at
// N = 2, 3 and 4, with δ = 2 and 3 ticks.
func TestAnyTimerCoversTimed(t *testing.T) {
	for _, c := range []struct{ nodes, requests, requesters, ticks int }{
		{2, 1, 0, 2}, {2, 2, 0, 2}, {3, 1, 0, 2}, {4, 1, 2, 2}, {3, 1, 0, 3},
	} {
		cfg := Config{Algorithm: benchAlgorithm(t, "raynal", c.nodes), Nodes: c.nodes, Requests: c.requests, Requesters: c.requesters,
			Ticks: c.ticks, MinTicks: (c.ticks + 1) / 2, CSTicks: c.ticks, MaxStates: 10_000_000}
		e, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		timed := reachableSet(t, e)
		// The same explorer without time, so that the encodings compare
		// (its tables are shared); the step caches hold timed outcomes.
		e.cfg.Ticks, e.cfg.MinTicks, e.cfg.CSTicks, e.cfg.AnyTimer = 0, 0, 0, true
		e.steps, e.fast = map[uint64]*stepResult{}, new([1 << fastBits]fastStep)
		untimed := reachableSet(t, e)
		var s sys
		missing := 0
		for enc := range timed {
			if !e.readState([]byte(enc), &s) {
				t.Fatal(errCorrupt)
			}
			for k := range s.msgs {
				s.msgs[k].lo, s.msgs[k].hi = 0, 0
			}
			for k := range s.timers {
				s.timers[k].at = 0
			}
			for k := range s.ext {
				s.ext[k].cs = 0
			}
			sortFlights(s.msgs, cfg.FIFO)
			slices.SortStableFunc(s.timers, cmpTimer)
			if _, ok := untimed[string(appendState(nil, &s))]; !ok {
				missing++
			}
		}
		if missing > 0 || len(timed) < 10 {
			t.Errorf("raynal N=%d, %d request(s), %d requesters, δ = %d ticks: %d of %d timed states not reached without time (%d states)",
				c.nodes, c.requests, c.requesters, c.ticks, missing, len(timed), len(untimed))
		} else {
			t.Logf("raynal N=%d, %d request(s), %d requesters, δ = %d ticks: %d timed states, all reached without time (%d states)",
				c.nodes, c.requests, c.requesters, c.ticks, len(timed), len(untimed))
		}
		for verdict := range verdicts(untimed) {
			if verdict != "" {
				t.Errorf("raynal N=%d without time: %s", c.nodes, verdict)
			}
		}
	}
}

// verdicts returns the distinct values of m.
func verdicts(m map[string]string) map[string]bool {
	out := map[string]bool{}
	for _, v := range m {
		out[v] = true
	}
	return out
}
