package explore

import (
	"errors"
	"testing"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/workload"
)

// paperOpenCube is the open-cube with its failure protocol as §5 writes it,
// its tie-break read as its example's mechanism (two tokens in 15 strict steps).
func paperOpenCube(t testing.TB, n int) proto.Algorithm {
	t.Helper()
	plan, err := bench.Spec{Algorithm: "opencube", Nodes: n, Requests: 1, Seed: 1, Workload: workload.Sequential,
		CSTime: bench.DefaultCSTime, FT: true, Protocol: bench.ProtocolPaperMechanism}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return plan.Algorithm
}

// outcome is what must not depend on the number of workers.
type outcome struct {
	states, transitions, terminal int64
	depth                         int
	limit                         bool
	violation, stepErr            string
	steps                         int
}

func searched(t *testing.T, cfg Config) outcome {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run()
	var se *StepError
	if errors.As(err, &se) {
		return outcome{stepErr: se.Err.Error(), steps: len(se.Path)}
	}
	if err != nil {
		t.Fatal(err)
	}
	o := outcome{states: res.States, transitions: res.Transitions, terminal: res.Terminal, depth: res.Depth, limit: res.Limit != ""}
	if v := res.Violation; v != nil {
		o.violation, o.steps = v.What, len(v.Path)
		// The run replays to a state that breaks the check (Run replays
		// it; an empty run would mean an initial state).
		if len(v.Path) == 0 {
			t.Errorf("%s: a violation with an empty run", cfg.Algorithm.Name())
		}
	}
	if res.Workers != cfg.Workers {
		t.Errorf("%s: %d workers ran, %d asked", cfg.Algorithm.Name(), res.Workers, cfg.Workers)
	}
	return o
}

// TestWorkers: the states counted, the transitions, the depth, the verdict
// and the length of the shortest run to a violation are the same with 1,
// 2, 3 and 8 workers, on clean systems, broken ones (a violation of mutual
// exclusion, two tokens after a crash, a node that panics) and a search
// stopped by its state limit.
func TestWorkers(t *testing.T) {
	cases := []struct {
		name      string
		cfg       Config
		violation bool
	}{
		{"broken copy N=3", Config{Algorithm: brokenRA{}, Nodes: 3, Requests: 1, MaxStates: 1 << 20}, true},
		{"ricart-agrawala N=3", Config{Algorithm: lookup(t, "ricart-agrawala"), Nodes: 3, Requests: 1, MaxStates: 1 << 20}, false},
		{"naimi-trehel N=4", Config{Algorithm: benchAlgorithm(t, "naimi-trehel", 4), Nodes: 4, Requests: 1, MaxStates: 1 << 20}, false},
		{"suzuki-kasami N=2 R=2", Config{Algorithm: benchAlgorithm(t, "suzuki-kasami", 2), Nodes: 2, Requests: 2, MaxStates: 1 << 20}, false},
		{"opencube paper N=4 crash strict", Config{Algorithm: paperOpenCube(t, 4), Nodes: 4, Requests: 1, Requesters: 2, Crashes: 1,
			Ticks: 2, MinTicks: 1, CSTicks: 2, StrictTimers: true, MaxStates: 1 << 20}, true},
		{"raymond N=4 limit", Config{Algorithm: benchAlgorithm(t, "raymond", 4), Nodes: 4, Requests: 1, MaxStates: 500}, false},
		{"panicky N=2", Config{Algorithm: panicky{}, Nodes: 2, Requests: 1, MaxStates: 1 << 16}, true},
	}
	for _, c := range cases {
		var want outcome
		for _, w := range []int{1, 2, 3, 8} {
			cfg := c.cfg
			cfg.Workers = w
			got := searched(t, cfg)
			if w == 1 {
				want = got
				if (got.violation != "" || got.stepErr != "") != c.violation {
					t.Fatalf("%s: %+v, want a violation: %v", c.name, got, c.violation)
				}
				if !c.violation && !got.limit {
					// A complete search counts what a plain
					// one-goroutine search keeping whole states counts.
					ref := referenceSearch(t, cfg)
					if ref.states != got.states || ref.transitions != got.transitions || ref.depth != got.depth || ref.terminal != got.terminal {
						t.Errorf("%s: %+v; the reference search: %+v", c.name, got, ref)
					}
				}
				continue
			}
			if got.limit {
				// Which states a limit leaves reached depends on the
				// workers' order; their number does not.
				got.transitions, got.terminal, want.transitions, want.terminal = 0, 0, 0, 0
			}
			if got != want {
				t.Errorf("%s: %d workers: %+v; 1 worker: %+v", c.name, w, got, want)
			}
		}
		t.Logf("%s: %+v", c.name, want)
	}
}

