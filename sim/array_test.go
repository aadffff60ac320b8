package sim_test

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
	"github.com/ocbench/ocbench/sim"
)

// TestArray: a run whose nodes are stepped through their NodeArray is the
// run whose nodes are stepped one by one through their interfaces, trace
// line for trace line and counter for counter, for the general scheme's
// instances at several sizes, FIFO or not, with requests that overlap.
func TestArray(t *testing.T) {
	for _, c := range []struct {
		rule  scheme.Rule
		nodes int
		fifo  bool
	}{
		{scheme.NaimiTrehel{}, 2, false},
		{scheme.NaimiTrehel{}, 16, true},
		{scheme.Raymond{}, 16, false},
		{scheme.Centralized{}, 8, false},
	} {
		t.Run(fmt.Sprintf("%s/N=%d/fifo=%v", c.rule.Name(), c.nodes, c.fifo), func(t *testing.T) {
			run := func(array bool) (*sim.Sim, string) {
				nodes, arr := scheme.Algorithm{Rule: c.rule}.NewArray(c.nodes)
				if !array {
					arr = nil
				}
				var tr bytes.Buffer
				var s *sim.Sim
				s = sim.New(sim.Config{Delta: 1e-3, MinDelay: 0.1, Seed: 3, FIFO: c.fifo, Check: sim.CheckFull,
					Types: scheme.Algorithm{}.MessageTypes(), Trace: &tr, Array: arr}, nodes,
					sim.Hooks{Enter: func(id proto.NodeID, _ uint32) { s.Input(5e-4, id, proto.ExitCS, 0) }})
				for i := range c.nodes {
					for k := range 3 { // three requests a node, the later ones while others wait
						s.Input(float64(i%3)*1e-4+float64(k)*0.02, proto.NodeID(i), proto.EnterCS, uint32(3*i+k+1))
					}
				}
				if err := s.Run(); err != nil {
					t.Fatal(err)
				}
				return s, tr.String()
			}
			a, at := run(true)
			b, bt := run(false)
			if a.Stats.Steps == 0 || at != bt || !reflect.DeepEqual(a.Stats, b.Stats) {
				t.Errorf("stepped through the array: %d steps, %d trace bytes; one by one: %d steps, %d trace bytes (same trace: %v)",
					a.Stats.Steps, len(at), b.Stats.Steps, len(bt), at == bt)
			}
		})
	}
}
