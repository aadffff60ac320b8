package sim_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	_ "github.com/ocbench/ocbench/algo/all" // every algorithm by name
	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/sim"
)

// TestIncrementalAgrees runs every algorithm without crashes, and those
// with a failure protocol with crashes, under the full checks, and after
// every step that an incremental checker (proto.Incremental) decides
// alone, runs the invariant's whole Check too: the checker must never say
// that the invariant holds where Check finds a violation, and must decide
// most steps alone (else it checks nothing incrementally).
func TestIncrementalAgrees(t *testing.T) {
	type tally struct{ decided, full, alarms int }
	var mu sync.Mutex
	var missed []string
	tallies := map[string]*tally{}
	var run string
	sim.SetCrossCheck(func(inv proto.Invariant, step int64, inc, whole error) {
		mu.Lock()
		defer mu.Unlock()
		k := tallies[inv.Name]
		if k == nil {
			k = &tally{}
			tallies[inv.Name] = k
		}
		switch {
		case errors.Is(inc, proto.ErrFull):
			k.full++
		case inc == nil && whole != nil:
			missed = append(missed, fmt.Sprintf("%s: %s at step %d: the incremental checker missed %v", run, inv.Name, step, whole))
		case inc == nil:
			k.decided++
		case whole == nil:
			k.alarms++
		}
	})
	defer sim.SetCrossCheck(nil)
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	ft := map[string]bool{"opencube": true, "naimi-trehel-ft": true, "mishra-srimani": true, "nishio": true}
	type spec struct {
		algo    string
		crashes int
		load    bench.WorkloadKind
	}
	var specs []spec
	for name := range ft {
		specs = append(specs, spec{name, 20, bench.Poisson}, spec{name, 20, bench.Saturated})
	}
	for _, name := range []string{"opencube", "naimi-trehel-ft", "mishra-srimani", "nishio", "suzuki-kasami", "suzuki-kasami-bounded", "ricart-agrawala-token", "naimi-trehel", "raymond", "raymond-lift", "topology-hypercube"} {
		specs = append(specs, spec{name, 0, bench.Poisson}, spec{name, 0, bench.Sequential})
	}
	for _, c := range specs {
		for _, seed := range seeds {
			s := bench.Spec{Algorithm: c.algo, Nodes: 16, Requests: 300, Workload: c.load, Seed: seed, CSTime: 1, Check: bench.CheckFull}
			if c.crashes > 0 {
				s.Faults = bench.FaultPlan{Crashes: c.crashes, Spacing: "exp", Every: 30, Down: 20, DownDist: "exp", Target: "random"}
			}
			mu.Lock()
			run = fmt.Sprintf("%s %s crashes=%d seed %d", c.algo, c.load, c.crashes, seed)
			mu.Unlock()
			if _, err := bench.Run(s); err != nil {
				var nf interface{ NotFound() bool }
				if errors.As(err, &nf) {
					continue
				}
				t.Fatalf("%s: %v", run, err)
			}
		}
	}
	for _, m := range missed {
		t.Error(m)
	}
	for name, k := range tallies {
		t.Logf("%s: %d steps decided alone, %d read whole, %d false alarms", name, k.decided, k.full, k.alarms)
		if k.decided < k.full {
			t.Errorf("%s: %d steps decided alone, fewer than the %d read whole", name, k.decided, k.full)
		}
	}
	for _, name := range []string{"a_tree", "properties 1-3", "idle roots", "nt_pointers", "nt_no_regeneration", "held token", "token state", "token generation"} {
		if tallies[name] == nil || tallies[name].decided == 0 {
			t.Errorf("%s: no step decided incrementally", name)
		}
	}
}
