package sim_test

import (
	"strings"
	"testing"

	"github.com/ocbench/ocbench/opencube"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
	"github.com/ocbench/ocbench/sim"
)

// The invariants of the tests: the general scheme's a_tree (its Properties
// 1–3 are tested in package scheme: the hand-written states below need not
// satisfy them) and the open-cube's (a_tree, and the shape when quiet and at
// the end), without and with crashes.
var (
	cubeTypes       = opencube.Algorithm{}.MessageTypes()
	treeChecks      = []proto.Invariant{scheme.ATreeInvariant}
	cubeChecks      = opencube.Algorithm{}.Invariants(false)
	cubeCrashChecks = opencube.Algorithm{}.Invariants(true)
)

// The tests below show that each invariant check of the simulator fires on
// a state that breaks it and stays quiet on a valid one. The states are
// written by hand into fake nodes (fake_test.go), so a check that stops
// firing, or starts firing on a valid state, fails here and not only in a
// seed sweep of a real algorithm.

// TestViolationReport checks what Run returns on a violation: a
// *sim.Violation with the seed, step and time that replay it, and that the
// run stops there.
func TestViolationReport(t *testing.T) {
	fs := system(2)
	s := sim.New(sim.Config{Types: cubeTypes, Delta: 1, Seed: 42}, nodes(fs), sim.Hooks{})
	s.Input(0, 0, proto.EnterCS, 1)
	s.Input(0.5, 1, proto.EnterCS, 2)
	later := false
	s.After(1, func() { later = true })
	err := s.Run()
	v := wantErr(t, err, "2 nodes are in the critical section (after node 1's step)")
	if v.Seed != 42 || v.Step != 2 || v.Time != 0.5 {
		t.Errorf("violation at seed %d, step %d, t=%g; want seed 42, step 2, t=0.5", v.Seed, v.Step, v.Time)
	}
	if want := "invariant violated at step 2 (t=0.500000s, seed 42): 2 nodes are in the critical section (after node 1's step)"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	if later || s.Stats.Steps != 2 {
		t.Errorf("the run went on after the violation (callback run: %v, steps: %d)", later, s.Stats.Steps)
	}
	if s.Err() != err {
		t.Errorf("Err() = %v, want the error Run returned", s.Err())
	}
}

// TestSendToNoSuchNode checks that a message to an id outside the system is
// a violation rather than a crash of the simulator, and that the last id is
// inside it.
func TestSendToNoSuchNode(t *testing.T) {
	for _, c := range []struct {
		to   proto.NodeID
		want string
	}{
		{1, ""},
		{2, "node 0 sent a wait message to a node that does not exist (2)"},
		{proto.Nil, "node 0 sent a wait message to a node that does not exist (-1)"},
	} {
		fs := system(2)
		_, err := snapshot(sim.Config{Types: cubeTypes}, fs, 0, proto.Message{Type: opencube.Wait, From: 0, To: c.to})
		wantErr(t, err, c.want)
	}
}

// TestCriticalSection checks "at most one node in the critical section".
func TestCriticalSection(t *testing.T) {
	type in struct {
		t    float64
		node proto.NodeID
		kind proto.InputKind
	}
	cases := []struct {
		name    string
		crashes bool
		inputs  []in
		want    string
		steps   int64 // of the violation
	}{
		{name: "one after the other", inputs: []in{{0, 0, proto.EnterCS}, {1, 0, proto.ExitCS}, {2, 1, proto.EnterCS}, {3, 1, proto.ExitCS}, {4, 2, proto.EnterCS}}},
		{name: "exit and enter at the same instant, exit first", inputs: []in{{0, 0, proto.EnterCS}, {1, 0, proto.ExitCS}, {1, 1, proto.EnterCS}}},
		{name: "second node enters while the first is in", inputs: []in{{0, 0, proto.EnterCS}, {1, 1, proto.EnterCS}},
			want: "2 nodes are in the critical section (after node 1's step)", steps: 2},
		{name: "enter and exit at the same instant, enter first", inputs: []in{{0, 0, proto.EnterCS}, {1, 1, proto.EnterCS}, {1, 0, proto.ExitCS}},
			want: "2 nodes are in the critical section (after node 1's step)", steps: 2},
		{name: "third node enters after one of two left", inputs: []in{{0, 0, proto.EnterCS}, {1, 0, proto.ExitCS}, {2, 1, proto.EnterCS}, {3, 2, proto.EnterCS}},
			want: "2 nodes are in the critical section (after node 2's step)", steps: 4},
		{name: "a node that crashed in the critical section is not in it", crashes: true,
			inputs: []in{{0, 1, proto.EnterCS}, {1, 1, proto.Crash}, {2, 2, proto.EnterCS}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := system(3)
			entered := 0
			s := sim.New(sim.Config{Types: cubeTypes, Delta: 1, Crashes: c.crashes}, nodes(fs), sim.Hooks{
				Enter: func(proto.NodeID, uint32) { entered++ },
			})
			for k, x := range c.inputs {
				s.Input(x.t, x.node, x.kind, uint32(k+1))
			}
			v := wantErr(t, s.Run(), c.want)
			if v != nil && v.Step != c.steps {
				t.Errorf("violation at step %d, want %d", v.Step, c.steps)
			}
			if v == nil {
				want := 0
				for _, x := range c.inputs {
					if x.kind == proto.EnterCS {
						want++
					}
				}
				if entered != want {
					t.Errorf("Enter hook called %d times, want %d", entered, want)
				}
			}
		})
	}
}