// TestExactSameAsFingerprints: the search that keeps whole encodings and
// the one that keeps 64-bit fingerprints reach the same number of states
// with the same verdict, on every registered algorithm at N = 2 (two
// requests per node) and on N = 4 systems: no collision hid a state, as
// the probability printed (below 10^−6 here) says to expect.
func TestExactSameAsFingerprints(t *testing.T) {
	type sys struct {
		name       string
		nodes, req int
	}
	var cases []sys
	for _, name := range algo.Names() {
		cases = append(cases, sys{name, 2, 2})
	}
	if !testing.Short() {
		for _, name := range []string{"opencube", "naimi-trehel", "raymond", "maekawa", "suzuki-kasami"} {
			cases = append(cases, sys{name, 4, 1})
		}
	}
	for _, c := range cases {
		a := benchAlgorithm(t, c.name, c.nodes)
		cfg := Config{Algorithm: a, Nodes: c.nodes, Requests: c.req, MaxStates: 1_000_000, Workers: 2}
		if _, stab := a.(proto.SelfStabilizingAlgorithm); stab || timedN4[c.name] {
			cfg.Ticks, cfg.MinTicks, cfg.CSTicks, cfg.MaxStates = 2, 1, 2, 100_000
		}
		fp := explored(t, cfg)
		cfg.Store = StoreExact
		ex := explored(t, cfg)
		if fp.States != ex.States || (fp.Limit == "" && fp.Transitions != ex.Transitions) || (fp.Violation == nil) != (ex.Violation == nil) || (fp.Limit == "") != (ex.Limit == "") {
			t.Errorf("%s N=%d: fingerprints %d states, %d transitions, violation %v, limit %q; exact %d, %d, %v, %q",
				c.name, c.nodes, fp.States, fp.Transitions, fp.Violation, fp.Limit, ex.States, ex.Transitions, ex.Violation, ex.Limit)
		}
		if fp.Exact || !ex.Exact || ex.Collision != 0 || fp.Collision <= 0 || fp.Collision > 1e-6 {
			t.Errorf("%s N=%d: exact %v/%v, collision probability %g/%g", c.name, c.nodes, fp.Exact, ex.Exact, fp.Collision, ex.Collision)
		}
		if fp.BytesPerState >= ex.BytesPerState {
			t.Errorf("%s N=%d: %.1f B a state with fingerprints, %.1f exact", c.name, c.nodes, fp.BytesPerState, ex.BytesPerState)
		}
	}
}

// TestStores: the compact store finds what the fast one does — the same
// states, transitions, depth, verdict and length of the shortest run, on 1
// and 2 workers, clean systems and broken copies — at fewer bytes a state
// from a million states on; auto chooses it when the state limit's states
// could outgrow the memory share in the fast store.
func TestStores(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
	}{
		{"broken copy N=3", Config{Algorithm: brokenRA{}, Nodes: 3, Requests: 1}},
		{"two tokens N=4", Config{Algorithm: tokenCopier{benchAlgorithm(t, "naimi-trehel", 4)}, Nodes: 4, Requests: 1}},
		{"raymond N=4 limit", Config{Algorithm: benchAlgorithm(t, "raymond", 4), Nodes: 4, Requests: 1, MaxStates: 500}},
		{"ricart-agrawala N=3", Config{Algorithm: lookup(t, "ricart-agrawala"), Nodes: 3, Requests: 1}},
		{"opencube paper N=4 crash", Config{Algorithm: paperOpenCube(t, 4), Nodes: 4, Requests: 1, Crashes: 1,
			Ticks: 2, MinTicks: 1, CSTicks: 2}},
	}
	if !testing.Short() {
		cases = append(cases, struct {
			name string
			cfg  Config
		}{"ricart-agrawala N=4", Config{Algorithm: lookup(t, "ricart-agrawala"), Nodes: 4, Requests: 1}})
	}
	for _, c := range cases {
		for _, w := range []int{1, 2} {
			cfg := c.cfg
			cfg.Workers, cfg.Store = w, StoreFast
			if cfg.MaxStates == 0 {
				cfg.MaxStates = 1 << 30
			}
			want := searched(t, cfg)
			fast := explored(t, cfg)
			cfg.Store = StoreCompact
			got := searched(t, cfg)
			res := explored(t, cfg)
			switch {
			case got != want:
				t.Errorf("%s, %d worker(s): %+v compact, %+v fast", c.name, w, got, want)
			case !res.Compact || fast.Compact || res.Collision != fast.Collision:
				t.Errorf("%s, %d worker(s): compact %v/%v, collision %g/%g", c.name, w, res.Compact, fast.Compact, res.Collision, fast.Collision)
			case res.States > 1_000_000 && (res.BytesPerState > 8 || res.BytesPerState >= fast.BytesPerState):
				t.Errorf("%s, %d worker(s): %.1f B a state compact, %.1f fast", c.name, w, res.BytesPerState, fast.BytesPerState)
			default:
				t.Logf("%s, %d worker(s): %d states, %.1f B a state compact, %.1f fast", c.name, w, res.States, res.BytesPerState, fast.BytesPerState)
			}
		}
	}
	for _, c := range []struct {
		store     Store
		maxStates int64
		maxBytes  int64
		want      bool
	}{
		{StoreAuto, 1000, 0, false},
		{StoreAuto, 1000, 21334, false},
		{StoreAuto, 1000, 21333, true},
		{StoreFast, 1000, 1, false},
		{StoreCompact, 1000, 0, true},
		{StoreExact, 1000, 1, false},
	} {
		cfg := Config{Store: c.store, MaxStates: c.maxStates, MaxBytes: c.maxBytes}
		if got := cfg.compact(); got != c.want {
			t.Errorf("store %d, %d states in %d B: compact %v, want %v", c.store, c.maxStates, c.maxBytes, got, c.want)
		}
	}
}

// TestCollision: the bound n²/2^65 at known points.
func TestCollision(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want float64
	}{{0, 0}, {1, 0}, {2, 1 / float64(1<<62) / 4}, {1 << 32, 0.5 * (1 - 1/float64(1<<32))}} {
		if got := Collision(c.n); got != c.want {
			t.Errorf("Collision(%d) = %g, want %g", c.n, got, c.want)
		}
	}
}
