package results

import (
	"fmt"
	"math"
	"slices"
)

// MannWhitney is the two-sided Mann–Whitney U test (Wilcoxon rank-sum) of
// the null hypothesis that x and y come from one distribution: U counts the
// pairs (x_i, y_j) with x_i > y_j (ties count a half), and its p-value is
// from the normal approximation, with the variance corrected for ties and a
// continuity correction of ½ (as R's wilcox.test(exact = FALSE) and SciPy's
// mannwhitneyu(method = "asymptotic")). Per-failure overheads are small
// counts with many ties, which the correction handles; the approximation
// is good from about 20 values per sample. It returns U for x and the
// p-value; p is 1 when every value is the same, and an error if a sample
// is empty.
func MannWhitney(x, y []float64) (u, p float64, err error) {
	n1, n2 := float64(len(x)), float64(len(y))
	if len(x) == 0 || len(y) == 0 {
		return 0, 0, fmt.Errorf("mann-whitney: empty sample (%d and %d values)", len(x), len(y))
	}
	type value struct {
		v   float64
		inX bool
	}
	all := make([]value, 0, len(x)+len(y))
	for _, v := range x {
		all = append(all, value{v, true})
	}
	for _, v := range y {
		all = append(all, value{v, false})
	}
	slices.SortFunc(all, func(a, b value) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	// Average ranks (1-based) over runs of ties; ties adds t³ − t per run.
	var rx, ties float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // the mean of ranks i+1 … j
		for k := i; k < j; k++ {
			if all[k].inX {
				rx += rank
			}
		}
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	u = rx - n1*(n1+1)/2
	n := n1 + n2
	mean := n1 * n2 / 2
	variance := n1 * n2 / 12 * ((n + 1) - ties/(n*(n-1)))
	if variance <= 0 {
		return u, 1, nil
	}
	d := math.Abs(u-mean) - 0.5
	if d < 0 {
		d = 0
	}
	z := d / math.Sqrt(variance)
	return u, math.Erfc(z / math.Sqrt2), nil
}
