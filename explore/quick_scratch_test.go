package explore

import (
	"testing"

	"github.com/ocbench/ocbench/algo"
	_ "github.com/ocbench/ocbench/algo/all"
)

func TestQuick(t *testing.T) {
	for _, name := range algo.Names() {
		a, _ := algo.Lookup(name)
		ticks := 0
		if name == "kofl" {
			ticks = 2
		}
		e, err := New(Config{Algorithm: a, Nodes: 4, Requests: 1, Ticks: ticks, MinTicks: 1, CSTicks: 2, MaxStates: 2000000})
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.Run()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		t.Logf("%-22s states %8d trans %9d depth %3d term %d %v %.0f/s limit=%q viol=%v", name, r.States, r.Transitions, r.Depth, r.Terminal, r.Elapsed, float64(r.States)/r.Elapsed.Seconds(), r.Limit, r.Violation)
	}
}
