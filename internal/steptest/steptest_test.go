package steptest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/proto"
)

// TestFull: Full prints every field of a message, with the net's numbering
// and nil for no node.
func TestFull(t *testing.T) {
	types := []proto.MessageType{{Name: "request"}, {Name: "token", Token: true}, {Name: "test", Arg: "phase"}, {Name: "wait"}}
	cases := []struct {
		base proto.NodeID
		m    proto.Message
		want string
	}{
		{1, proto.Message{Type: 0, From: 6, To: 4, J: proto.RefTo(7), Src: proto.RefTo(7), Tag: 8},
			"request(8) 7→5 {cause normal, phase 0, reply 0, j 8, src 8, stamp 0, tag 8}"},
		{0, proto.Message{Type: 1, Cause: proto.Failure, From: 2, To: 3, Src: proto.RefTo(3), Stamp: 1<<32 | 3, Tag: 5},
			"token(nil) 2→3 {cause failure, phase 0, reply 0, j nil, src 3, stamp 4294967299, tag 5}"},
		{1, proto.Message{Type: 2, Cause: proto.Failure, Phase: 3, From: 0, To: 4},
			"test(3) 1→5 {cause failure, phase 3, reply 0, j nil, src nil, stamp 0, tag 0}"},
		{1, proto.Message{Type: 3, Cause: proto.Liveness, Phase: 2, From: 0, To: 1, J: proto.RefTo(0), Stamp: 4, Tag: 9},
			"wait(1) 1→2 {cause liveness, phase 2, reply 0, j 1, src nil, stamp 4, tag 9}"},
		{1, proto.Message{Type: 1, From: 0, To: 1, Src: proto.RefTo(1), Tag: 3, Payload: []int64{2, 0, -1}},
			"token(nil) 1→2 {cause normal, phase 0, reply 0, j nil, src 2, stamp 0, tag 3, payload [2 0 -1]}"},
	}
	for _, c := range cases {
		n := &Net{T: t, Base: c.base, Types: types}
		if got := n.Full(c.m); got != c.want {
			t.Errorf("Full = %q, want %q", got, c.want)
		}
	}
}

// TestCaught: Caught names the every-step invariants that fail on the
// system, and System shows them the nodes and the messages in flight.
func TestCaught(t *testing.T) {
	inFlight := func(want int) func(proto.System) error {
		return func(s proto.System) error {
			k := 0
			s.ForEachInFlight(func(*proto.Message) { k++ })
			if k != want {
				return fmt.Errorf("%d in flight", k)
			}
			return nil
		}
	}
	invs := []proto.Invariant{
		{Name: "one", When: proto.EveryStep, Check: inFlight(1)},
		{Name: "two", When: proto.EveryStep, Check: inFlight(2)},
		{Name: "quiet two", When: proto.Quiet, Check: inFlight(2)},
	}
	for _, c := range []struct {
		pending []proto.Message
		want    string
	}{
		{nil, "[one two]"},
		{make([]proto.Message, 1), "[two]"},
		{make([]proto.Message, 2), "[one]"},
	} {
		if got := fmt.Sprint(Caught(invs, System(nil, c.pending))); got != c.want {
			t.Errorf("%d in flight: caught %s, want %s", len(c.pending), got, c.want)
		}
	}
}

// TestLastSent: the first message of the type asked for, from the last
// step only.
func TestLastSent(t *testing.T) {
	types := []proto.MessageType{{Name: "a", Arg: "none"}, {Name: "b", Arg: "none"}}
	net := &Net{T: t, Types: types, Nodes: []proto.Node{&sender{msgs: []proto.Message{{Type: 0, To: 1, Stamp: 1}, {Type: 1, To: 1, Stamp: 2}, {Type: 1, To: 1, Stamp: 3}}}}}
	net.Step(0, proto.Input{Kind: proto.EnterCS})
	if m := net.LastSent(1); m.Stamp != 2 {
		t.Errorf("LastSent(1) = %+v, want the message stamped 2", m)
	}
	if m := net.LastSent(0); m.Stamp != 1 {
		t.Errorf("LastSent(0) = %+v, want the message stamped 1", m)
	}
}

// sender sends its messages at every step.
type sender struct{ msgs []proto.Message }

func (s *sender) Step(_ proto.Input, out *proto.Output) { out.Msgs = append(out.Msgs, s.msgs...) }
func (s *sender) View() proto.View                      { return proto.View{} }
func (s *sender) Waiting(func(j proto.NodeID))          {}

// recorder is a testing.TB that keeps its errors instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestAbsorbDrained: Absorb delivers messages that send nothing; Drained
// reports a wrong count and a message left in flight.
func TestAbsorbDrained(t *testing.T) {
	types := []proto.MessageType{{Name: "a", Arg: "none"}}
	net := &Net{T: t, Types: types, Nodes: []proto.Node{&sender{msgs: []proto.Message{{To: 1}, {To: 1}}}, &sender{}}}
	net.Step(0, proto.Input{Kind: proto.EnterCS})
	rec := &recorder{TB: t}
	net.T = rec
	net.Drained("one step", 0, 2)
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "2 messages left in flight") {
		t.Errorf("with 2 in flight: %q", rec.errs)
	}
	net.T = t
	net.Absorb("a() 0→1", "a() 0→1")
	rec.errs, net.T = nil, rec
	net.Drained("one step", 0, 3)
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "took 2 messages, want 3") {
		t.Errorf("2 sent, 3 wanted: %q", rec.errs)
	}
	rec.errs = nil
	net.Drained("one step", 0, 2)
	if len(rec.errs) != 0 {
		t.Errorf("drained: %q", rec.errs)
	}
}
