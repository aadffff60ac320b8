package explore

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/algo/kofl"
	"github.com/ocbench/ocbench/algo/ricartagrawala"
	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/workload"
)

// fullAndReduced explores cfg in full and with the reduction (on every
// algorithm, its every-step invariants included) and requires the same
// verdict: a violation of the same check (the same words up to the first
// colon: mutual exclusion, the token, a deadlock, the invariant's name)
// or none, a step error or none, and the same limit, in no more states.
// It returns both results (nil where a step error ended the search). In
// -short mode a clean system whose full search passes 20,000 states is not
// reduced (red nil): the reduced search costs many times the full one.
func fullAndReduced(t *testing.T, name string, cfg Config) (full, red *Result) {
	t.Helper()
	run := func(reduce bool) (*Result, error) {
		c := cfg
		c.Reduce, c.ReduceEveryStep = reduce, reduce
		e, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		return e.Run()
	}
	full, ferr := run(false)
	if testing.Short() && ferr == nil && full.Violation == nil && full.States > 20_000 {
		return full, nil
	}
	red, rerr := run(true)
	var fse, rse *StepError
	if (ferr != nil && !errors.As(ferr, &fse)) || (rerr != nil && !errors.As(rerr, &rse)) {
		t.Fatalf("%s: %v; %v", name, ferr, rerr)
	}
	if (fse == nil) != (rse == nil) {
		t.Fatalf("%s: step error in full: %v; reduced: %v", name, ferr, rerr)
	}
	if fse != nil {
		if fse.At.kind != rse.At.kind || !strings.Contains(rerr.Error(), "panicked") != !strings.Contains(ferr.Error(), "panicked") {
			t.Errorf("%s: step error in full: %v; reduced: %v", name, ferr, rerr)
		}
		return nil, nil
	}
	what := func(r *Result) string {
		if r.Violation == nil {
			return ""
		}
		w, _, _ := strings.Cut(r.Violation.What, ":")
		return w
	}
	if what(full) != what(red) || (full.Limit == "") != (red.Limit == "") {
		t.Errorf("%s: full search: violation %q, limit %q; reduced: violation %q, limit %q",
			name, what(full), full.Limit, what(red), red.Limit)
	}
	if red.Limit == "" && full.Limit == "" && red.Violation == nil && red.States > full.States {
		t.Errorf("%s: the reduced search reached %d states, the full one %d", name, red.States, full.States)
	}
	if !red.Reduced {
		t.Errorf("%s: the reduction did not apply: %s", name, red.NoReduction)
	}
	return full, red
}

// TestReduceSameVerdict: on every registered algorithm the reduction
// applies to (untimed, not self-stabilizing) at N = 2 with two requests
// per node and at N = 3 with one, on the N = 4 systems whose full search
// is small (every node requesting), and on the broken copies (mutual
// exclusion, two tokens, a deadlock, a panicking node), the full and the
// reduced searches give the same verdicts and the same violations.
func TestReduceSameVerdict(t *testing.T) {
	type sys struct {
		name             string
		nodes, req, reqs int
	}
	var cases []sys
	for _, name := range algo.Names() {
		cases = append(cases, sys{name, 2, 2, 0})
		if !testing.Short() {
			cases = append(cases, sys{name, 3, 1, 0})
		}
	}
	if !testing.Short() {
		for _, name := range []string{"opencube", "centralized", "naimi-trehel", "naimi-trehel-ft", "raymond", "neilsen-mizuno", "kakugawa",
			"maekawa", "nishio", "mizuno-neilsen-rao", "helary-plouzeau-raynal-line", "suzuki-kasami"} {
			cases = append(cases, sys{name, 4, 1, 0})
		}
		cases = append(cases, sys{"ricart-agrawala", 4, 1, 3}, sys{"lamport", 4, 1, 2})
	}
	for _, c := range cases {
		if c.nodes == 3 {
			// N = 3 where the algorithm takes it: bench refuses it for
			// the algorithms that need a power of two.
			if _, err := (bench.Spec{Algorithm: c.name, Nodes: 3, Requests: 1, Seed: 1, Workload: workload.Sequential, CSTime: 1}).Resolve(); err != nil {
				continue
			}
		}
		a := benchAlgorithm(t, c.name, c.nodes)
		if _, stab := a.(proto.SelfStabilizingAlgorithm); stab || timedN4[c.name] {
			continue // timed: the reduction does not apply
		}
		if c.nodes == 3 && !algoTakes(a, 3) {
			continue
		}
		cfg := Config{Algorithm: a, Nodes: c.nodes, Requests: c.req, Requesters: c.reqs, MaxStates: 3_000_000}
		name := fmt.Sprintf("%s N=%d", c.name, c.nodes)
		full, red := fullAndReduced(t, name, cfg)
		if full.Violation != nil || full.Limit != "" {
			t.Errorf("%s: %+v: a registered algorithm must be clean", name, full)
		}
		if red == nil {
			t.Logf("%s: %d states in full; not reduced in -short", name, full.States)
			continue
		}
		t.Logf("%s: %d states in full, %d reduced (%d expanded by a persistent set, %d by the proviso)",
			name, full.States, red.States, red.ReducedStates, red.Provisos)
	}
	broken := []struct {
		name  string
		cfg   Config
		wants string
	}{
		{"broken ricart-agrawala N=2", Config{Algorithm: brokenRA{}, Nodes: 2, Requests: 1}, "critical section"},
		{"broken ricart-agrawala N=3", Config{Algorithm: brokenRA{}, Nodes: 3, Requests: 1}, "critical section"},
		{"broken ricart-agrawala N=4", Config{Algorithm: brokenRA{}, Nodes: 4, Requests: 1}, "critical section"},
		{"token copied, naimi-trehel N=3", Config{Algorithm: tokenCopier{lookup(t, "naimi-trehel")}, Nodes: 3, Requests: 1}, "token"},
		{"token copied, raymond N=4", Config{Algorithm: tokenCopier{lookup(t, "raymond")}, Nodes: 4, Requests: 1}, "token"},
		{"reply lost, ricart-agrawala N=3", Config{Algorithm: replyLoser{}, Nodes: 3, Requests: 1}, "deadlock"},
		{"panicking node N=3", Config{Algorithm: panicky{}, Nodes: 3, Requests: 1}, ""},
	}
	for _, b := range broken {
		b.cfg.MaxStates = 1 << 20
		full, red := fullAndReduced(t, b.name, b.cfg)
		if b.wants == "" {
			if full != nil {
				t.Errorf("%s: no step error", b.name)
			}
			continue
		}
		if full.Violation == nil || !strings.Contains(full.Violation.What, b.wants) {
			t.Fatalf("%s: %+v, want a violation of %q", b.name, full.Violation, b.wants)
		}
		t.Logf("%s: %q after %d steps in full (%d states), %d reduced (%d states)", b.name, full.Violation.What,
			len(full.Violation.Path), full.States, len(red.Violation.Path), red.States)
	}
}

