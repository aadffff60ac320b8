package proto

import (
	"strings"
	"testing"
)

func TestTokenType(t *testing.T) {
	for _, c := range []struct {
		name  string
		types []MessageType
		want  MsgType
	}{
		{"no types", nil, NoToken},
		{"no token", []MessageType{{Name: "request"}, {Name: "reply"}}, NoToken},
		{"token first", []MessageType{{Name: "token", Token: true}, {Name: "request"}}, 0},
		{"token later", []MessageType{{Name: "request"}, {Name: "enquiry"}, {Name: "token", Token: true}}, 2},
		{"two marked: the first", []MessageType{{Name: "request"}, {Name: "token", Token: true}, {Name: "copy", Token: true}}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := TokenType(c.types); got != c.want {
				t.Errorf("TokenType = %d, want %d", got, c.want)
			}
		})
	}
	if NoToken < MaxMsgTypes {
		t.Errorf("NoToken = %d is a valid message type (below MaxMsgTypes = %d)", NoToken, MaxMsgTypes)
	}
}

func TestCauseString(t *testing.T) {
	for _, c := range []struct {
		cause Cause
		want  string
	}{{Normal, "normal"}, {Failure, "failure"}, {Liveness, "liveness"}} {
		if got := c.cause.String(); got != c.want {
			t.Errorf("Cause(%d).String() = %q, want %q", c.cause, got, c.want)
		}
	}
	if NumCauses != 3 {
		t.Errorf("NumCauses = %d, want 3 (a new cause needs a name in String)", NumCauses)
	}
}

func TestInputKindString(t *testing.T) {
	for _, c := range []struct {
		kind InputKind
		want string
	}{
		{EnterCS, "enter_cs"}, {ExitCS, "exit_cs"}, {Receive, "receive"}, {Fire, "fire"},
		{Crash, "crash"}, {Recover, "recover"}, {Recover + 1, "input(6)"}, {255, "input(255)"},
	} {
		if got := c.kind.String(); got != c.want {
			t.Errorf("InputKind(%d).String() = %q, want %q", uint8(c.kind), got, c.want)
		}
	}
}

// TestOutputReset: Reset empties every field and keeps the buffers, which
// runtimes reuse from step to step.
func TestOutputReset(t *testing.T) {
	var o Output
	o.Msgs = append(make([]Message, 0, 8), Message{Type: 1, To: 2})
	o.Timers = append(make([]Timer, 0, 4), Timer{Kind: 1, After: 2})
	o.Enter = true
	o.Events[3] = 7
	o.Suspect = Suspicion{Yes: true, Of: 4, Inc: 1, Window: 3}
	msgs, timers := &o.Msgs[:1][0], &o.Timers[:1][0]
	o.Reset()
	if len(o.Msgs) != 0 || len(o.Timers) != 0 || o.Enter || o.Events != [MaxEvents]int32{} || o.Suspect != (Suspicion{}) {
		t.Errorf("after Reset: %+v", o)
	}
	if cap(o.Msgs) != 8 || cap(o.Timers) != 4 || &o.Msgs[:1][0] != msgs || &o.Timers[:1][0] != timers {
		t.Errorf("Reset dropped the buffers: cap %d and %d, want 8 and 4", cap(o.Msgs), cap(o.Timers))
	}
}

// node is a Node whose view a test sets.
type node struct{ v View }

func (n *node) Step(Input, *Output)  {}
func (n *node) View() View           { return n.v }
func (n *node) Waiting(func(NodeID)) {}

// system is a System of nodes with nothing in flight.
type system []Node

func (s system) Nodes() []Node                  { return s }
func (s system) Down(id NodeID) bool            { return !s[id].View().Up }
func (s system) ForEachInFlight(func(*Message)) {}

func TestNoDeadlock(t *testing.T) {
	if NoDeadlock.When != Quiet || NoDeadlock.Name != "no_deadlock" {
		t.Errorf("NoDeadlock is %q checked %d, want no_deadlock checked when quiet", NoDeadlock.Name, NoDeadlock.When)
	}
	idle := View{Bits: Bits{Up: true}}
	asks := View{Bits: Bits{Up: true, Asked: true}}
	in := View{Bits: Bits{Up: true, Asked: true, InCS: true, TokenHere: true}}
	for _, c := range []struct {
		name  string
		views []View
		want  string // in the error; "" for none
	}{
		{"no node", nil, ""},
		{"every node idle", []View{idle, idle, idle}, ""},
		{"one in the CS, others ask", []View{asks, in, asks}, ""},
		{"one asks, none in the CS", []View{idle, idle, asks}, "node 2 asks"},
		{"several ask: the first named", []View{idle, asks, asks}, "node 1 asks"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s system
			for _, v := range c.views {
				s = append(s, &node{v})
			}
			err := NoDeadlock.Check(s)
			if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
				t.Errorf("NoDeadlock = %v, want %q", err, c.want)
			}
		})
	}
}

// TestCostComparable: only a paper's figure (exact or range, above 0) is
// divided into a measurement; kinds print by name.
func TestCostComparable(t *testing.T) {
	for _, c := range []struct {
		cost Cost
		want bool
		name string
	}{
		{Cost{Low: 30, High: 30, Kind: Exact}, true, "exact"},
		{Cost{Low: 0, High: 16, Kind: Range}, true, "range"},
		{Cost{Kind: Range}, false, "range"},
		{Cost{Kind: Order}, false, "order"},
		{Cost{Low: 0, High: 3, Kind: Derived}, false, "derived"},
	} {
		if got := c.cost.Comparable(); got != c.want || c.cost.Kind.String() != c.name {
			t.Errorf("%+v: Comparable %v, kind %q; want %v, %q", c.cost, got, c.cost.Kind, c.want, c.name)
		}
	}
	if got := CostKind(9).String(); got != "CostKind(9)" {
		t.Errorf("CostKind(9).String() = %q", got)
	}
}
