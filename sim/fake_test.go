package sim_test

import (
	"errors"
	"testing"

	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
	"github.com/ocbench/ocbench/sim"
)

// fake is a hand-written proto.Node for the checker's tests. Its state is
// the View the test writes into v (and the queue Waiting reports); it does
// nothing clever, so that a test decides exactly which state the simulator
// checks after each step.
//
// Inputs:
//   - EnterCS enters the critical section at once, token or not (a node
//     that ignores mutual exclusion); ExitCS leaves it.
//   - Crash loses the volatile state as opencube.Node's View does (Up,
//     TokenHere, InCS and Asked become false); Recover sets Up again.
//   - Receive calls recv if set; otherwise a token is kept (TokenHere, and
//     its generation) and every other message is ignored.
//   - Fire runs the next function queued by poke: a step whose effect the
//     test writes by hand.
type fake struct {
	id    proto.NodeID
	v     fview
	queue []proto.NodeID
	pokes []func(f *fake, out *proto.Output)
	recv  func(f *fake, m proto.Message, out *proto.Output)
}

func (f *fake) Step(in proto.Input, out *proto.Output) {
	switch in.Kind {
	case proto.EnterCS:
		f.v.InCS, f.v.Tag = true, in.Tag
		out.Enter = true
	case proto.ExitCS:
		f.v.InCS = false
	case proto.Crash:
		f.v.Up, f.v.TokenHere, f.v.InCS, f.v.Asked = false, false, false, false
	case proto.Recover:
		f.v.Up = true
	case proto.Receive:
		if f.recv != nil {
			f.recv(f, in.Msg, out)
		} else if in.Msg.Type == scheme.Token {
			f.v.TokenHere, f.v.Gen = true, in.Msg.Stamp
		}
	case proto.Fire:
		if len(f.pokes) > 0 {
			p := f.pokes[0]
			f.pokes = f.pokes[1:]
			p(f, out)
		}
	}
}

func (f *fake) View() proto.View { return f.v.View }

// Tree implements scheme.TreeNode.
func (f *fake) Tree() scheme.TreeView { return f.v.TreeView }

// fview is a fake's state: its view and its token-tree state.
type fview struct {
	proto.View
	scheme.TreeView
}

func (f *fake) Waiting(fn func(j proto.NodeID)) {
	for _, j := range f.queue {
		fn(j)
	}
}

// system returns n fakes, all up, in the initial open-cube of n nodes (the
// father of i is i with its lowest set bit cleared; the root 0 holds the
// token), with no mandator and no lender.
func system(n int) []*fake {
	fs := make([]*fake, n)
	for i := range fs {
		fs[i] = &fake{id: proto.NodeID(i), v: fview{
			View:     proto.View{Bits: proto.Bits{Up: true}},
			TreeView: scheme.TreeView{Father: proto.NodeID(hypercube.Father(i)), Mandator: proto.Nil, Lender: proto.Nil},
		}}
	}
	fs[0].v.TokenHere = true
	return fs
}

// nodes returns fs as the simulator's node slice.
func nodes(fs []*fake) []proto.Node {
	ns := make([]proto.Node, len(fs))
	for i, f := range fs {
		ns[i] = f
	}
	return ns
}

// poke makes node f take a step at time t (seconds) in which fn runs: fn
// may change f's own view and append messages (with any From) to out. It
// must not change another node's TokenHere, InCS or Up: the simulator
// follows those through the stepped node's views before and after.
func poke(s *sim.Sim, t float64, f *fake, fn func(f *fake, out *proto.Output)) {
	s.After(t, func() {
		f.pokes = append(f.pokes, fn)
		s.Input(0, f.id, proto.Fire, 0)
	})
}

// snapshot builds a simulation of fs (whose views the caller has set), makes
// node by take one step that sends msgs and changes nothing else, and stops
// the run right after that step, before any message arrives. It returns the
// simulation and Run's error: the verdict of the checks on exactly the
// state the caller wrote, with msgs in flight.
func snapshot(cfg sim.Config, fs []*fake, by proto.NodeID, msgs ...proto.Message) (*sim.Sim, error) {
	s := sim.New(cfg, nodes(fs), sim.Hooks{})
	s.Input(0, by, proto.Fire, 0)
	fs[by].pokes = append(fs[by].pokes, func(_ *fake, out *proto.Output) {
		out.Msgs = append(out.Msgs, msgs...)
	})
	// Same instant, scheduled after the input: runs right after its step;
	// every message takes a delay > 0.
	s.After(0, s.Stop)
	return s, s.Run()
}

// request is a request(j) message from one node to another.
func request(from, to, j proto.NodeID) proto.Message {
	return proto.Message{Type: scheme.Request, From: from, To: to, J: proto.RefTo(j), Src: proto.RefTo(j)}
}

// token is a token(k) message from one node to another: k is the lender,
// proto.Nil for a token given for good.
func token(from, to, k proto.NodeID, gen uint64) proto.Message {
	return proto.Message{Type: scheme.Token, From: from, To: to, J: proto.RefTo(k), Stamp: gen}
}

// wantErr checks that err is nil when want is "", and otherwise that it is
// a *sim.Violation whose What is want; it returns the violation.
func wantErr(t *testing.T, err error, want string) *sim.Violation {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("want no violation, got %v", err)
		}
		return nil
	}
	var v *sim.Violation
	if !errors.As(err, &v) {
		t.Fatalf("want a *sim.Violation %q, got %v (%T)", want, err, err)
	}
	if v.What != want {
		t.Fatalf("violation:\n got  %q\n want %q", v.What, want)
	}
	return v
}
