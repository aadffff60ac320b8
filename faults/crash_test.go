package faults

import (
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"testing"
	"time"

	"github.com/ocbench/ocbench/internal/timebox"
)

// TestPlanTerminates feeds the fault planner plans that would leave fewer
// than MinUp nodes up, were it to follow them (Validate refuses most of
// them; the planner must not rely on it): every node crashed for good,
// crash counts far above N, gaps far below the downtimes. The planner must
// end, plan every crash (none at all below MinUp+1 nodes), keep MinUp nodes
// up at all times, crash only nodes that are up, and put at most N−MinUp−1
// nodes down for good.
func TestPlanTerminates(t *testing.T) {
	type plan struct {
		nodes   int
		crashes int
		perm    float64
		every   float64
		down    float64
		spacing Dist
		target  Target
	}
	var cases []plan
	for _, n := range []int{2, 4, 8, 16, 64, 1024} {
		for _, perm := range []float64{0, 0.15, 0.5, 1} {
			for _, crashes := range []int{n, 10 * n, 5000} {
				cases = append(cases,
					plan{n, crashes, perm, 40, 20, "exp", "random"},
					plan{n, crashes, perm, 1, 1e6, "exp", "random"},
					plan{n, crashes, perm, 10, 10, "fixed", "random"}, // crashes at recovery instants
					plan{n, crashes, perm, 40, 20, "exp", "token"})
			}
		}
	}
	cases = append(cases, plan{4, 2000, 1, 1e-9, 1e6, "fixed", "random"}) // a step far below the wait
	for _, c := range cases {
		name := fmt.Sprintf("N=%d/crashes=%d/perm=%g/every=%g/down=%g/%s/%s", c.nodes, c.crashes, c.perm, c.every, c.down, c.spacing, c.target)
		f := FaultPlan{Crashes: c.crashes, Spacing: c.spacing, Every: c.every, Down: c.down, DownDist: c.spacing,
			Permanent: c.perm, Target: c.target}
		for seed := uint64(1); seed <= 3; seed++ {
			var faults []Fault
			timebox.Within(t, 60*time.Second, func() { faults = f.Schedule(seed, c.nodes, 1) })
			if c.nodes < MinUp+1 {
				if len(faults) != 0 {
					t.Fatalf("%s seed %d: %d crashes planned on %d nodes", name, seed, len(faults), c.nodes)
				}
				continue
			}
			if len(faults) != c.crashes {
				t.Fatalf("%s seed %d: %d of %d crashes planned", name, seed, len(faults), c.crashes)
			}
			if err := checkPlan(faults, c.nodes, c.target == "random"); err != nil {
				t.Fatalf("%s seed %d: %v", name, seed, err)
			}
		}
	}
}

// checkPlan checks a plan made with δ = 1 second: at most N−MinUp−1 crashes
// for good and, with victims drawn (random targets), a victim is up when it
// crashes and MinUp nodes are up at all times. At equal times a crash comes
// before a recovery, as in a run (the crash was scheduled first).
func checkPlan(faults []Fault, nodes int, victims bool) error {
	permanent := 0
	for k, f := range faults {
		if math.IsNaN(f.At) || math.IsInf(f.At, 0) || f.At < 0 || (f.Up >= 0 && f.Up < f.At) || (k > 0 && f.At < faults[k-1].At) {
			return fmt.Errorf("crash %d: at %g, up %g", k, f.At, f.Up)
		}
		if f.Up < 0 {
			permanent++
		}
	}
	if permanent > nodes-MinUp-1 {
		return fmt.Errorf("%d nodes down for good, more than N−%d = %d", permanent, MinUp+1, nodes-MinUp-1)
	}
	if !victims {
		return nil
	}
	type event struct {
		t    float64
		up   bool
		node int
	}
	var evs []event
	for _, f := range faults {
		if f.Node < 0 || f.Node >= nodes {
			return fmt.Errorf("victim %d of %d nodes", f.Node, nodes)
		}
		evs = append(evs, event{f.At, false, f.Node})
		if f.Up >= 0 {
			evs = append(evs, event{f.Up, true, f.Node})
		}
	}
	sort.SliceStable(evs, func(i, j int) bool {
		if evs[i].t != evs[j].t {
			return evs[i].t < evs[j].t
		}
		return !evs[i].up && evs[j].up
	})
	down := make([]bool, nodes)
	live := nodes
	for _, e := range evs {
		if e.up {
			down[e.node] = false
			live++
			continue
		}
		if down[e.node] {
			return fmt.Errorf("t=%g: node %d crashes while down", e.t, e.node)
		}
		down[e.node] = true
		live--
		if live < MinUp {
			return fmt.Errorf("t=%g: node %d's crash leaves %d of %d nodes up", e.t, e.node, live, nodes)
		}
	}
	return nil
}

// TestPlanReplays: the planner draws, for a seed, the victims, times and
// downtimes it drew before it was made to keep two nodes up and to find
// victims in O(log N) (golden values from that planner), so a seed still
// replays the run it named, wherever no wait for a recovery comes in.
func TestPlanReplays(t *testing.T) {
	for _, c := range []struct {
		nodes, crashes int
		perm           float64
		seed           uint64
		hash           uint64
		last           string
	}{
		{32, 300, 0, 1, 0xec86a2ce43e5e3dc, "13@15.076059448"},
		{64, 200, 0, 2, 0xafbc3d93a390d5b6, "55@9.920420001"},
		{8, 12, 0, 1735, 0x62382ccfc8f27bc6, "5@0.772993770"},
		{32, 20, 0.2, 7, 0x7ae0285a47593ee7, "31@0.904343043"},
	} {
		f := FaultPlan{Crashes: c.crashes, Spacing: "exp", Every: 50, Down: 20, DownDist: "exp", Permanent: c.perm, Target: "random"}
		got := f.Schedule(c.seed, c.nodes, 1e-3)
		h := fnv.New64a()
		for _, x := range got {
			fmt.Fprintf(h, "%d %x %x\n", x.Node, x.At, x.Up)
		}
		last := got[len(got)-1]
		if l := fmt.Sprintf("%d@%.9f", last.Node, last.At); h.Sum64() != c.hash || l != c.last {
			t.Errorf("N=%d, %d crashes, seed %d: plan hash %#x, last crash %s; want %#x, %s", c.nodes, c.crashes, c.seed, h.Sum64(), l, c.hash, c.last)
		}
	}
}
