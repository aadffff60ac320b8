package sim_test

import (
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/sim"
)

// TestAfterCall checks that a call scheduled by AfterCall runs its
// registered function with its node and argument, at its time, and in the
// place After's closure would take: the calls below, scheduled alternately
// by After and AfterCall, at equal and distinct times, run in the order
// the same calls all made by After run in.
func TestAfterCall(t *testing.T) {
	times := []float64{2, 1, 1, 0, 2, 1, 3}
	run := func(mixed bool) []string {
		s := sim.New(sim.Config{Types: cubeTypes, Delta: 1}, nodes(system(4)), sim.Hooks{})
		var got []string
		note := func(id proto.NodeID, arg uint32) {
			got = append(got, fmt.Sprintf("%d/%d@%g", id, arg, s.Now()))
		}
		h := s.NodeCall(note)
		for i, dt := range times {
			id, arg := proto.NodeID(i%4), uint32(10+i)
			if mixed && i%2 == 1 {
				s.AfterCall(dt, h, id, arg)
			} else {
				s.After(dt, func() { note(id, arg) })
			}
		}
		if err := s.Run(); err != nil {
			t.Fatal(err)
		}
		return got
	}
	want, got := run(false), run(true)
	if fmt.Sprint(got) != fmt.Sprint(want) || len(got) != len(times) {
		t.Errorf("calls through AfterCall ran as %v, through After as %v", got, want)
	}
	if want[0] != "3/13@0" {
		t.Errorf("the first call ran as %s, want 3/13@0", want[0])
	}
}