// TestTokenCount checks "exactly one token, held or in flight", and with
// Crashes "at most one live token": held by a live node, or in flight to a
// live node whose generation is not above the token's.
func TestTokenCount(t *testing.T) {
	pass := func(to proto.NodeID) func(f *fake, out *proto.Output) {
		return func(f *fake, out *proto.Output) {
			f.v.TokenHere = false
			out.Msgs = append(out.Msgs, token(f.id, to, proto.Nil, f.v.Gen))
		}
	}
	regenerate := func(f *fake, _ *proto.Output) { f.v.TokenHere, f.v.Gen = true, 1 }
	cases := []struct {
		name    string
		crashes bool
		init    func(fs []*fake) // the initial views, before New
		run     func(fs []*fake, s *sim.Sim)
		want    string
		step    int64
	}{
		{name: "token passed from node to node", run: func(fs []*fake, s *sim.Sim) {
			poke(s, 0, fs[0], pass(1))
			poke(s, 2, fs[1], pass(2))
			poke(s, 4, fs[2], pass(0))
		}},
		{name: "holder sends a token and keeps one", run: func(fs []*fake, s *sim.Sim) {
			poke(s, 0, fs[0], func(f *fake, out *proto.Output) {
				out.Msgs = append(out.Msgs, token(0, 1, proto.Nil, 0))
			})
		}, want: "2 tokens exist (1 held, 1 in flight) after node 0's step", step: 1},
		{name: "a node sends a second token while one is in flight", run: func(fs []*fake, s *sim.Sim) {
			poke(s, 0, fs[0], pass(1))
			poke(s, 0, fs[2], func(f *fake, out *proto.Output) {
				out.Msgs = append(out.Msgs, token(2, 1, proto.Nil, 0))
			})
		}, want: "2 tokens exist (0 held, 2 in flight) after node 2's step", step: 2},
		{name: "two holders from the start", init: func(fs []*fake) { fs[2].v.TokenHere = true },
			run:  func(fs []*fake, s *sim.Sim) { s.Input(0, 1, proto.ExitCS, 0) },
			want: "2 tokens exist (2 held, 0 in flight) after node 1's step", step: 1},
		{name: "no token from the start", init: func(fs []*fake) { fs[0].v.TokenHere = false },
			run:  func(fs []*fake, s *sim.Sim) { s.Input(0, 1, proto.ExitCS, 0) },
			want: "0 tokens exist (0 held, 0 in flight) after node 1's step", step: 1},
		{name: "holder drops the token", run: func(fs []*fake, s *sim.Sim) {
			poke(s, 0, fs[0], func(f *fake, _ *proto.Output) { f.v.TokenHere = false })
		}, want: "0 tokens exist (0 held, 0 in flight) after node 0's step", step: 1},
		{name: "receiver discards the token", run: func(fs []*fake, s *sim.Sim) {
			fs[1].recv = func(*fake, proto.Message, *proto.Output) {}
			poke(s, 0, fs[0], pass(1))
		}, want: "0 tokens exist (0 held, 0 in flight) after node 1's step", step: 2},
		{name: "holder crashes in a crash-free run", run: func(fs []*fake, s *sim.Sim) {
			s.Input(0, 0, proto.Crash, 0)
		}, want: "0 tokens exist (0 held, 0 in flight) after node 0's step", step: 1},
		{name: "crashes: holder crashes", crashes: true, run: func(fs []*fake, s *sim.Sim) {
			s.Input(0, 0, proto.Crash, 0)
			s.Input(1, 0, proto.Recover, 0)
		}},
		{name: "crashes: token regenerated after the holder crashed", crashes: true, run: func(fs []*fake, s *sim.Sim) {
			s.Input(0, 0, proto.Crash, 0)
			poke(s, 1, fs[1], regenerate)
			s.Input(2, 0, proto.Recover, 0)
		}},
		{name: "crashes: token regenerated while a live node holds one", crashes: true, run: func(fs []*fake, s *sim.Sim) {
			poke(s, 0, fs[1], regenerate)
		}, want: "2 tokens exist (2 held, 0 in flight) after node 1's step", step: 1},
		{name: "crashes: token regenerated while one is in flight to a node that is down", crashes: true, run: func(fs []*fake, s *sim.Sim) {
			s.Input(0, 2, proto.Crash, 0)
			poke(s, 1, fs[0], pass(2))
			poke(s, 1, fs[1], regenerate)
		}},
		{name: "crashes: token regenerated while one is in flight to a live node", crashes: true, run: func(fs []*fake, s *sim.Sim) {
			poke(s, 1, fs[0], pass(2))
			poke(s, 1, fs[1], regenerate)
		}, want: "2 tokens exist (1 held, 1 in flight) after node 1's step", step: 2},
		{name: "crashes: stale token in flight to a node of a newer generation", crashes: true,
			init: func(fs []*fake) {
				fs[0].v.TokenHere = false
				fs[1].v.TokenHere, fs[1].v.Gen = true, 1
			},
			run: func(fs []*fake, s *sim.Sim) {
				fs[1].recv = func(*fake, proto.Message, *proto.Output) {} // discards it
				poke(s, 0, fs[0], func(f *fake, out *proto.Output) {
					out.Msgs = append(out.Msgs, token(0, 1, proto.Nil, 0))
				})
			}},
		{name: "crashes: token of the current generation in flight to a live node", crashes: true,
			init: func(fs []*fake) {
				fs[0].v.TokenHere = false
				fs[1].v.TokenHere, fs[1].v.Gen = true, 1
			},
			run: func(fs []*fake, s *sim.Sim) {
				poke(s, 0, fs[0], func(f *fake, out *proto.Output) {
					out.Msgs = append(out.Msgs, token(0, 2, proto.Nil, 1))
				})
			}, want: "2 tokens exist (1 held, 1 in flight) after node 0's step", step: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := system(3)
			if c.init != nil {
				c.init(fs)
			}
			s := sim.New(sim.Config{Types: cubeTypes, Delta: 1, Crashes: c.crashes}, nodes(fs), sim.Hooks{})
			c.run(fs, s)
			v := wantErr(t, s.Run(), c.want)
			if v != nil && v.Step != c.step {
				t.Errorf("violation at step %d, want %d", v.Step, c.step)
			}
		})
	}
}

