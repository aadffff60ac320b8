package bench

import (
	"strings"
	"testing"

	"github.com/ocbench/ocbench/algo"
)

// TestAnySize: every algorithm that needs no hypercube runs on N = 3, 6
// and 12 in the simulator, every request served with all the invariants
// checked; an algorithm that needs one (opencube, neilsen-mizuno) refuses
// N = 6 naming --nodes' field; N = 1 is refused for all.
func TestAnySize(t *testing.T) {
	names := algo.AnySizeNames()
	if len(names) < 10 {
		t.Fatalf("%d algorithms run on any N: %v", len(names), names)
	}
	for _, a := range names {
		for _, n := range []int{3, 6, 12} {
			s := Spec{Algorithm: a, Nodes: n, Requests: int64(4 * n), Workload: "poisson", Seed: 2, CSTime: 1, Think: 4, Check: CheckFull}
			r, err := Run(s)
			if err != nil {
				t.Fatalf("%s N=%d: %v", a, n, err)
			}
			if r.Violation != "" || r.RequestsServed != s.Requests {
				t.Fatalf("%s N=%d: served %d of %d, %s", a, n, r.RequestsServed, s.Requests, r.Violation)
			}
		}
		if err := (&Spec{Algorithm: a, Nodes: 1, Requests: 1, Workload: "sequential"}).Validate(); err == nil {
			t.Errorf("%s: N = 1 taken", a)
		}
	}
	for _, a := range []string{"opencube", "neilsen-mizuno"} {
		if algo.AnySize(a) {
			t.Errorf("%s runs on any N", a)
		}
		err := (&Spec{Algorithm: a, Nodes: 6, Requests: 1, Workload: "sequential"}).Validate()
		if err == nil || !strings.Contains(err.Error(), "power of two") {
			t.Errorf("%s N=6: %v", a, err)
		}
	}
}

// TestCeilLog2: ⌈log2 n⌉, which is log2 n for powers of two (so Settle and
// the budget are unchanged for them).
func TestCeilLog2(t *testing.T) {
	for _, c := range [][2]int{{1, 0}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {6, 3}, {8, 3}, {12, 4}, {1 << 20, 20}, {1<<20 + 1, 21}} {
		if got := ceilLog2(c[0]); got != c[1] {
			t.Errorf("ceilLog2(%d) = %d, want %d", c[0], got, c[1])
		}
	}
}
