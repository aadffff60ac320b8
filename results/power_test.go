package results

import (
	"math"
	"testing"
)

func TestByPower(t *testing.T) {
	cases := []struct {
		name       string
		samples    []float64
		powers     []int
		n          int
		strata     int
		stratified float64
	}{
		{"empty", nil, nil, 8, 0, 0},
		{"lengths differ", []float64{1, 2}, []int{0}, 8, 0, 0},
		// N=8: shares 1/2, 1/4, 1/8 for powers 0..2 and 1/8 for the root (3).
		{"every power", []float64{2, 4, 8, 16, 16}, []int{0, 1, 2, 3, 3}, 8, 4, (0.5*2 + 0.25*4 + 0.125*8 + 0.125*16) / 1},
		{"one power", []float64{3, 5}, []int{1, 1}, 8, 1, 4},
		{"out of range ignored", []float64{3, 100}, []int{1, 9}, 8, 1, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, m := ByPower(c.samples, c.powers, c.n)
			if len(st) != c.strata || math.Abs(m-c.stratified) > 1e-9 {
				t.Fatalf("got %d strata, stratified %g; want %d, %g (%+v)", len(st), m, c.strata, c.stratified, st)
			}
		})
	}
}
