package all

import (
	"testing"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/proto"
)

// TestStatedCostsSourced: every registered algorithm that states a cost
// names its source, and its figures fit its kind: an exact cost is one
// figure, a range Low ≤ High with High > 0, an order of growth no figure
// (so nothing divides by it), a derived figure a figure, an upper bound
// alone (algo.AtMost) a positive bound and no lower end. The zero Cost
// states none.
func TestStatedCostsSourced(t *testing.T) {
	for _, name := range algo.Names() {
		a, _ := algo.Lookup(name)
		c, ok := a.(proto.CostAlgorithm)
		if !ok {
			continue
		}
		for _, n := range []int{2, 16, 64, 1024} {
			st := c.StatedCost(n)
			if st == (proto.Cost{}) {
				continue // states none (scheme.Algorithm, for a rule without a cost)
			}
			var bad string
			switch {
			case st.Text == "" || st.Source == "":
				bad = "no formula or no source"
			case st.Kind == proto.Exact && (st.Low != st.High || st.High <= 0):
				bad = "exact, but not one positive figure"
			case st.Kind == proto.Range && (st.Low > st.High || st.High <= 0):
				bad = "a range without Low ≤ High, High > 0"
			case st.Kind == proto.Order && (st.Low != 0 || st.High != 0 || st.Comparable()):
				bad = "an order of growth with a figure"
			case st.Kind == proto.Derived && (st.High <= 0 || st.Comparable()):
				bad = "derived, without a figure or comparable"
			case st.Kind == algo.AtMost && (st.Low != 0 || st.High <= 0 || !st.Comparable()):
				bad = "an upper bound without a positive bound, or with a lower end"
			case st.Kind > algo.AtMost:
				bad = "an unknown kind"
			}
			if bad != "" {
				t.Errorf("%s at N = %d: %s: %+v", name, n, bad, st)
			}
		}
	}
}
