package results

import "testing"

// TestStatedColumn: the stated column prints a paper's figure with its
// formula and source, an order of growth without a figure, a derived
// figure marked as such; mean/stated divides only by a paper's figure.
func TestStatedColumn(t *testing.T) {
	for _, c := range []struct {
		name        string
		r           Run
		cell, ratio string
	}{
		{"none", Run{}, "-", "-"},
		{"exact", Run{Stated: Stated{StatedCost: "2(N−1)", StatedCostLow: 30, StatedCostHigh: 30, StatedCostSource: "survey T2", StatedCostKind: "exact"}, Requests: Requests{MsgsPerRequest: Summary{Mean: 15}}}, "30 = 2(N−1), survey T2", "0.50"},
		{"range", Run{Stated: Stated{StatedCost: "3√N … 5√N", StatedCostLow: 12, StatedCostHigh: 20, StatedCostSource: "survey T2", StatedCostKind: "range"}, Requests: Requests{MsgsPerRequest: Summary{Mean: 15}}}, "12…20 = 3√N … 5√N, survey T2", "0.75"},
		{"bound", Run{Stated: Stated{StatedCost: "at most 2(N−1)", StatedCostHigh: 30, StatedCostSource: "survey §4, T3", StatedCostKind: "bound"}, Requests: Requests{MsgsPerRequest: Summary{Mean: 15}}}, "≤30 = at most 2(N−1), survey §4, T3", "0.50"},
		{"order", Run{Stated: Stated{StatedCost: "O(log N)", StatedCostSource: "survey T2", StatedCostKind: "order"}, Requests: Requests{MsgsPerRequest: Summary{Mean: 15}}}, "O(log N), survey T2 (order)", "-"},
		{"derived", Run{Stated: Stated{StatedCost: "request, token, return", StatedCostHigh: 3, StatedCostSource: "the proxy rule", StatedCostKind: "derived"}, Requests: Requests{MsgsPerRequest: Summary{Mean: 2.8}}}, "0…3 = request, token, return (derived: the proxy rule)", "-"},
		{"older record", Run{Stated: Stated{StatedCost: "2(N−1)", StatedCostLow: 30, StatedCostHigh: 30}, Requests: Requests{MsgsPerRequest: Summary{Mean: 15}}}, "30", "0.50"},
	} {
		if got := stated(&c.r); got != c.cell {
			t.Errorf("%s: stated %q, want %q", c.name, got, c.cell)
		}
		if got := statedRatio(&c.r); got != c.ratio {
			t.Errorf("%s: mean/stated %q, want %q", c.name, got, c.ratio)
		}
	}
}

// TestStatedFigure: the narrow column prints an upper bound as "≤ bound",
// a range with both ends, a derived figure with its mark.
func TestStatedFigure(t *testing.T) {
	for _, c := range []struct {
		kind      string
		low, high float64
		want      string
	}{
		{"bound", 0, 450, "≤450"},
		{"range", 0, 16, "0…16"},
		{"exact", 30, 30, "30"},
		{"derived", 0, 3, "0…3*"},
	} {
		r := Run{Stated: Stated{StatedCost: "f", StatedCostLow: c.low, StatedCostHigh: c.high, StatedCostSource: "s", StatedCostKind: c.kind}}
		if got := statedFigure(&r); got != c.want {
			t.Errorf("%s: figure %q, want %q", c.kind, got, c.want)
		}
	}
}