// TestATree checks Proposition 1 of RR-1692 under CheckFull: the relation
// a_tree, built from (a1)–(a5), is a rooted tree. Each state is written
// into four nodes (initially the open-cube 1→0, 2→0, 3→2, token at 0) and
// checked after one step, with the messages listed in flight.
func TestATree(t *testing.T) {
	full := sim.Config{Types: cubeTypes, Check: sim.CheckFull, Invariants: treeChecks}
	cases := []struct {
		name string
		cfg  sim.Config
		init func(fs []*fake)
		msgs []proto.Message
		want string
	}{
		{name: "initial open-cube", cfg: full},
		{name: "a2: request in transit", cfg: full,
			init: func(fs []*fake) { fs[3].v.Asked = true },
			msgs: []proto.Message{request(3, 2, 3)}},
		{name: "a2: request forwarded, in transit", cfg: full,
			init: func(fs []*fake) { fs[3].v.Asked = true },
			msgs: []proto.Message{request(2, 0, 3)}},
		{name: "a2: request waiting", cfg: full,
			init: func(fs []*fake) { fs[3].v.Asked = true; fs[2].queue = []proto.NodeID{3} }},
		{name: "a2: a node's own request in its queue is no edge", cfg: full,
			init: func(fs []*fake) { fs[0].v.Asked = true; fs[0].queue = []proto.NodeID{0} }},
		{name: "a3: the mandator of a node that no longer asks is no edge", cfg: full,
			init: func(fs []*fake) { fs[1].v.Mandator = 3 }},
		{name: "a3 and a4: a loan in transit", cfg: full,
			init: func(fs []*fake) { fs[0].v.TokenHere = false; fs[0].v.Mandator = 3; fs[3].v.Asked = true },
			msgs: []proto.Message{token(0, 3, 0, 0)}},
		{name: "a5: asked node holding the token", cfg: full,
			init: func(fs []*fake) { fs[0].v.TokenHere = false; fs[3].v.Asked, fs[3].v.TokenHere = true, true }},
		{name: "a4: a token given for good is no edge", cfg: full,
			init: func(fs []*fake) { fs[0].v.TokenHere = false; fs[3].v.Asked = true; fs[2].queue = []proto.NodeID{3} },
			msgs: []proto.Message{token(0, 3, proto.Nil, 0)}},
		{name: "cycle of fathers", cfg: full,
			init: func(fs []*fake) { fs[1].v.Father = 2; fs[2].v.Father = 1 },
			want: "a_tree has a cycle through node 1"},
		{name: "node is its own father", cfg: full,
			init: func(fs []*fake) { fs[3].v.Father = 3 },
			want: "a_tree has a cycle through node 3"},
		{name: "two roots", cfg: full,
			init: func(fs []*fake) { fs[3].v.Father = proto.Nil },
			want: "a_tree has 2 roots"},
		{name: "no root", cfg: full,
			init: func(fs []*fake) { fs[0].v.Father = 1 },
			want: "a_tree has 0 roots"},
		{name: "asked node whose request is nowhere", cfg: full,
			init: func(fs []*fake) { fs[3].v.Asked = true },
			want: "a_tree has 2 roots"},
		{name: "request waiting at one node and in transit to another", cfg: full,
			init: func(fs []*fake) { fs[3].v.Asked = true; fs[1].queue = []proto.NodeID{3} },
			msgs: []proto.Message{request(3, 2, 3)},
			want: "a_tree: node 3 has two fathers, 1 and 2 (a2, in transit)"},
		{name: "request waiting at two nodes", cfg: full,
			init: func(fs []*fake) {
				fs[3].v.Asked = true
				fs[1].queue = []proto.NodeID{3}
				fs[2].queue = []proto.NodeID{3}
			},
			want: "a_tree: node 3 has two fathers, 1 and 2 (a2, waiting)"},
		{name: "mandator of one node, token here and father another", cfg: full,
			init: func(fs []*fake) {
				fs[0].v.TokenHere = false
				fs[3].v.Asked, fs[3].v.TokenHere = true, true
				fs[1].v.Mandator = 3
			},
			want: "a_tree: node 3 has two fathers, 1 and 2 (a5)"},
		{name: "loan in transit from one node, request waiting at another", cfg: full,
			init: func(fs []*fake) { fs[0].v.TokenHere = false; fs[3].v.Asked = true; fs[2].queue = []proto.NodeID{3} },
			msgs: []proto.Message{token(0, 3, 0, 0)},
			want: "a_tree: node 3 has two fathers, 2 and 0 (a4)"},
		{name: "mandator of two nodes", cfg: full,
			init: func(fs []*fake) { fs[3].v.Asked = true; fs[1].v.Mandator = 3; fs[2].v.Mandator = 3 },
			want: "a_tree: node 3 has two fathers, 1 and 2 (a3)"},
		{name: "cycle not checked with CheckCounts", cfg: sim.Config{Types: cubeTypes, Check: sim.CheckCounts},
			init: func(fs []*fake) { fs[1].v.Father = 2; fs[2].v.Father = 1 }},
		{name: "cycle not checked in a run with crashes", cfg: sim.Config{Types: cubeTypes, Check: sim.CheckFull, Crashes: true, Invariants: scheme.Algorithm{}.Invariants(true)},
			init: func(fs []*fake) { fs[1].v.Father = 2; fs[2].v.Father = 1 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := system(4)
			if c.init != nil {
				c.init(fs)
			}
			_, err := snapshot(c.cfg, fs, 0, c.msgs...)
			wantErr(t, err, c.want)
		})
	}
}

