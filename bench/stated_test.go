package bench

import "testing"

// TestStatedCostRecord: the record carries the stated cost's formula,
// source and kind, and a k-exclusion algorithm's figure is the run's ℓ's
// (srimani-reddy's N+ℓ−1), not the registered default's.
func TestStatedCostRecord(t *testing.T) {
	for _, c := range []struct {
		algo         string
		ell          int
		high         float64
		source, kind string
	}{
		{"srimani-reddy", 4, 16 + 4 - 1, "survey T3", "range"},
		{"srimani-reddy", 2, 16 + 2 - 1, "survey T3", "range"},
		{"lamport", 0, 45, "survey T2", "exact"},
		{"naimi-trehel", 0, 0, "survey T1", "order"},
		{"centralized", 0, 3, "the proxy rule", "derived"},
	} {
		s := Spec{Algorithm: c.algo, Nodes: 16, Workload: "sequential", Requests: 20, Seed: 1, CSTime: DefaultCSTime, Ell: c.ell}
		r, err := Run(s)
		if err != nil {
			t.Fatalf("%s ℓ=%d: %v", c.algo, c.ell, err)
		}
		if r.StatedCostHigh != c.high || r.StatedCostSource != c.source || r.StatedCostKind != c.kind {
			t.Errorf("%s ℓ=%d: stated %q = …%g, source %q, kind %q; want …%g, %q, %q", c.algo, c.ell, r.StatedCost, r.StatedCostHigh,
				r.StatedCostSource, r.StatedCostKind, c.high, c.source, c.kind)
		}
	}
}
