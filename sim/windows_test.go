package sim_test

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
	"github.com/ocbench/ocbench/sim"
)

// TestWindows: Windows with an idle that always answers yes returns exactly
// at the boundaries Window by Window reaches before a window that starts
// with a controller call, or where the queue runs dry, in the same state;
// with one that never does, it is Window. Runs of Naimi and Trehel's
// algorithm with requests at spread times and controller calls among them.
func TestWindows(t *testing.T) {
	for _, c := range []struct {
		nodes int
		width float64 // in δ
		calls []float64
	}{
		{2, 0.5, nil},
		{8, 0.5, []float64{0.0031, 0.01, 0.0105}},
		{16, 0.25, []float64{0, 0.002, 0.02}},
		{16, 1, []float64{0.004, 0.0041, 0.03}},
	} {
		t.Run(fmt.Sprintf("N=%d/width=%g/calls=%d", c.nodes, c.width, len(c.calls)), func(t *testing.T) {
			build := func() *sim.Sim {
				s := sim.New(sim.Config{Delta: 1e-3, MinDelay: 0.5, Seed: 7, Types: scheme.Algorithm{}.MessageTypes()},
					scheme.Algorithm{Rule: scheme.NaimiTrehel{}}.NewNodes(c.nodes), sim.Hooks{})
				for i := range c.nodes {
					s.Input(float64(i)*0.0013, proto.NodeID(i), proto.EnterCS, uint32(i+1))
					s.Input(float64(i)*0.0013+0.02, proto.NodeID(i), proto.ExitCS, 0)
				}
				for _, at := range c.calls {
					s.At(at, func() {})
				}
				return s
			}
			width := c.width * 1e-3
			// Window by Window: the boundaries Windows must stop at.
			var want []string
			a := build()
			for next := a.Next(); !math.IsInf(next, 1); next = a.Next() {
				end := a.Window(next, width)
				if a.Next() == a.NextControl() || math.IsInf(a.Next(), 1) {
					want = append(want, fmt.Sprintf("end %.9g, %d steps", end, a.Stats.Steps))
				}
			}
			var got []string
			b := build()
			for next := b.Next(); !math.IsInf(next, 1); next = b.Next() {
				end := b.Windows(next, width, func() bool { return true })
				got = append(got, fmt.Sprintf("end %.9g, %d steps", end, b.Stats.Steps))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("Windows returned at\n%v\nWindow by Window reaches the boundaries before a controller's window at\n%v", got, want)
			}
			if a.Stats.Steps == 0 || !reflect.DeepEqual(a.Stats, b.Stats) {
				t.Errorf("the runs differ: %+v against %+v", b.Stats, a.Stats)
			}
			never := build()
			var ends []float64
			for next := never.Next(); !math.IsInf(next, 1); next = never.Next() {
				ends = append(ends, never.Windows(next, width, func() bool { return false }))
			}
			if len(ends) < len(want) || !reflect.DeepEqual(never.Stats, a.Stats) {
				t.Errorf("Windows with an idle that never answers yes ran %d windows, %+v", len(ends), never.Stats)
			}
		})
	}
}