// TestATreeRun drives a small request/token exchange on two nodes (1 asks
// 0, the root holding the token, which gives it for good and takes 1 as
// its father) under CheckFull and the open-cube check, and variants of it
// in which one node forgets part of its state change.
func TestATreeRun(t *testing.T) {
	cases := []struct {
		name string
		bug  string
		want string
		step int64
	}{
		{name: "correct"},
		{name: "root forgets its new father", bug: "no father",
			want: "a_tree has 2 roots", step: 2},
		{name: "root drops the request", bug: "drop request",
			want: "a_tree has 2 roots", step: 2},
		{name: "root lends the token (a4) and yet takes the borrower as father", bug: "loan",
			want: "a_tree has 0 roots", step: 2},
		{name: "requester keeps its old father on receiving the token", bug: "keep father",
			want: "a_tree has 0 roots", step: 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := system(2)
			fs[0].recv = func(f *fake, m proto.Message, out *proto.Output) {
				if m.Type != scheme.Request || c.bug == "drop request" {
					return
				}
				lender := proto.Nil
				if c.bug == "loan" {
					lender = f.id
				}
				f.v.TokenHere = false
				if c.bug != "no father" {
					f.v.Father = m.J.Node()
				}
				out.Msgs = append(out.Msgs, token(f.id, m.J.Node(), lender, 0))
			}
			fs[1].recv = func(f *fake, m proto.Message, out *proto.Output) {
				f.v.TokenHere, f.v.Asked, f.v.InCS = true, false, true
				if c.bug != "keep father" {
					f.v.Father = proto.Nil
				}
				out.Enter = true
			}
			s := sim.New(sim.Config{Types: cubeTypes, Delta: 1, Check: sim.CheckFull, Invariants: cubeChecks}, nodes(fs), sim.Hooks{})
			poke(s, 0, fs[1], func(f *fake, out *proto.Output) {
				f.v.Asked = true
				out.Msgs = append(out.Msgs, request(1, 0, 1))
			})
			s.Input(5, 1, proto.ExitCS, 0)
			v := wantErr(t, s.Run(), c.want)
			if v != nil && v.Step != c.step {
				t.Errorf("violation at step %d, want %d", v.Step, c.step)
			}
			if v == nil && (s.Stats.Steps != 4 || !fs[1].v.TokenHere || fs[0].v.Father != 1) {
				t.Errorf("the exchange did not run to its end: %d steps, node 1 holds the token: %v, father of 0: %d",
					s.Stats.Steps, fs[1].v.TokenHere, fs[0].v.Father)
			}
		})
	}
}

// TestOpenCube checks the open-cube shape under CheckFull with the
// open-cube's invariants on four nodes (pmax 2), when no message is in
// flight: one root of power pmax, and every node of power p has one son of
// each power below p, where a son's power is its distance to its father
// minus one.
func TestOpenCube(t *testing.T) {
	cube := sim.Config{Types: cubeTypes, Check: sim.CheckFull, Invariants: cubeChecks}
	twoSons := func(fs []*fake) { fs[3].v.Father = 0 } // 2 and 3 are both at distance 2 from 0
	cases := []struct {
		name string
		cfg  sim.Config
		init func(fs []*fake)
		want string
	}{
		{name: "initial open-cube", cfg: cube},
		{name: "open-cube rooted at 1", cfg: cube, init: func(fs []*fake) {
			fs[0].v.TokenHere, fs[1].v.TokenHere = false, true
			fs[0].v.Father, fs[1].v.Father, fs[2].v.Father, fs[3].v.Father = 1, proto.Nil, 3, 1
		}},
		{name: "open-cube with 3 a son of 0 and 2 a son of 3", cfg: cube, init: func(fs []*fake) {
			fs[3].v.Father, fs[2].v.Father = 0, 3
		}},
		{name: "two sons of the same power", cfg: cube, init: twoSons,
			want: "open-cube: node 0 has two sons of power 1"},
		{name: "son of a power not below its father's", cfg: cube,
			init: func(fs []*fake) { fs[3].v.Father = 1 },
			want: "open-cube: node 3 of power 1 has father 1 of power 0"},
		{name: "not checked while a node is searching", cfg: cube,
			init: func(fs []*fake) { twoSons(fs); fs[1].v.Searching = true }},
		{name: "not checked while a node is asking", cfg: cube,
			init: func(fs []*fake) { twoSons(fs); fs[1].v.Asked = true; fs[0].queue = []proto.NodeID{1} }},
		{name: "not checked with the scheme's invariants only", cfg: sim.Config{Types: cubeTypes, Check: sim.CheckFull, Invariants: treeChecks}, init: twoSons},
		{name: "not checked with CheckCounts", cfg: sim.Config{Types: cubeTypes, Invariants: cubeChecks}, init: twoSons},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := system(4)
			if c.init != nil {
				c.init(fs)
			}
			_, err := snapshot(c.cfg, fs, 0)
			wantErr(t, err, c.want)
		})
	}
}

