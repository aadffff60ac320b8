package explore

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/algo/lamport"
	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/workload"
)

// reachableSet is every state a plain breadth-first search of e reaches
// (whole encodings, in e's tables), with what e's checks say of each.
func reachableSet(t *testing.T, e *Explorer) map[string]string {
	t.Helper()
	inits, err := e.initial()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	var cur, next [][]byte
	var s, c sys
	add := func(x *sys) {
		b := appendState(nil, x)
		if _, ok := seen[string(b)]; !ok {
			seen[string(b)] = e.check(x)
			next = append(next, b)
		}
	}
	for _, s := range inits {
		e.legitimate(s)
		add(s)
	}
	for cur, next = next, nil; len(cur) > 0; cur, next = next, cur[:0] {
		for _, enc := range cur {
			if !e.readState(enc, &s) {
				t.Fatal(errCorrupt)
			}
			if err := e.decodeNodes(&s); err != nil {
				t.Fatal(err)
			}
			for _, a := range e.actions(&s, nil) {
				if err := e.apply(&s, a, &c, nil); err != nil {
					t.Fatal(err)
				}
				e.legitimate(&c)
				add(&c)
			}
		}
	}
	return seen
}

// forgetMismatch searches cfg's system in full and with forgetting, in one
// explorer (so that the encodings compare), and returns where the second
// is not the first with the algorithm's values forgotten: a state of one
// without its image in the other, or a check that says another thing of a
// state and of its image. It returns the two searches' sizes.
func forgetMismatch(t *testing.T, cfg Config) (full, forgot int, mismatch string) {
	t.Helper()
	cfg.Forget = true
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !e.forgets {
		t.Fatalf("%s: the explorer does not forget (%s)", cfg.Algorithm.Name(), e.noForget)
	}
	e.forgets = false
	all := reachableSet(t, e)
	e.forgets = true
	reduced := reachableSet(t, e)
	image := map[string]bool{}
	var s sys
	for enc, verdict := range all {
		if !e.readState([]byte(enc), &s) {
			t.Fatal(errCorrupt)
		}
		if err := e.decodeNodes(&s); err != nil {
			t.Fatal(err)
		}
		if e.final(&s) {
			if err := e.forget(&s); err != nil {
				return len(all), len(reduced), err.Error()
			}
		}
		b := string(appendState(nil, &s))
		image[b] = true
		got, ok := reduced[b]
		switch {
		case !ok:
			return len(all), len(reduced), "a reachable state's image is not reached with forgetting"
		case got != verdict:
			return len(all), len(reduced), fmt.Sprintf("checks differ: %q in full, %q with forgetting", verdict, got)
		}
	}
	for b := range reduced {
		if !image[b] {
			return len(all), len(reduced), "a state reached with forgetting is the image of no reachable state"
		}
	}
	return len(all), len(reduced), ""
}

// forgetSystems are the systems TestForgetExact searches for each
// algorithm that declares forgetting: N, requests per node, requesters
// (0: every node); each small enough to search in full with every state
// kept whole.
var forgetSystems = []struct{ nodes, requests, requesters int }{
	{2, 1, 0}, {2, 2, 0}, {2, 3, 0}, {4, 1, 2}, {4, 2, 2}, {4, 1, 0},
}

// forgetMaxStates bounds the systems TestForgetExact searches: a larger
// one is left out (with -short, above a tenth of it).
const forgetMaxStates = 1_000_000

// TestForgetExact: with forgetting, the states reached are exactly the
// reachable states with the declared values forgotten, and every check
// says the same of a state and of its image — so the verdicts are the
// same — for every registered algorithm that declares forgetting, on
// systems small enough to search in full here; and the parallel search
// counts those states on 1 and 2 workers.
func TestForgetExact(t *testing.T) {
	declaring := 0
	for _, name := range algo.Names() {
		a := benchAlgorithm(t, name, 4)
		if _, ok := a.NewNodes(4)[0].(proto.Forgetter); !ok {
			continue
		}
		declaring++
		smaller := false
		for _, c := range forgetSystems {
			plan, err := bench.Spec{Algorithm: name, Nodes: c.nodes, Requests: 1, Seed: 1, Workload: workload.Sequential, CSTime: 1}.Resolve()
			if err != nil {
				continue // the algorithm does not take N
			}
			cfg := Config{Algorithm: plan.Algorithm, Nodes: c.nodes, Requests: c.requests, Requesters: c.requesters, MaxStates: 10_000_000}
			what := fmt.Sprintf("%s N=%d, %d request(s), %d requesters", name, c.nodes, c.requests, c.requesters)
			probe := cfg
			probe.MaxStates = forgetMaxStates
			if testing.Short() {
				probe.MaxStates /= 10
			}
			if explored(t, probe).Limit != "" {
				t.Logf("%s: more than %d states, left out", what, probe.MaxStates)
				continue
			}
			full, forgot, bad := forgetMismatch(t, cfg)
			switch {
			case bad != "":
				t.Errorf("%s: %s (%d states, %d forgetting)", what, bad, full, forgot)
			default:
				smaller = smaller || forgot < full
				t.Logf("%s: %d states in full, %d forgetting", what, full, forgot)
			}
			for _, w := range []int{1, 2} {
				cfg.Forget, cfg.Workers = true, w
				if res := explored(t, cfg); res.States != int64(forgot) || !res.Forgot || res.Violation != nil || res.Limit != "" {
					t.Errorf("%s, %d workers: the search forgetting counts %d states (forgot %v, %v, %q), the plain one %d",
						what, w, res.States, res.Forgot, res.Violation, res.Limit, forgot)
				}
			}
		}
		if !smaller {
			t.Errorf("%s: forgetting reached as many states as the full search in every system", name)
		}
	}
	if declaring < 2 {
		t.Errorf("%d registered algorithms declare forgetting", declaring)
	}
}

