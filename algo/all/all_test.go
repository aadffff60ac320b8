package all

import (
	"math"
	"os"
	"strconv"
	"strings"
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

// TestStatedCostsDoc: docs/stated-costs.md has a row for every registered
// algorithm, and the row's kind and its figures at N = 16 and 64 are what
// the algorithm states (an exact cost one figure, a range Low…High, an
// upper bound ≤High, an order of growth or no cost —).
func TestStatedCostsDoc(t *testing.T) {
	b, err := os.ReadFile("../../docs/stated-costs.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "## Every algorithm's")
	if start < 0 {
		t.Fatal("docs/stated-costs.md: no section \"Every algorithm's\"")
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(text[start:], "\n")[1:] {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		line = strings.ReplaceAll(line, `\|`, "¦") // an escaped | inside a cell
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) == 6 {
			rows[cells[0]] = cells
		}
	}
	figure := func(c proto.Cost) string {
		num := func(x float64) string { return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64) }
		switch {
		case c == (proto.Cost{}) || c.Kind == proto.Order:
			return "—"
		case c.Kind == algo.AtMost:
			return "≤" + num(c.High)
		case c.Low == c.High:
			return num(c.High)
		}
		return num(c.Low) + "…" + num(c.High)
	}
	for _, name := range algo.Names() {
		row, ok := rows[name]
		if !ok {
			t.Errorf("docs/stated-costs.md: no row for %s", name)
			continue
		}
		a, _ := algo.Lookup(name)
		c, ok := a.(proto.CostAlgorithm)
		kind := ""
		if ok && c.StatedCost(16) != (proto.Cost{}) {
			kind = c.StatedCost(16).Kind.String()
		}
		if row[3] != kind {
			t.Errorf("docs/stated-costs.md, %s: kind %q, the algorithm states %q", name, row[3], kind)
		}
		for k, n := range []int{16, 64} {
			want := "—"
			if ok {
				want = figure(c.StatedCost(n))
			}
			got, _, _ := strings.Cut(row[4+k], " ")
			if kind == "" {
				got = row[4+k]
				if got == "" {
					got = "—"
				}
			}
			if got != want {
				t.Errorf("docs/stated-costs.md, %s at N = %d: %q, the algorithm states %q", name, n, got, want)
			}
		}
	}
}