// TestOpenCubeWaitsForQuiet checks that the open-cube shape is checked only
// once no message is in flight: a broken shape (still a rooted a_tree) is
// let pass while a message travels, and caught at the step that delivers
// it.
func TestOpenCubeWaitsForQuiet(t *testing.T) {
	fs := system(4)
	fs[3].v.Father = 0
	s := sim.New(sim.Config{Types: cubeTypes, Delta: 1, Check: sim.CheckFull, Invariants: cubeChecks}, nodes(fs), sim.Hooks{})
	poke(s, 0, fs[3], func(f *fake, out *proto.Output) {
		out.Msgs = append(out.Msgs, proto.Message{Type: opencube.Wait, Cause: proto.Liveness, From: 3, To: 1})
	})
	v := wantErr(t, s.Run(), "open-cube: node 0 has two sons of power 1")
	if v.Step != 2 || s.Stats.Delivered != 1 {
		t.Errorf("caught at step %d after %d deliveries; want step 2, the delivery", v.Step, s.Stats.Delivered)
	}
}

// TestCheckShape checks CheckAtEnd with the open-cube's invariants of a run
// with crashes, which bench calls after the repair pass
// of a run with crashes: the open-cube shape of the live nodes, or while
// some are down what the live nodes can still be (one root, fathers up, no
// two sons of one power, no son of a power not below its father's).
func TestCheckShape(t *testing.T) {
	cases := []struct {
		name string
		down []proto.NodeID
		init func(fs []*fake)
		want string
	}{
		{name: "initial open-cube"},
		{name: "two roots", init: func(fs []*fake) { fs[3].v.Father = proto.Nil },
			want: "open-cube: 2 roots"},
		{name: "fathers of each other, no root", init: func(fs []*fake) { fs[0].v.Father = 1 },
			want: "open-cube: node 0 of power 0 has father 1 of power 0"},
		{name: "two sons of the same power", init: func(fs []*fake) { fs[3].v.Father = 0 },
			want: "open-cube: node 0 has two sons of power 1"},
		{name: "asking: not checked", init: func(fs []*fake) { fs[3].v.Father = 0; fs[1].v.Asked = true }},
		{name: "searching: not checked", init: func(fs []*fake) { fs[3].v.Father = proto.Nil; fs[3].v.Searching = true }},
		{name: "down: a leaf", down: []proto.NodeID{3}},
		{name: "down: a searching node does not hold the check back", down: []proto.NodeID{3},
			init: func(fs []*fake) { fs[3].v.Searching = true; fs[2].v.Father = proto.Nil }, want: "open-cube: 2 roots"},
		{name: "down: a father still named by its son", down: []proto.NodeID{2},
			want: "open-cube: node 3 has father 2, which is down"},
		{name: "down: son reattached in its father's place", down: []proto.NodeID{2},
			init: func(fs []*fake) { fs[3].v.Father = 0 }},
		{name: "down: the root, a new root in its place", down: []proto.NodeID{0},
			init: func(fs []*fake) { fs[1].v.Father, fs[3].v.Father = proto.Nil, 1; fs[2].v.Father = 3 }},
		{name: "down: the root, two new roots", down: []proto.NodeID{0},
			init: func(fs []*fake) { fs[1].v.Father, fs[2].v.Father = proto.Nil, proto.Nil },
			want: "open-cube: 2 roots"},
		{name: "down: the root, its sons still name it", down: []proto.NodeID{0},
			want: "open-cube: node 1 has father 0, which is down"},
		{name: "down: every node", down: []proto.NodeID{0, 1, 2, 3},
			want: "open-cube: 0 roots"},
		{name: "down: a leaf, two sons of the same power", down: []proto.NodeID{1},
			init: func(fs []*fake) { fs[3].v.Father = 0 },
			want: "open-cube: node 0 has two sons of power 1"},
		{name: "down: a leaf, a son of a power not below its father's", down: []proto.NodeID{2},
			init: func(fs []*fake) { fs[3].v.Father = 1 },
			want: "open-cube: node 3 of power 1 has father 1 of power 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := system(4)
			fs[0].v.TokenHere = false // the token plays no part here
			s := sim.New(sim.Config{Types: cubeTypes, Delta: 1, Crashes: true, Invariants: cubeCrashChecks}, nodes(fs), sim.Hooks{})
			for _, id := range c.down {
				s.Input(0, id, proto.Crash, 0)
			}
			if err := s.Run(); err != nil {
				t.Fatal(err)
			}
			for _, id := range c.down {
				if !s.Down(id) {
					t.Fatalf("node %d is not down", id)
				}
			}
			if c.init != nil {
				c.init(fs)
			}
			wantErr(t, s.CheckAtEnd(), c.want)
			if s.Err() != nil {
				t.Errorf("CheckAtEnd left an error in the run: %v", s.Err())
			}
		})
	}
}

