package explore

import (
	"strings"
	"testing"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/algo/kofl"
	"github.com/ocbench/ocbench/proto"
)

// TestReduceSameVerdict: for every registered algorithm at N = 2 (two
// requests per node) and for N = 4 systems whose full search is small,
// the reduced search gives the verdict of the full one, in no more states.
func TestReduceSameVerdict(t *testing.T) {
	type sys struct {
		name             string
		nodes, req, reqs int
	}
	var cases []sys
	for _, name := range algo.Names() {
		cases = append(cases, sys{name, 2, 2, 0})
	}
	if !testing.Short() {
		for _, name := range []string{"opencube", "naimi-trehel", "raymond", "kakugawa", "maekawa", "nishio", "mizuno-neilsen-rao"} {
			cases = append(cases, sys{name, 4, 1, 0})
		}
		cases = append(cases, sys{"ricart-agrawala", 4, 1, 3}, sys{"lamport", 4, 1, 2})
	}
	for _, c := range cases {
		a := benchAlgorithm(t, c.name, c.nodes)
		cfg := Config{Algorithm: a, Nodes: c.nodes, Requests: c.req, Requesters: c.reqs, MaxStates: 3_000_000}
		if _, stab := a.(proto.SelfStabilizingAlgorithm); stab || timedN4[c.name] {
			continue // timed: the reduction does not apply
		}
		full := explored(t, cfg)
		cfg.Reduce = true
		red := explored(t, cfg)
		if (full.Violation == nil) != (red.Violation == nil) || (full.Limit == "") != (red.Limit == "") {
			t.Errorf("%s N=%d: full search: violation %v, limit %q; reduced: violation %v, limit %q",
				c.name, c.nodes, full.Violation, full.Limit, red.Violation, red.Limit)
		}
		if red.Limit == "" && red.States > full.States {
			t.Errorf("%s N=%d: the reduced search reached %d states, the full one %d", c.name, c.nodes, red.States, full.States)
		}
		t.Logf("%s N=%d: %d states in full, %d reduced (%d expanded by a persistent set)", c.name, c.nodes, full.States, red.States, red.ReducedStates)
	}
}

// TestReduceBrokenCopy: the reduced search still finds the broken copy's
// violation, with a run no longer than the known one.
func TestReduceBrokenCopy(t *testing.T) {
	for _, n := range []int{2, 3} {
		known := 2 + 4*(n-1)
		res := explored(t, Config{Algorithm: brokenRA{}, Nodes: n, Requests: 1, MaxStates: 1 << 20, Reduce: true})
		if res.Violation == nil {
			t.Fatalf("N=%d: the reduced search found no violation (%d states)", n, res.States)
		}
		if len(res.Violation.Path) > known || !strings.Contains(res.Violation.What, "critical section") {
			t.Errorf("N=%d: %q after %d steps, want mutual exclusion within %d", n, res.Violation.What, len(res.Violation.Path), known)
		}
	}
}

// TestReduceApplies: the reduction takes a persistent set in some states
// (it is not vacuous) and leaves timed runs alone.
func TestReduceApplies(t *testing.T) {
	res := explored(t, Config{Algorithm: lookup(t, "maekawa"), Nodes: 4, Requests: 1, MaxStates: 1 << 20, Reduce: true})
	if !res.Reduced || res.ReducedStates == 0 || res.Violation != nil || res.Limit != "" {
		t.Fatalf("maekawa N=4: %+v", res)
	}
	timed := explored(t, Config{Algorithm: lookup(t, "opencube"), Nodes: 4, Requests: 0, Crashes: 1, Ticks: 2, MinTicks: 1, CSTicks: 2,
		MaxStates: 1 << 20, Reduce: true})
	if timed.Reduced {
		t.Fatal("the reduction was on in a timed run with crashes")
	}
}

