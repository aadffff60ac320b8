package rank

import (
	"strings"
	"testing"

	"github.com/ocbench/ocbench/bench"
)

// TestAnySizeRefused: a spec the simulator takes (raynal on 6 nodes) is
// refused by both MPI runtimes with one line saying N must be a power of
// two, and the same algorithm on 8 nodes is taken.
func TestAnySizeRefused(t *testing.T) {
	base := bench.Spec{Algorithm: "raynal", Nodes: 6, Requests: 10, Workload: "sequential"}
	if _, err := bench.Filled(base); err != nil {
		t.Fatalf("the simulator refuses raynal on 6 nodes: %v", err)
	}
	for _, c := range []struct {
		name     string
		minDelay float64
		check    func(bench.Spec) error
	}{
		{"virtual", bench.DefaultMinDelay, func(s bench.Spec) error { _, _, err := CheckVirtual(s, "", 2); return err }},
		{"wall", 0, func(s bench.Spec) error { _, _, err := Check(s, "", 2); return err }},
	} {
		s := base
		s.MinDelay = c.minDelay
		if err := c.check(s); err == nil || !strings.Contains(err.Error(), "power of two") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: raynal on 6 nodes: %v", c.name, err)
		}
		s.Nodes = 8
		if err := c.check(s); err != nil {
			t.Errorf("%s: raynal on 8 nodes: %v", c.name, err)
		}
	}
}