// TestCheckShapeKeepsRunError checks that CheckAtEnd reports the shape now
// without touching the run's own violation.
func TestCheckShapeKeepsRunError(t *testing.T) {
	fs := system(4)
	s := sim.New(sim.Config{Types: cubeTypes, Delta: 1, Invariants: cubeChecks}, nodes(fs), sim.Hooks{})
	s.Input(0, 1, proto.EnterCS, 1)
	s.Input(1, 2, proto.EnterCS, 2)
	runErr := s.Run()
	wantErr(t, runErr, "2 nodes are in the critical section (after node 2's step)")
	if err := s.CheckAtEnd(); err != nil {
		t.Errorf("CheckAtEnd on an open-cube: %v", err)
	}
	fs[3].v.Father = proto.Nil
	wantErr(t, s.CheckAtEnd(), "open-cube: 2 roots")
	if s.Err() != runErr {
		t.Errorf("Err() = %v after CheckAtEnd, want the run's %v", s.Err(), runErr)
	}
}

// stormAt2 is the number of messages in flight at which a run of two nodes
// is stopped as a message storm: 16·2² + 65536.
const stormAt2 = 16*2*2 + 65536

// TestStorm checks the message-storm guard: a run is stopped, without an
// invariant violation, when a node sends while stormAt2 messages are in
// flight; up to that many is let pass.
func TestStorm(t *testing.T) {
	wait := proto.Message{Type: opencube.Wait, Cause: proto.Liveness, From: 1, To: 0}
	burst := func(k int) func(f *fake, out *proto.Output) {
		return func(f *fake, out *proto.Output) {
			for range k {
				out.Msgs = append(out.Msgs, wait)
			}
		}
	}
	t.Run("burst at the limit", func(t *testing.T) {
		fs := system(2)
		s := sim.New(sim.Config{Types: cubeTypes, Delta: 1}, nodes(fs), sim.Hooks{})
		poke(s, 0, fs[1], burst(stormAt2))
		if err := s.Run(); err != nil {
			t.Fatal(err)
		}
		if s.Stats.Storm != "" || s.Stats.Delivered != stormAt2 || s.InFlight() != 0 {
			t.Errorf("storm %q, %d delivered, %d in flight; want no storm, all %d delivered", s.Stats.Storm, s.Stats.Delivered, s.InFlight(), stormAt2)
		}
	})
	t.Run("burst one above the limit", func(t *testing.T) {
		fs := system(2)
		s := sim.New(sim.Config{Types: cubeTypes, Delta: 1}, nodes(fs), sim.Hooks{})
		poke(s, 0, fs[1], burst(stormAt2+1))
		if err := s.Run(); err != nil {
			t.Fatal(err)
		}
		want := "message storm: 65600 messages in flight at t=0.0000s (65601 sent); the run was stopped"
		if s.Stats.Storm != want {
			t.Errorf("Storm = %q, want %q", s.Stats.Storm, want)
		}
		if s.Stats.Delivered != 0 || s.InFlight() != stormAt2+1 {
			t.Errorf("%d delivered, %d in flight: the run went on after the storm", s.Stats.Delivered, s.InFlight())
		}
	})
	t.Run("breeding messages", func(t *testing.T) {
		// Every message node 0 receives makes it send two: without the
		// guard this run would never end.
		fs := system(2)
		var s *sim.Sim
		received := 0
		fs[0].recv = func(f *fake, m proto.Message, out *proto.Output) {
			if received++; received > 4*stormAt2 {
				s.Stop() // the guard failed: end the test's run
			}
			m.From, m.To = 0, 0
			out.Msgs = append(out.Msgs, m, m)
		}
		s = sim.New(sim.Config{Types: cubeTypes, Delta: 1}, nodes(fs), sim.Hooks{})
		poke(s, 0, fs[1], burst(1))
		if err := s.Run(); err != nil {
			t.Fatal(err)
		}
		// In flight grows by one a delivery; the second send of the
		// delivery that leaves stormAt2 in flight trips the guard.
		if !strings.HasPrefix(s.Stats.Storm, "message storm: 65600 messages in flight at t=") ||
			!strings.HasSuffix(s.Stats.Storm, "(131201 sent); the run was stopped") {
			t.Errorf("Storm = %q", s.Stats.Storm)
		}
		if s.InFlight() != stormAt2+1 || s.Stats.MessagesTotal() != 2*stormAt2+1 || s.Stats.Delivered != stormAt2 {
			t.Errorf("%d in flight, %d sent, %d delivered; want %d, %d, %d", s.InFlight(), s.Stats.MessagesTotal(), s.Stats.Delivered,
				stormAt2+1, 2*stormAt2+1, stormAt2)
		}
	})
}

