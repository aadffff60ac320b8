package sim

import (
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/proto"
)

// TestDropSkipped: a skipped crash leaves the counts, its messages going to
// the crash before it.
func TestDropSkipped(t *testing.T) {
	for _, c := range []struct {
		skipped      []int
		per, first   []float64
		pre, crashes int
	}{
		{nil, []float64{1, 2, 3}, []float64{.1, .2, .3}, 0, 3},
		{[]int{1}, []float64{3, 3}, []float64{.1, .3}, 0, 2},
		{[]int{2, 0, 2}, []float64{5}, []float64{.2}, 1, 1},
	} {
		tl := Planned([]float64{1, 2, 3})
		tl.PerFailure, tl.FirstEntry = []float64{1, 2, 3}, []float64{.1, .2, .3}
		tl.DropSkipped(c.skipped)
		if fmt.Sprint(tl.PerFailure, tl.FirstEntry, tl.PreCrash, tl.Crashes) != fmt.Sprint(c.per, c.first, c.pre, c.crashes) {
			t.Errorf("skipped %v: per failure %v, first entry %v, pre-crash %d, crashes %d; want %v %v %d %d",
				c.skipped, tl.PerFailure, tl.FirstEntry, tl.PreCrash, tl.Crashes, c.per, c.first, c.pre, c.crashes)
		}
	}
}

// TestCrashAttributionBothWays: the simulator records crashes as they
// happen (Crashed), the ranks of a distributed runtime start from the
// plan, each counting its own nodes' messages, and rank 0 sums them and
// drops the crashes skipped at run time. For one sequence of crashes,
// failure messages and entries, both give the same counts.
func TestCrashAttributionBothWays(t *testing.T) {
	plan := []float64{1, 2, 3, 5}
	type ev struct {
		t     float64
		rank  int  // the rank of the node that sends or enters
		enter bool // else a failure message
	}
	for _, c := range []struct {
		name    string
		skipped []int // planned crashes that did not happen
		evs     []ev
	}{
		{"all happen", nil, []ev{{0.5, 0, false}, {1, 1, false}, {1.5, 0, true}, {2.5, 1, false}, {2.6, 0, false}, {6, 1, true}}},
		{"second skipped", []int{1}, []ev{{1.2, 0, false}, {2.2, 1, false}, {2.4, 1, true}, {3.5, 0, false}, {4, 0, true}}},
		{"first and last skipped", []int{0, 3}, []ev{{1.1, 1, false}, {2.5, 0, false}, {3, 1, false}, {5.5, 0, false}, {5.6, 1, true}}},
		{"no entry after a crash", nil, []ev{{1.1, 0, false}, {5.1, 1, false}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			skip := map[int]bool{}
			for _, k := range c.skipped {
				skip[k] = true
			}
			// The simulator: crashes recorded when they happen.
			var sim Counts
			next := 0
			ranks := []Counts{Planned(plan), Planned(plan)}
			m := &proto.Message{Type: 2, Cause: proto.Failure}
			for _, e := range c.evs {
				for next < len(plan) && plan[next] <= e.t {
					if !skip[next] {
						sim.Crashed(plan[next])
					}
					next++
				}
				if e.enter {
					sim.Entered(e.t)
					ranks[e.rank].Entered(e.t)
				} else {
					sim.Failure(m, e.t)
					ranks[e.rank].Failure(m, e.t)
				}
			}
			for ; next < len(plan); next++ {
				if !skip[next] {
					sim.Crashed(plan[next])
				}
			}
			sum := Planned(plan)
			for k := range ranks {
				sum.Add(&ranks[k])
			}
			sum.DropSkipped(c.skipped)
			got := fmt.Sprint(sum.Crashes, sum.PerFailure, sum.FirstEntry, sum.PreCrash, sum.ByType[2], sum.CrashTimes)
			want := fmt.Sprint(sim.Crashes, sim.PerFailure, sim.FirstEntry, sim.PreCrash, sim.ByType[2], sim.CrashTimes)
			if got != want {
				t.Errorf("distributed %s, simulator %s", got, want)
			}
		})
	}
}
