package results

import (
	"math"
	"testing"
)

// TestMannWhitney checks U and the p-value against values worked out by
// hand from the definitions (and as R's wilcox.test(x, y, exact = FALSE,
// correct = TRUE) reports them).
func TestMannWhitney(t *testing.T) {
	for _, c := range []struct {
		name string
		x, y []float64
		u, p float64
	}{
		// Apart: U = 0, mean 4.5, variance 9·7/12 = 5.25, z = 4/√5.25 =
		// 1.74574, p = erfc(z/√2) = 0.080856.
		{"apart", []float64{1, 2, 3}, []float64{4, 5, 6}, 0, 0.080856},
		{"apart, swapped", []float64{4, 5, 6}, []float64{1, 2, 3}, 9, 0.080856},
		// Interleaved: ranks of x 1, 3, 5 sum to 9, U = 3; |U − 4.5| − ½ = 1,
		// z = 1/√5.25 = 0.43644, p = 0.66252.
		{"interleaved", []float64{1, 3, 5}, []float64{2, 4, 6}, 3, 0.66252},
		// Ties: all = 1 1 1 2 2 3 3 3 (x: 1 1 2 3, y: 1 2 3 3); ranks 2, 2, 2,
		// 4.5, 4.5, 7, 7, 7; x's sum 2+2+4.5+7 = 15.5, U = 5.5; ties: 3 runs,
		// (27−3)+(8−2)+(27−3) = 54; variance 16/12·(9 − 54/56) = 10.7143;
		// |5.5 − 8| − ½ = 2, z = 0.61101, p = 0.54119.
		{"ties", []float64{1, 1, 2, 3}, []float64{1, 2, 3, 3}, 5.5, 0.54119},
		// Identical constant samples: no spread, p = 1.
		{"constant", []float64{7, 7}, []float64{7, 7, 7}, 3, 1},
	} {
		u, p, err := MannWhitney(c.x, c.y)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if u != c.u || math.Abs(p-c.p) > 5e-5 {
			t.Errorf("%s: U = %v, p = %.6f; want U = %v, p = %.6f", c.name, u, p, c.u, c.p)
		}
	}
	if _, _, err := MannWhitney(nil, []float64{1}); err == nil {
		t.Error("an empty sample: no error")
	}
}

// TestMannWhitneyPower: two large samples from one distribution give a p
// that is not small; shifted by a third of their spread, a tiny one.
func TestMannWhitneyPower(t *testing.T) {
	var x, y, shifted []float64
	for i := range 1000 {
		v := float64((i * 7919) % 30) // 0 … 29, many ties
		x = append(x, v)
		y = append(y, float64((i*104729+13)%30))
		shifted = append(shifted, v+10)
	}
	if _, p, _ := MannWhitney(x, y); p < 0.5 {
		t.Errorf("same distribution: p = %v", p)
	}
	if _, p, _ := MannWhitney(x, shifted); p > 1e-10 {
		t.Errorf("shifted: p = %v", p)
	}
}