// TestKeepGoing checks that with KeepGoing the simulator counts the times a
// second node enters the critical section and the times a new token appears
// (OverlappingCS, DuplicateTokens, FirstBreach) instead of stopping, and
// that without it the same run stops at the first.
func TestKeepGoing(t *testing.T) {
	regen := func(f *fake, _ *proto.Output) { f.v.TokenHere = true }
	drop := func(f *fake, _ *proto.Output) { f.v.TokenHere = false }
	cases := []struct {
		name      string
		run       func(fs []*fake, s *sim.Sim)
		overlaps  int64
		dupTokens int64
		first     string
		stop      string // the violation without KeepGoing
	}{
		{name: "overlapping critical sections", run: func(fs []*fake, s *sim.Sim) {
			s.Input(0, 0, proto.EnterCS, 1)
			s.Input(1, 1, proto.EnterCS, 2) // overlap 1
			s.Input(2, 2, proto.EnterCS, 3) // overlap 2
			s.Input(3, 1, proto.ExitCS, 0)  // still 2 in: no new overlap
			s.Input(4, 1, proto.EnterCS, 4) // overlap 3
			s.Input(5, 0, proto.ExitCS, 0)
			s.Input(5, 1, proto.ExitCS, 0)
			s.Input(6, 0, proto.EnterCS, 5) // overlap 4
			s.Input(7, 0, proto.ExitCS, 0)
			s.Input(7, 2, proto.ExitCS, 0)
			s.Input(8, 1, proto.EnterCS, 6) // alone: no overlap
		}, overlaps: 4,
			first: "at step 2 (t=1.000000s): node 1 entered the critical section while 1 other node(s) were in it",
			stop:  "2 nodes are in the critical section (after node 1's step)"},
		{name: "duplicate tokens", run: func(fs []*fake, s *sim.Sim) {
			poke(s, 0, fs[1], regen) // 2 tokens: duplicate 1
			poke(s, 1, fs[1], func(f *fake, out *proto.Output) {
				f.v.TokenHere = false
				out.Msgs = append(out.Msgs, token(1, 2, proto.Nil, 0))
			}) // still 2 (one in flight), then held by 2: no new duplicate
			poke(s, 3, fs[0], drop)  // 1 token
			poke(s, 4, fs[1], regen) // 2 again: duplicate 2
			poke(s, 5, fs[0], regen) // 3: duplicate 3
		}, dupTokens: 3,
			first: "at step 1 (t=0.000000s): 2 tokens exist (2 held, 0 in flight) after node 1's step",
			stop:  "2 tokens exist (2 held, 0 in flight) after node 1's step"},
		{name: "both, the first one recorded", run: func(fs []*fake, s *sim.Sim) {
			s.Input(0, 0, proto.EnterCS, 1)
			poke(s, 1, fs[2], regen)
			s.Input(2, 1, proto.EnterCS, 2)
		}, overlaps: 1, dupTokens: 1,
			first: "at step 2 (t=1.000000s): 2 tokens exist (2 held, 0 in flight) after node 2's step",
			stop:  "2 tokens exist (2 held, 0 in flight) after node 2's step"},
		{name: "nothing wrong", run: func(fs []*fake, s *sim.Sim) {
			s.Input(0, 0, proto.EnterCS, 1)
			s.Input(1, 0, proto.ExitCS, 0)
			s.Input(2, 1, proto.EnterCS, 2)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := system(3)
			s := sim.New(sim.Config{Types: cubeTypes, Delta: 1, KeepGoing: true}, nodes(fs), sim.Hooks{})
			c.run(fs, s)
			if err := s.Run(); err != nil {
				t.Fatalf("KeepGoing run stopped: %v", err)
			}
			st := s.Stats
			if st.OverlappingCS != c.overlaps || st.DuplicateTokens != c.dupTokens || st.FirstBreach != c.first {
				t.Errorf("OverlappingCS %d, DuplicateTokens %d, FirstBreach %q; want %d, %d, %q",
					st.OverlappingCS, st.DuplicateTokens, st.FirstBreach, c.overlaps, c.dupTokens, c.first)
			}

			fs = system(3)
			s = sim.New(sim.Config{Types: cubeTypes, Delta: 1}, nodes(fs), sim.Hooks{})
			c.run(fs, s)
			wantErr(t, s.Run(), c.stop)
		})
	}
}

// TestKeepGoingTokenLoss checks that KeepGoing does not excuse the loss of
// the token in a run without crashes: that still stops the run.
func TestKeepGoingTokenLoss(t *testing.T) {
	fs := system(2)
	s := sim.New(sim.Config{Types: cubeTypes, Delta: 1, KeepGoing: true}, nodes(fs), sim.Hooks{})
	poke(s, 0, fs[0], func(f *fake, _ *proto.Output) { f.v.TokenHere = false })
	wantErr(t, s.Run(), "0 tokens exist (0 held, 0 in flight) after node 0's step")
}

