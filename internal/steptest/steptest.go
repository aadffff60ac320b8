// Package steptest drives proto.Node state machines by hand, one input at a
// time, so that tests can replay the papers' worked examples message by
// message and check every message sent.
package steptest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/proto"
)

// Net holds nodes and the messages in flight between them. Ids in its
// methods are the papers' 1-based node numbers when Base is 1.
type Net struct {
	T     testing.TB
	Nodes []proto.Node
	// Types are the algorithm's message types (proto.Algorithm.MessageTypes),
	// which name the messages.
	Types   []proto.MessageType
	Base    proto.NodeID // added to ids in messages when printing and matching
	Pending []proto.Message
	// Invariants, if set, are checked after every step (the Quiet ones
	// only when no message is in flight); the first that fails fails the
	// test (Check).
	Invariants []proto.Invariant
	Sent       int // messages sent so far
	Entered    []proto.NodeID
	timers     map[proto.NodeID][]proto.Timer
	out        proto.Output
	last       []proto.Message // the messages the last step sent
}

// Msg formats a message with the net's numbering, e.g. "request(8) 7→5":
// its type's name and argument (Types), sender and receiver.
func (n *Net) Msg(m proto.Message) string {
	name, show := fmt.Sprintf("msgtype(%d)", m.Type), ""
	if int(m.Type) < len(n.Types) {
		name, show = n.Types[m.Type].Name, n.Types[m.Type].Arg
	}
	arg := "nil"
	switch {
	case show == "phase":
		arg = fmt.Sprint(m.Phase)
	case show == "reply":
		arg = fmt.Sprint(m.Reply)
	case show == "none":
		arg = ""
	case !m.J.IsNil():
		arg = fmt.Sprint(m.J.Node() + n.Base)
	}
	return fmt.Sprintf("%s(%s) %d→%d", name, arg, m.From+n.Base, m.To+n.Base)
}

// Full formats every field of a message with the net's numbering, e.g.
// "request(8) 7→5 {cause normal, phase 0, reply 0, j 8, src 8, stamp 0,
// tag 8}": Msg's short form, which tests match, then the rest.
func (n *Net) Full(m proto.Message) string {
	id := func(k proto.NodeID) string {
		if k == proto.Nil {
			return "nil"
		}
		return fmt.Sprint(k + n.Base)
	}
	payload := ""
	if len(m.Payload) > 0 {
		payload = fmt.Sprintf(", payload %v", m.Payload)
	}
	return fmt.Sprintf("%s {cause %s, phase %d, reply %d, j %s, src %s, stamp %d, tag %d%s}",
		n.Msg(m), m.Cause, m.Phase, m.Reply, id(m.J.Node()), id(m.Src.Node()), m.Stamp, m.Tag, payload)
}

// Step steps node id (1-based if Base is 1) and returns the messages it sent,
// formatted; the messages join Pending.
func (n *Net) Step(id proto.NodeID, in proto.Input) []string {
	n.T.Helper()
	n.out.Reset()
	proto.Step(n.Nodes[id-n.Base], in, &n.out)
	var got []string
	n.last = n.last[:0]
	for _, m := range n.out.Msgs {
		got = append(got, n.Msg(m))
		n.Pending = append(n.Pending, m)
		n.last = append(n.last, m)
		n.T.Logf("node %d, %s: sent %s", id, in.Kind, n.Full(m))
	}
	n.Sent += len(n.out.Msgs)
	if n.out.Enter {
		n.Entered = append(n.Entered, id)
	}
	if n.timers == nil {
		n.timers = map[proto.NodeID][]proto.Timer{}
	}
	n.timers[id] = append(n.timers[id], n.out.Timers...)
	if len(n.Invariants) > 0 {
		n.Check(fmt.Sprintf("node %d's %s", id, in.Kind), n.Invariants)
	}
	return got
}

// LastSent returns the first message of type typ that the last step sent,
// and fails the test if it sent none.
func (n *Net) LastSent(typ proto.MsgType) proto.Message {
	n.T.Helper()
	for _, m := range n.out.Msgs {
		if m.Type == typ {
			return m
		}
	}
	n.T.Fatalf("the last step sent no %s", n.Types[typ].Name)
	return proto.Message{}
}

// Out returns what the last step asked for (messages, timers, events, a
// suspicion); it is valid until the next step.
func (n *Net) Out() *proto.Output { return &n.out }

// Timers returns the timers node id has set so far, oldest first.
func (n *Net) Timers(id proto.NodeID) []proto.Timer { return n.timers[id] }