// wrongStamps declares lamport's request stamps forgettable: they are the
// requests' timestamps, which decide who enters first.
type wrongStamps struct{ lamport.Algorithm }

func (wrongStamps) ForgetMessage(m *proto.Message) { m.Stamp = 0 }

// TestForgetWrongDeclaration: a declaration that forgets what matters is
// caught — by TestForgetExact's comparison (a request's timestamp), or by
// the search itself (a node's view).
func TestForgetWrongDeclaration(t *testing.T) {
	cfg := Config{Algorithm: wrongStamps{}, Nodes: 4, Requests: 1, Requesters: 2, MaxStates: 10_000_000}
	if _, _, bad := forgetMismatch(t, cfg); bad == "" {
		t.Error("forgetting the requests' stamps: the comparison found nothing wrong")
	} else {
		t.Logf("forgetting the requests' stamps: %s", bad)
	}
	e, err := New(Config{Algorithm: forgetfulRing{}, Nodes: 3, Requests: 1, MaxStates: 100_000, Forget: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Run()
	var se *StepError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "changed node") {
		t.Errorf("a Forget that changes the view: %v, want a step error", err)
	}
}

// forgetfulRing is the known answer's token ring with a Forget that
// clears the node's view: not allowed.
type forgetfulRing struct{ ring }

type forgetfulRingNode struct{ *ringNode }

func (r *forgetfulRingNode) Forget() { r.v = proto.View{} }

func (forgetfulRing) NewNodes(n int) []proto.Node {
	nodes := ring{}.NewNodes(n)
	for i, nd := range nodes {
		if rn, ok := nd.(*ringNode); ok {
			nodes[i] = &forgetfulRingNode{rn}
		}
	}
	return nodes
}

// lateCS is lamport with one more invariant, false of a real run: no
// node is in the critical section once every request is issued.
type lateCS struct{ lamport.Algorithm }

func (a lateCS) Invariants(crashes bool) []proto.Invariant {
	return append(a.Algorithm.Invariants(crashes), proto.Invariant{Name: "late_cs", When: proto.EveryStep, Check: func(s proto.System) error {
		for _, n := range s.Nodes() {
			if !n.View().Asked && !n.View().InCS {
				return nil
			}
		}
		for i, n := range s.Nodes() {
			if n.View().InCS {
				return fmt.Errorf("late_cs: node %d is in the critical section and every node asks", i)
			}
		}
		return nil
	}})
}

// TestForgetViolation: a violation after the last request is found with
// forgetting, its run as short as in full, and the run printed is the
// real one (its replies carry real stamps, not the forgotten one).
func TestForgetViolation(t *testing.T) {
	for _, workers := range []int{1, 2} {
		var runs [2]*Result
		for k, forget := range []bool{false, true} {
			e, err := New(Config{Algorithm: lateCS{}, Nodes: 4, Requests: 1, MaxStates: 10_000_000, Forget: forget, Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			res, err := e.Run()
			if err != nil {
				t.Fatal(err)
			}
			if res.Violation == nil || !strings.HasPrefix(res.Violation.What, "late_cs") || res.Forgot != forget {
				t.Fatalf("forget %v, %d workers: violation %v, forgot %v", forget, workers, res.Violation, res.Forgot)
			}
			runs[k] = res
		}
		full, forgot := runs[0].Violation.Path, runs[1].Violation.Path
		if len(full) != len(forgot) {
			t.Errorf("%d workers: the run to the violation takes %d steps in full, %d forgetting", workers, len(full), len(forgot))
		}
		replies := 0
		for _, st := range forgot {
			for _, m := range append([]proto.Message{st.Msg}, st.Sent...) {
				if m.Type == lamport.Reply && m.From != m.To {
					replies++
					if m.Stamp == ^uint64(0) {
						t.Fatalf("%d workers: the run printed carries a forgotten stamp: %+v", workers, m)
					}
				}
			}
		}
		if replies == 0 {
			t.Errorf("%d workers: no reply in the run printed", workers)
		}
		if runs[1].States >= runs[0].States {
			t.Errorf("%d workers: %d states forgetting, %d in full", workers, runs[1].States, runs[0].States)
		}
	}
}