// algoTakes reports whether a builds n nodes (some need a power of two).
func algoTakes(a proto.Algorithm, n int) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return len(a.NewNodes(n)) == n
}

// tokenCopier is a token-based algorithm whose nodes send every token
// twice: two tokens, which the explorer's token count catches.
type tokenCopier struct{ proto.Algorithm }

// Invariants implements proto.Algorithm: the algorithm's own read its
// node type; the explorer's token count is the check here.
func (tokenCopier) Invariants(bool) []proto.Invariant { return nil }

func (a tokenCopier) NewNodes(n int) []proto.Node {
	out := a.Algorithm.NewNodes(n)
	tok := proto.TokenType(a.MessageTypes())
	for i := range out {
		out[i] = &copierNode{out[i], tok}
	}
	return out
}

type copierNode struct {
	proto.Node
	tok proto.MsgType
}

func (c *copierNode) Step(in proto.Input, out *proto.Output) {
	first := len(out.Msgs)
	c.Node.Step(in, out)
	for k := first; k < len(out.Msgs); k++ {
		if out.Msgs[k].Type == c.tok {
			out.Msgs = append(out.Msgs, out.Msgs[k])
			return
		}
	}
}

// replyLoser is Ricart–Agrawala whose node 1 ignores the replies of node
// 0: it waits for ever, and once nothing is in flight that is a deadlock.
type replyLoser struct{ brokenRA }

func (replyLoser) NewNodes(n int) []proto.Node {
	out := ricartagrawala.Algorithm{}.NewNodes(n)
	out[1] = &loserNode{out[1]}
	return out
}

type loserNode struct{ proto.Node }

func (l *loserNode) Step(in proto.Input, out *proto.Output) {
	if in.Kind == proto.Receive && in.Msg.Type == ricartagrawala.Reply && in.Msg.From == 0 {
		return
	}
	l.Node.Step(in, out)
}

// TestReduceWorkers: with the reduction, the states, the transitions, the
// states expanded by a persistent set and by the proviso, the verdict and
// the run's length do not depend on the number of workers.
func TestReduceWorkers(t *testing.T) {
	cases := []Config{
		{Algorithm: lookup(t, "maekawa"), Nodes: 4, Requests: 1},
		{Algorithm: lookup(t, "ricart-agrawala"), Nodes: 3, Requests: 1},
		{Algorithm: brokenRA{}, Nodes: 3, Requests: 1},
	}
	for _, cfg := range cases {
		cfg.Reduce, cfg.ReduceEveryStep, cfg.MaxStates = true, true, 1<<22
		var want string
		for _, w := range []int{1, 2, 3} {
			cfg.Workers = w
			r := explored(t, cfg)
			steps := -1
			if r.Violation != nil {
				steps = len(r.Violation.Path)
			}
			got := fmt.Sprintf("%d states, %d transitions, depth %d, %d terminal, %d reduced, %d full, %d provisos, run %d",
				r.States, r.Transitions, r.Depth, r.Terminal, r.ReducedStates, r.FullStates, r.Provisos, steps)
			if w == 1 {
				want = got
				if r.ReducedStates == 0 {
					t.Errorf("%s: the reduction never applied", cfg.Algorithm.Name())
				}
			} else if got != want {
				t.Errorf("%s: %d workers: %s; 1 worker: %s", cfg.Algorithm.Name(), w, got, want)
			}
		}
		t.Logf("%s N=%d: %s", cfg.Algorithm.Name(), cfg.Nodes, want)
	}
}