// TestSuspicions checks how the simulator judges the failures nodes
// suspect (Stats.Suspicions, FalseSuspicions, FirstFalseSuspicion): false
// when nothing crashed, or when the node suspected is up in the
// incarnation the suspecter last heard from, no node was down or came back
// during the silence the suspecter waited, and no node received a message
// of the failure protocol during it or in the δ before it (sim.Judge);
// given the benefit of the doubt otherwise. δ is 1s, every delay exactly
// δ; node 2 suspects; in failures, node 0 sends node 1 a message of cause
// failure that arrives at the time given.
func TestSuspicions(t *testing.T) {
	type ev struct {
		t    float64
		node proto.NodeID
		kind proto.InputKind // Crash or Recover
	}
	type suspect struct {
		t  float64
		sp proto.Suspicion
	}
	of := func(j proto.NodeID, inc uint32, window float64) proto.Suspicion {
		return proto.Suspicion{Yes: true, Of: j, Inc: inc, Window: window}
	}
	crash1 := []ev{{1, 1, proto.Crash}, {2, 1, proto.Recover}}
	cases := []struct {
		name      string
		evs       []ev
		suspects  []suspect
		failures  []float64
		falses    int64
		firstFals string
	}{
		{name: "no crash: suspecting a node is false", suspects: []suspect{{10, of(1, 0, 4)}}, falses: 1,
			firstFals: "at t=10.000000s: node 2 suspected node 1 (up, incarnation 0) after 4.0δ of silence"},
		{name: "no crash: suspecting the way is false", suspects: []suspect{{10, of(proto.Nil, 0, 4)}}, falses: 1,
			firstFals: "at t=10.000000s: node 2 suspected the way to its request's holder after 4.0δ of silence"},
		{name: "no Yes: not a suspicion", suspects: []suspect{{10, proto.Suspicion{Of: 1, Window: 4}}}},
		{name: "suspected node is down", evs: []ev{{1, 1, proto.Crash}}, suspects: []suspect{{10, of(1, 0, 4)}}},
		{name: "another node is down", evs: []ev{{1, 0, proto.Crash}}, suspects: []suspect{{10, of(1, 0, 4)}}},
		{name: "the way, a node is down", evs: []ev{{1, 0, proto.Crash}}, suspects: []suspect{{10, of(proto.Nil, 0, 4)}}},
		{name: "suspected node came back long ago, same incarnation", evs: crash1, suspects: []suspect{{10, of(1, 1, 4)}}, falses: 1,
			firstFals: "at t=10.000000s: node 2 suspected node 1 (up, incarnation 1) after 4.0δ of silence"},
		{name: "suspected node came back long ago, older incarnation", evs: crash1, suspects: []suspect{{10, of(1, 0, 4)}}},
		{name: "suspected node came back within the window", evs: crash1, suspects: []suspect{{10, of(1, 1, 8)}}},
		{name: "suspected node came back just before the window", evs: crash1, suspects: []suspect{{10, of(1, 1, 7.9)}}, falses: 1,
			firstFals: "at t=10.000000s: node 2 suspected node 1 (up, incarnation 1) after 7.9δ of silence"},
		{name: "another node crashed and came back within the window", evs: []ev{{5, 0, proto.Crash}, {6, 0, proto.Recover}},
			suspects: []suspect{{10, of(1, 0, 8)}}},
		{name: "the way, a crash long ago", evs: crash1, suspects: []suspect{{10, of(proto.Nil, 0, 4)}}, falses: 1,
			firstFals: "at t=10.000000s: node 2 suspected the way to its request's holder after 4.0δ of silence"},
		{name: "the way, a crash within the window", evs: crash1, suspects: []suspect{{10, of(proto.Nil, 0, 9)}}},
		{name: "no crash: failure handling excuses nothing", failures: []float64{8}, suspects: []suspect{{10, of(proto.Nil, 0, 4)}}, falses: 1,
			firstFals: "at t=10.000000s: node 2 suspected the way to its request's holder after 4.0δ of silence"},
		{name: "the way, a crash long ago, failure handling within the window", evs: crash1, failures: []float64{8}, suspects: []suspect{{10, of(proto.Nil, 0, 4)}}},
		{name: "the way, a crash long ago, failure handling in the δ before the window", evs: crash1, failures: []float64{5.5}, suspects: []suspect{{10, of(proto.Nil, 0, 4)}}},
		{name: "the way, a crash long ago, failure handling long before the window", evs: crash1, failures: []float64{4.5}, suspects: []suspect{{10, of(proto.Nil, 0, 4)}}, falses: 1,
			firstFals: "at t=10.000000s: node 2 suspected the way to its request's holder after 4.0δ of silence"},
		{name: "suspected node came back long ago, failure handling within the window", evs: crash1, failures: []float64{8}, suspects: []suspect{{10, of(1, 1, 4)}}},
		{name: "several: the first false one is recorded",
			evs: []ev{{1, 1, proto.Crash}, {20, 1, proto.Recover}},
			suspects: []suspect{
				{10, of(1, 0, 4)},         // 1 is down: excused
				{30, of(1, 0, 4)},         // 1 came back in incarnation 1: excused
				{40, of(1, 1, 4)},         // false
				{50, of(proto.Nil, 0, 4)}, // false
			}, falses: 2,
			firstFals: "at t=40.000000s: node 2 suspected node 1 (up, incarnation 1) after 4.0δ of silence"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := system(3)
			s := sim.New(sim.Config{Types: cubeTypes, Delta: 1, MinDelay: 1, Crashes: true}, nodes(fs), sim.Hooks{})
			for _, e := range c.evs {
				s.Input(e.t, e.node, e.kind, 0)
			}
			for _, at := range c.failures {
				poke(s, at-1, fs[0], func(_ *fake, out *proto.Output) {
					out.Msgs = append(out.Msgs, proto.Message{Type: opencube.Test, Cause: proto.Failure, From: 0, To: 1, Phase: 1})
				})
			}
			var yes int64
			for _, x := range c.suspects {
				sp := x.sp
				poke(s, x.t, fs[2], func(_ *fake, out *proto.Output) { out.Suspect = sp })
				if sp.Yes {
					yes++
				}
			}
			if err := s.Run(); err != nil {
				t.Fatal(err)
			}
			st := s.Stats
			falses, first := sim.JudgeNotes(len(fs), 1, s.Notes)
			if st.Suspicions != yes || falses != c.falses || first != c.firstFals {
				t.Errorf("Suspicions %d, false %d, first false %q; want %d, %d, %q",
					st.Suspicions, falses, first, yes, c.falses, c.firstFals)
			}
		})
	}
}