// koflIdle returns kofl's configurations of two nodes with every MySeq,
// MyOrder and Root's C_f, nothing held and nothing in flight.
func koflIdle(a kofl.SelfStabilizing) func() ([]Configuration, error) {
	return func() ([]Configuration, error) {
		var out []Configuration
		for seq0 := range uint64(2) {
			for seq1 := range uint64(2) {
				for cf := range 3 {
					for _, ord := range []bool{false, true} {
						nodes := a.Nodes(2)
						nodes[0].SetLocal(kofl.Local{Need: 1, MySeq: seq0, Cf: cf, MyOrder: ord})
						nodes[1].SetLocal(kofl.Local{Need: 1, MySeq: seq1})
						out = append(out, Configuration{Nodes: []proto.Node{nodes[0], nodes[1]}})
					}
				}
			}
		}
		return out, nil
	}
}

// TestStabilization: kofl's worst case over a small set of initial
// configurations is found, bounded, and at least the two traversals
// every run needs; and kofl's space from its own initial configuration is
// finite (its timers renamed).
func TestStabilization(t *testing.T) {
	a := kofl.SelfStabilizing{Algorithm: kofl.Algorithm{Config: kofl.Config{Ell: 1, K: 1, MaxSeq: 1, Timeout: 2}}}
	cfg := Config{Algorithm: a, Nodes: 2, Requests: 0, Ticks: 2, MinTicks: 1, CSTicks: 2, MaxStates: 1 << 22, Initial: koflIdle(a)}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := e.Stabilization()
	if err != nil {
		t.Fatal(err)
	}
	if st.Unbounded != "" || st.Limit != "" || st.Configurations != 24 {
		t.Fatalf("%+v", st)
	}
	// Root waits for its time-out with nothing in flight (one round),
	// then each traversal takes two rounds (two hops), and the first one
	// counts what the fault left (C_f up to 2 > ℓ): two traversals at least.
	if st.Events < 2 || st.Rounds < 1+2 || st.Rounds > 100 {
		t.Fatalf("worst case %d rounds, %d traversals: implausible", st.Rounds, st.Events)
	}
	t.Logf("%d configurations, %d states: %d rounds, %d traversals", st.Configurations, st.States, st.Rounds, st.Events)
	res := explored(t, Config{Algorithm: a, Nodes: 2, Requests: 1, Ticks: 2, MinTicks: 1, CSTicks: 2, MaxStates: 1 << 22})
	if res.Limit != "" || res.Violation != nil {
		t.Fatalf("kofl N=2 from its initial configuration: %+v", res)
	}
}

// TestStabilizationTie: from the zero configuration of two nodes, with a
// time-out of one δ per node, the adversary that gives every tie to Root's
// timer keeps two CTokens for ever (unbounded); without ties (strict
// timers) the configuration is legitimate after one traversal, in the
// third round: Root's wait (nothing in flight), the CToken's two hops.
func TestStabilizationTie(t *testing.T) {
	a := kofl.SelfStabilizing{Algorithm: kofl.Algorithm{Config: kofl.Config{Ell: 1, K: 1, MaxSeq: 1, Timeout: 1}}}
	zero := func() ([]Configuration, error) {
		nodes := a.Nodes(2)
		nodes[0].SetLocal(kofl.Local{Need: 1})
		nodes[1].SetLocal(kofl.Local{Need: 1})
		return []Configuration{{Nodes: []proto.Node{nodes[0], nodes[1]}}}, nil
	}
	for _, strict := range []bool{false, true} {
		e, err := New(Config{Algorithm: a, Nodes: 2, Ticks: 2, MinTicks: 1, CSTicks: 2, StrictTimers: strict, MaxStates: 1 << 20, Initial: zero})
		if err != nil {
			t.Fatal(err)
		}
		st, err := e.Stabilization()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case !strict && st.Unbounded == "":
			t.Errorf("ties to the timer: bounded, %d rounds; want unbounded", st.Rounds)
		case strict && (st.Unbounded != "" || st.Rounds != 3 || st.Events != 1):
			t.Errorf("strict timers: %+v; want 3 rounds, 1 traversal", st)
		}
	}
}