// TestReduceApplies: the reduction takes a persistent set in some states
// (it is not vacuous), is on by default only where it is sound for every
// check (not for an algorithm's every-step invariants unless asked), and
// leaves timed runs alone.
func TestReduceApplies(t *testing.T) {
	res := explored(t, Config{Algorithm: lookup(t, "maekawa"), Nodes: 4, Requests: 1, MaxStates: 1 << 20, Reduce: true, ReduceEveryStep: true})
	if !res.Reduced || res.ReducedStates == 0 || res.Violation != nil || res.Limit != "" {
		t.Fatalf("maekawa N=4: %+v", res)
	}
	if r := explored(t, Config{Algorithm: lookup(t, "maekawa"), Nodes: 4, Requests: 1, MaxStates: 1 << 20, Reduce: true}); r.Reduced || r.NoReduction == "" {
		t.Fatalf("maekawa (every-step invariants) reduced without ReduceEveryStep: %+v", r)
	}
	if r := explored(t, Config{Algorithm: brokenRA{}, Nodes: 3, Requests: 1, MaxStates: 1 << 20, Reduce: true}); !r.Reduced {
		t.Fatalf("an algorithm without every-step invariants was not reduced: %s", r.NoReduction)
	}
	timed := explored(t, Config{Algorithm: lookup(t, "opencube"), Nodes: 4, Requests: 0, Crashes: 1, Ticks: 2, MinTicks: 1, CSTicks: 2,
		MaxStates: 1 << 20, Reduce: true, ReduceEveryStep: true})
	if timed.Reduced || timed.NoReduction == "" {
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

// TestStabilizationTie: from the zero configuration of n nodes (a power of
// two or not: the ring of ids at n = 3), with a time-out of one δ per node,
// the adversary that gives every tie to Root's timer keeps two CTokens for
// ever (unbounded); without ties (strict timers) the configuration is
// legitimate after one traversal, in round 1 + n: Root's wait (nothing in
// flight), then the CToken's n hops.
func TestStabilizationTie(t *testing.T) {
	a := kofl.SelfStabilizing{Algorithm: kofl.Algorithm{Config: kofl.Config{Ell: 1, K: 1, MaxSeq: 1, Timeout: 1}}}
	for _, n := range []int{2, 3, 4} {
		zero := func() ([]Configuration, error) {
			nodes := a.Nodes(n)
			c := Configuration{}
			for _, nd := range nodes {
				nd.SetLocal(kofl.Local{Need: 1})
				c.Nodes = append(c.Nodes, nd)
			}
			return []Configuration{c}, nil
		}
		for _, strict := range []bool{false, true} {
			e, err := New(Config{Algorithm: a, Nodes: n, Ticks: 2, MinTicks: 1, CSTicks: 2, StrictTimers: strict, MaxStates: 1 << 20, Initial: zero})
			if err != nil {
				t.Fatal(err)
			}
			st, err := e.Stabilization()
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case !strict && st.Unbounded == "":
				t.Errorf("N = %d, ties to the timer: bounded, %d rounds; want unbounded", n, st.Rounds)
			case strict && (st.Unbounded != "" || st.Rounds != 1+n || st.Events != 1):
				t.Errorf("N = %d, strict timers: %+v; want %d rounds, 1 traversal", n, st, 1+n)
			}
		}
	}
}

// TestStabilizationMemory: the worst-case search stops, INCOMPLETE, when
// its states would outgrow Config.MaxBytes, and reports its progress.
func TestStabilizationMemory(t *testing.T) {
	a := kofl.SelfStabilizing{Algorithm: kofl.Algorithm{Config: kofl.Config{Ell: 1, K: 1, MaxSeq: 1, Timeout: 2}}}
	calls := 0
	e, err := New(Config{Algorithm: a, Nodes: 2, Ticks: 2, MinTicks: 1, CSTicks: 2, MaxStates: 1 << 22, MaxBytes: 100 * stabStateBytes,
		Initial: koflIdle(a), StabProgress: func(int64) { calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	st, err := e.Stabilization()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.Limit, "memory budget") || st.States > 100 {
		t.Fatalf("a budget of 100 states: %+v; want INCOMPLETE at the memory budget", st)
	}
	if calls != 0 {
		t.Errorf("progress reported %d times under 2^20 states", calls)
	}
}
