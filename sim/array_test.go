package sim_test

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/ocbench/ocbench/opencube"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
	"github.com/ocbench/ocbench/sim"
)

// TestArray: a run whose nodes are stepped through their NodeArray is the
// run whose nodes are stepped one by one through their interfaces, trace
// line for trace line and counter for counter: the general scheme's
// instances at several sizes, FIFO or not, and the open-cube's failure
// protocol with crashes and recoveries; requests that overlap.
func TestArray(t *testing.T) {
	ft := opencube.Algorithm{}.WithFailures(proto.Failures{CSEstimate: 1}).(proto.ArrayAlgorithm)
	for _, c := range []struct {
		algo    proto.ArrayAlgorithm
		nodes   int
		fifo    bool
		crashes bool
	}{
		{scheme.Algorithm{Rule: scheme.NaimiTrehel{}}, 2, false, false},
		{scheme.Algorithm{Rule: scheme.NaimiTrehel{}}, 16, true, false},
		{scheme.Algorithm{Rule: scheme.Raymond{}}, 16, false, false},
		{scheme.Algorithm{Rule: scheme.Centralized{}}, 8, false, false},
		{opencube.Algorithm{}, 16, false, false},
		{ft, 16, false, true},
	} {
		t.Run(fmt.Sprintf("%s/N=%d/fifo=%v/crashes=%v", c.algo.Name(), c.nodes, c.fifo, c.crashes), func(t *testing.T) {
			run := func(array bool) (*sim.Sim, string) {
				nodes, arr := c.algo.NewArray(c.nodes)
				if arr == nil {
					t.Fatalf("%s has no NodeArray", c.algo.Name())
				}
				if !array {
					arr = nil
				}
				var tr bytes.Buffer
				var s *sim.Sim
				s = sim.New(sim.Config{Delta: 1e-3, MinDelay: 0.1, Seed: 3, FIFO: c.fifo, Check: sim.CheckFull,
					Types: c.algo.MessageTypes(), Invariants: c.algo.Invariants(c.crashes), Crashes: c.crashes,
					Trace: &tr, Array: arr}, nodes,
					sim.Hooks{Enter: func(id proto.NodeID, _ uint32) { s.Input(5e-4, id, proto.ExitCS, 0) }})
				for i := range c.nodes {
					for k := range 3 { // three requests a node, the later ones while others wait
						s.Input(float64(i%3)*1e-4+float64(k)*0.02, proto.NodeID(i), proto.EnterCS, uint32(3*i+k+1))
					}
				}
				if c.crashes {
					for _, id := range []proto.NodeID{3, 9} {
						s.Input(0.011*float64(id), id, proto.Crash, 0)
						s.Input(0.011*float64(id)+0.03, id, proto.Recover, 0)
					}
				}
				if err := s.Run(); err != nil {
					t.Fatal(err)
				}
				return s, tr.String()
			}
			a, at := run(true)
			b, bt := run(false)
			if failure := sentFor(&a.Stats, proto.Failure); c.crashes && failure == 0 {
				t.Errorf("the crashes caused no message of the failure protocol")
			}
			if a.Stats.Steps == 0 || at != bt || !reflect.DeepEqual(a.Stats, b.Stats) {
				t.Errorf("stepped through the array: %d steps, %d trace bytes; one by one: %d steps, %d trace bytes (same trace: %v)",
					a.Stats.Steps, len(at), b.Stats.Steps, len(bt), at == bt)
			}
		})
	}
}

// sentFor counts the messages sent for cause.
func sentFor(st *sim.Stats, cause proto.Cause) int64 {
	var n int64
	for _, byCause := range st.Sent {
		n += byCause[cause]
	}
	return n
}