// FireTimer fires timer t of node id, and checks the messages sent.
func (n *Net) FireTimer(id proto.NodeID, t proto.Timer, want ...string) {
	n.T.Helper()
	n.Expect(fmt.Sprintf("node %d timer %d", id, t.Kind), n.Step(id, proto.Input{Kind: proto.Fire, Timer: t}), want...)
}

// Fire fires the latest timer of the given kind that node id set, and
// checks the messages sent.
func (n *Net) Fire(id proto.NodeID, kind uint8, want ...string) {
	n.T.Helper()
	ts := n.timers[id]
	for k := len(ts) - 1; k >= 0; k-- {
		if ts[k].Kind == kind {
			n.Expect(fmt.Sprintf("node %d timer %d", id, kind), n.Step(id, proto.Input{Kind: proto.Fire, Timer: ts[k]}), want...)
			return
		}
	}
	n.T.Fatalf("node %d has set no timer of kind %d", id, kind)
}

// Input steps node id with an input without a message (crash, recover) and
// checks the messages sent.
func (n *Net) Input(id proto.NodeID, kind proto.InputKind, want ...string) {
	n.T.Helper()
	n.Expect(fmt.Sprintf("node %d input %d", id, kind), n.Step(id, proto.Input{Kind: kind}), want...)
}

// Expect checks that got is exactly want. On a mismatch it prints every
// field of the messages the last step sent.
func (n *Net) Expect(what string, got []string, want ...string) {
	n.T.Helper()
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		var full []string
		for _, m := range n.last {
			full = append(full, n.Full(m))
		}
		n.T.Fatalf("%s: sent [%s], want [%s]\nevery field of what was sent:\n  %s", what, strings.Join(got, "; "), strings.Join(want, "; "), strings.Join(full, "\n  "))
	}
}

// Enter makes node id call enter_cs, with its id as the request's serial,
// and checks the messages it sends.
func (n *Net) Enter(id proto.NodeID, want ...string) {
	n.T.Helper()
	n.EnterTag(id, uint32(id), want...)
}

// EnterTag makes node id call enter_cs with serial tag and checks the
// messages it sends.
func (n *Net) EnterTag(id proto.NodeID, tag uint32, want ...string) {
	n.T.Helper()
	n.Expect(fmt.Sprintf("node %d enter_cs", id), n.Step(id, proto.Input{Kind: proto.EnterCS, Tag: tag}), want...)
}

// Exit makes node id leave the critical section and checks the messages.
func (n *Net) Exit(id proto.NodeID, want ...string) {
	n.T.Helper()
	n.Expect(fmt.Sprintf("node %d exit_cs", id), n.Step(id, proto.Input{Kind: proto.ExitCS}), want...)
}

// Deliver delivers the pending message formatted as msg (e.g.
// "request(8) 7→5") and checks the messages its receipt sends.
func (n *Net) Deliver(msg string, want ...string) {
	n.T.Helper()
	for k, m := range n.Pending {
		if n.Msg(m) == msg {
			n.Pending = append(n.Pending[:k], n.Pending[k+1:]...)
			n.Expect("receipt of "+msg, n.Step(m.To+n.Base, proto.Input{Kind: proto.Receive, Msg: m}), want...)
			return
		}
	}
	var pend []string
	for _, m := range n.Pending {
		pend = append(pend, n.Msg(m))
	}
	n.T.Fatalf("no pending message %s (pending: %s)", msg, strings.Join(pend, "; "))
}

// Absorb delivers the pending messages formatted as msgs, in order, and
// checks that their receipts send nothing.
func (n *Net) Absorb(msgs ...string) {
	n.T.Helper()
	for _, m := range msgs {
		n.Deliver(m)
	}
}

// Drained checks that the steps since the net had sent mark messages sent
// want, and that no message is left in flight; what names the steps.
func (n *Net) Drained(what string, mark, want int) {
	n.T.Helper()
	if got := n.Sent - mark; got != want {
		n.T.Errorf("%s took %d messages, want %d", what, got, want)
	}
	if len(n.Pending) != 0 {
		n.T.Errorf("after %s, %d messages left in flight", what, len(n.Pending))
	}
}

// Find returns the pending message formatted as msg.
func (n *Net) Find(msg string) proto.Message {
	n.T.Helper()
	for _, m := range n.Pending {
		if n.Msg(m) == msg {
			return m
		}
	}
	n.T.Fatalf("no pending message %s", msg)
	return proto.Message{}
}

