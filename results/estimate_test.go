package results

import (
	"math"
	"testing"
)

func TestEstimated(t *testing.T) {
	cases := []struct {
		xs           []float64
		mean, sd, hw float64 // hw: half-width of the interval, -1 if absent
	}{
		{nil, 0, 0, -1},
		{[]float64{5}, 5, 0, -1},
		{[]float64{1, 3}, 2, math.Sqrt2, 12.706 * math.Sqrt2 / math.Sqrt2},
		{[]float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, 2.13809, 2.365 * 2.13809 / math.Sqrt(8)},
	}
	for _, c := range cases {
		e := Estimated(c.xs)
		if math.Abs(e.Mean-c.mean) > 1e-4 || math.Abs(e.Stddev-c.sd) > 1e-4 {
			t.Errorf("%v: mean %g sd %g, want %g %g", c.xs, e.Mean, e.Stddev, c.mean, c.sd)
		}
		if c.hw < 0 {
			if e.CI95Low != nil {
				t.Errorf("%v: an interval from fewer than two values", c.xs)
			}
			continue
		}
		if e.CI95Low == nil || math.Abs(*e.CI95High-*e.CI95Low-2*c.hw) > 1e-3 {
			t.Errorf("%v: interval %v..%v, want half-width %g", c.xs, e.CI95Low, e.CI95High, c.hw)
		}
	}
	if q := tQuantile(1000); q != 1.96 {
		t.Errorf("t quantile for large df = %g", q)
	}
}
