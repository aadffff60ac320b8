package sim_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"unsafe"

	_ "github.com/ocbench/ocbench/algo/all" // every algorithm by name
	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/sim"
	"github.com/ocbench/ocbench/workload"
)

// TestIncrementalAgrees runs every algorithm without crashes, and those
// with a failure protocol with crashes, under the full checks, and after
// every step that an incremental checker (proto.Incremental) decides
// alone, runs the invariant's whole Check too: the checker must never say
// that the invariant holds where Check finds a violation, and must decide
// most steps alone (else it checks nothing incrementally).
func TestIncrementalAgrees(t *testing.T) {
	type tally struct{ decided, full, alarms, caught int }
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
		default:
			k.caught++
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
		load    workload.Kind
		late    float64 // messages delayed beyond δ: the invariants break
	}
	var specs []spec
	for name := range ft {
		specs = append(specs, spec{algo: name, crashes: 20, load: workload.Poisson}, spec{algo: name, crashes: 20, load: workload.Saturated},
			spec{algo: name, crashes: 20, load: workload.Saturated, late: 0.05})
	}
	for _, name := range []string{"opencube", "naimi-trehel-ft", "mishra-srimani", "nishio", "suzuki-kasami", "suzuki-kasami-bounded", "ricart-agrawala-token", "naimi-trehel", "raymond", "raymond-lift", "topology-hypercube",
		"helary-plouzeau-raynal", "helary-plouzeau-raynal-line", "helary-plouzeau-raynal-ring", "helary-plouzeau-raynal-tree", "raynal",
		"carvalho-roucairol", "singhal", "singhal-token"} {
		specs = append(specs, spec{algo: name, load: workload.Poisson}, spec{algo: name, load: workload.Sequential},
			spec{algo: name, load: workload.Saturated, late: 0.05})
	}
	for _, c := range specs {
		for _, seed := range seeds {
			s := bench.Spec{Algorithm: c.algo, Nodes: 16, Requests: 300, Workload: c.load, Seed: seed, CSTime: 1, Check: bench.CheckFull}
			if c.late > 0 {
				s.LateFraction, s.LateFactor = c.late, 10
			}
			if c.crashes > 0 {
				s.Faults = faults.FaultPlan{Crashes: c.crashes, Spacing: "exp", Every: 30, Down: 20, DownDist: "exp", Target: "random"}
			}
			mu.Lock()
			run = fmt.Sprintf("%s %s crashes=%d late=%g seed %d", c.algo, c.load, c.crashes, c.late, seed)
			mu.Unlock()
			if _, err := bench.Run(s); err != nil && c.late == 0 {
				t.Fatalf("%s: %v", run, err)
			}
		}
	}
	for _, m := range missed {
		t.Error(m)
	}
	for name, k := range tallies {
		t.Logf("%s: %d steps decided alone, %d read whole, %d false alarms, %d violations caught", name, k.decided, k.full, k.alarms, k.caught)
		if k.decided < k.full {
			t.Errorf("%s: %d steps decided alone, fewer than the %d read whole", name, k.decided, k.full)
		}
	}
	for _, name := range []string{"a_tree", "properties 1-3", "idle roots", "nt_pointers", "nt_no_regeneration", "held token", "token state", "token generation", "links", "seen_not_ahead",
		"cs-holds-every-permission", "at-most-one-permission-per-pair", "staircase", "token_goes_to_requester", "token_vectors", "permission"} {
		if tallies[name] == nil || tallies[name].decided == 0 {
			t.Errorf("%s: no step decided incrementally", name)
		}
	}
}

// TestIncrementalBrokenCopies breaks, once per run, one field of the state
// of the node that just stepped (a bool flipped, a number moved by one),
// at a step drawn from the seed, in runs of the algorithms with
// incremental checkers under the full checks: each violation that an
// invariant's whole Check finds after a step must be found by its
// incremental checker after the same step (the step that broke the node,
// or a later one).
func TestIncrementalBrokenCopies(t *testing.T) {
	var missed []string
	caught := map[string]int{}
	var run string
	sim.SetCrossCheck(func(inv proto.Invariant, step int64, inc, whole error) {
		switch {
		case inc == nil && whole != nil:
			missed = append(missed, fmt.Sprintf("%s: %s at step %d: the incremental checker missed %v", run, inv.Name, step, whole))
		case whole != nil && !errors.Is(inc, proto.ErrFull):
			caught[inv.Name]++
		}
	})
	defer sim.SetCrossCheck(nil)
	defer sim.SetAfterStep(nil)
	seeds := 150
	if testing.Short() {
		seeds = 50
	}
	cases := []struct {
		algo    string
		crashes int
	}{
		{"opencube", 0}, {"opencube", 10}, {"naimi-trehel-ft", 0}, {"naimi-trehel-ft", 10},
		{"mishra-srimani", 0}, {"mishra-srimani", 10}, {"nishio", 0}, {"nishio", 10},
		{"suzuki-kasami", 0}, {"suzuki-kasami-bounded", 0}, {"naimi-trehel", 0}, {"raymond", 0},
		{"helary-plouzeau-raynal", 0}, {"helary-plouzeau-raynal-ring", 0}, {"ricart-agrawala-token", 0},
		{"carvalho-roucairol", 0}, {"singhal", 0}, {"singhal-token", 0},
	}
	for _, c := range cases {
		for seed := range uint64(seeds) {
			rng := rand.New(rand.NewPCG(seed, 37))
			at, steps := 20+rng.IntN(400), 0
			sim.SetAfterStep(func(n proto.Node) {
				if steps++; steps == at {
					breakField(n, rng)
				}
			})
			run = fmt.Sprintf("%s crashes=%d seed %d (broken at step %d)", c.algo, c.crashes, seed, at)
			s := bench.Spec{Algorithm: c.algo, Nodes: 8, Requests: 200, Workload: workload.Poisson, Seed: seed + 1, CSTime: 1,
				Check: bench.CheckFull, NoBaseline: true}
			if c.crashes > 0 {
				s.Faults = faults.FaultPlan{Crashes: c.crashes, Spacing: "exp", Every: 30, Down: 20, DownDist: "exp", Target: "random"}
			}
			func() {
				defer func() { _ = recover() }() // a broken node may make its algorithm panic
				_, _ = bench.Run(s)
			}()
		}
	}
	for _, m := range missed {
		t.Error(m)
	}
	t.Logf("violations found by both: %v", caught)
	for _, name := range []string{"a_tree", "properties 1-3", "nt_pointers", "held token", "token state", "links",
		"cs-holds-every-permission", "at-most-one-permission-per-pair", "staircase", "token_vectors"} {
		if caught[name] == 0 {
			t.Errorf("%s: no broken copy found (the test breaks nothing it checks)", name)
		}
	}
}

// breakField flips a bool or moves a number by one, in a field of n's
// state drawn by rng (unexported fields too: the node is a copy that is
// broken on purpose).
func breakField(n proto.Node, rng *rand.Rand) {
	var fields []reflect.Value
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			fields = append(fields, reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem())
		}
	}
	v := reflect.ValueOf(n)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return
	}
	walk(v.Elem())
	if len(fields) == 0 {
		return
	}
	f := fields[rng.IntN(len(fields))]
	switch f.Kind() {
	case reflect.Bool:
		f.SetBool(!f.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		f.SetInt(f.Int() + int64(1-2*rng.IntN(2)))
	default:
		f.SetUint(f.Uint() + 1)
	}
}