// InCSNow checks that the nodes in the critical section now are want, in
// id order.
func (n *Net) InCSNow(want ...proto.NodeID) {
	n.T.Helper()
	var in []proto.NodeID
	for i, nd := range n.Nodes {
		if nd.View().InCS {
			in = append(in, proto.NodeID(i)+n.Base)
		}
	}
	if fmt.Sprint(in) != fmt.Sprint(want) {
		n.T.Fatalf("in the critical section: %v, want %v", in, want)
	}
}

// Drain delivers every pending message, oldest first, none of which may
// send a message (late requests, say, that change nothing).
func (n *Net) Drain() {
	n.T.Helper()
	for len(n.Pending) > 0 {
		n.Deliver(n.Msg(n.Pending[0]))
	}
}

// Drop removes the pending message formatted as msg without delivering it.
func (n *Net) Drop(msg string) {
	n.T.Helper()
	for k, m := range n.Pending {
		if n.Msg(m) == msg {
			n.Pending = append(n.Pending[:k], n.Pending[k+1:]...)
			return
		}
	}
	n.T.Fatalf("no pending message %s", msg)
}

// InCS checks that node id entered the critical section last.
func (n *Net) InCS(id proto.NodeID) {
	n.T.Helper()
	if len(n.Entered) == 0 || n.Entered[len(n.Entered)-1] != id {
		n.T.Fatalf("node %d did not enter the critical section (entries so far: %v)", id, n.Entered)
	}
	if !n.Nodes[id-n.Base].View().InCS {
		n.T.Fatalf("node %d is not in the critical section", id)
	}
}

// Fathers returns the father of every node, read by father (a token-tree
// algorithm's scheme.FatherOf), with the net's numbering (0 for nil when
// Base is 1).
func (n *Net) Fathers(father func(proto.Node) proto.NodeID) []proto.NodeID {
	out := make([]proto.NodeID, len(n.Nodes))
	for i, nd := range n.Nodes {
		f := father(nd)
		if f == proto.Nil {
			out[i] = n.Base - 1
		} else {
			out[i] = f + n.Base
		}
	}
	return out
}

// System returns the nodes and the messages in flight as a proto.System
// with no node down, for invariants.
func System(nodes []proto.Node, pending []proto.Message) proto.System {
	return system{nodes, pending}
}

type system struct {
	nodes   []proto.Node
	pending []proto.Message
}

func (s system) Nodes() []proto.Node    { return s.nodes }
func (s system) Down(proto.NodeID) bool { return false }
func (s system) ForEachInFlight(f func(m *proto.Message)) {
	for i := range s.pending {
		f(&s.pending[i])
	}
}

// Check runs invs on the net's nodes and messages in flight (the Quiet ones
// only when none is in flight) and fails the test on the first error,
// saying it came after what.
func (n *Net) Check(what string, invs []proto.Invariant) {
	n.T.Helper()
	for _, inv := range invs {
		if inv.When == proto.Quiet && len(n.Pending) > 0 {
			continue
		}
		if err := inv.Check(System(n.Nodes, n.Pending)); err != nil {
			n.T.Fatalf("after %s: %v", what, err)
		}
	}
}

// Caught returns the names of the invariants of invs checked after every
// step that fail on s: for tests that corrupt a state and want a given
// invariant to catch it.
func Caught(invs []proto.Invariant, s proto.System) []string {
	var failed []string
	for _, inv := range invs {
		if inv.When == proto.EveryStep && inv.Check(s) != nil {
			failed = append(failed, inv.Name)
		}
	}
	return failed
}

// CrashRecover checks that nodes[id], asking (tag 7) and then crashed,
// ignores every input, and that it recovers in an initial state: up, not
// asking, not in the critical section, without the token, waiting for no
// node.
func CrashRecover(t testing.TB, nodes []proto.Node, id proto.NodeID) {
	t.Helper()
	var out proto.Output
	proto.Step(nodes[id], proto.Input{Kind: proto.EnterCS, Tag: 7}, &out)
	proto.Step(nodes[id], proto.Input{Kind: proto.Crash}, &out)
	out.Reset()
	proto.Step(nodes[id], proto.Input{Kind: proto.EnterCS, Tag: 8}, &out)
	if v := nodes[id].View(); v.Up || len(out.Msgs) != 0 {
		t.Fatalf("crashed node: view %+v, sent %d messages", v, len(out.Msgs))
	}
	proto.Step(nodes[id], proto.Input{Kind: proto.Recover}, &out)
	if v := nodes[id].View(); !v.Up || v.Asked || v.InCS || v.TokenHere {
		t.Fatalf("recovered node: view %+v", v)
	}
	nodes[id].Waiting(func(j proto.NodeID) { t.Fatalf("recovered node waits for %d", j) })
}
