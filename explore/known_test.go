package explore

import (
	"testing"

	"github.com/ocbench/ocbench/proto"
)

// reference is a plain breadth-first search over the explorer's own
// transitions, one goroutine, every state kept whole in a map: what the
// parallel search with fingerprints (and levels, path logs, a step cache)
// must count.
type reference struct {
	states, transitions, terminal int64
	depth                         int
}

func referenceSearch(t *testing.T, cfg Config) reference {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	inits, err := e.initial()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var cur, next [][]byte
	for _, s := range inits {
		e.legitimate(s)
		b := appendState(nil, s)
		if !seen[string(b)] {
			seen[string(b)] = true
			cur = append(cur, b)
		}
	}
	var r reference
	var s, c sys
	for ; len(cur) > 0; r.depth++ {
		next = next[:0]
		for _, enc := range cur {
			if !e.readState(enc, &s) {
				t.Fatal(errCorrupt)
			}
			if err := e.decodeNodes(&s); err != nil {
				t.Fatal(err)
			}
			as := e.actions(&s, nil)
			if len(as) == 0 {
				r.terminal++
			}
			for _, a := range as {
				r.transitions++
				if err := e.apply(&s, a, &c, nil); err != nil {
					t.Fatal(err)
				}
				e.legitimate(&c)
				b := appendState(nil, &c)
				if !seen[string(b)] {
					seen[string(b)] = true
					next = append(next, b)
				}
			}
		}
		cur, next = next, cur
	}
	r.depth--
	r.states = int64(len(seen))
	return r
}

// ring is a token ring written for the known answer below: the token
// circulates for ever (node 0's Start sends it to node 1); a node that
// receives it while asking keeps it and enters the critical section, and
// on leaving sends it on; a node that does not ask sends it on at once.
type ring struct{}

type ringNode struct {
	id, n int
	v     proto.View
}

func (ring) Name() string         { return "test-ring" }
func (ring) Family() proto.Family { return proto.TokenBased }
func (ring) MessageTypes() []proto.MessageType {
	return []proto.MessageType{{Name: "token", Token: true}}
}
func (ring) Events() []string                  { return nil }
func (ring) Invariants(bool) []proto.Invariant { return nil }
func (r *ringNode) View() proto.View           { return r.v }
func (r *ringNode) Waiting(func(proto.NodeID)) {}
func (r *ringNode) send(out *proto.Output)     { out.Msgs = append(out.Msgs, r.token()) }
func (r *ringNode) token() proto.Message {
	return proto.Message{Type: 0, From: proto.NodeID(r.id), To: proto.NodeID((r.id + 1) % r.n)}
}
func (ring) NewNodes(n int) []proto.Node {
	out := make([]proto.Node, n)
	for i := range out {
		node := &ringNode{id: i, n: n}
		node.v.Up = true
		if i == 0 {
			out[i] = &ringStarter{node}
		} else {
			out[i] = node
		}
	}
	return out
}

// ringStarter is node 0, whose Start puts the token in flight.
type ringStarter struct{ *ringNode }

func (r *ringStarter) Start(out *proto.Output) { r.send(out) }

func (r *ringNode) Step(in proto.Input, out *proto.Output) {
	switch in.Kind {
	case proto.EnterCS:
		r.v.Asked, r.v.Tag = true, in.Tag
	case proto.Receive:
		if !r.v.Asked {
			r.send(out)
			return
		}
		r.v.TokenHere, r.v.InCS, out.Enter = true, true, true
	case proto.ExitCS:
		r.v.TokenHere, r.v.InCS, r.v.Asked = false, false, false
		r.send(out)
	}
}

// ringModel counts the states, transitions and terminal states of the
// token ring of n nodes, r requests each, by its own breadth-first search
// over a description of its states written for it: per node whether it
// asks, whether it is in the critical section (holding the token) and the
// requests it has issued, and the node the token in flight goes to (−1:
// none). It shares nothing with the explorer but the rules above.
func ringModel(n, r int) (states, transitions, terminal int) {
	type node struct {
		asked, inCS bool
		issued      int
	}
	type state struct {
		nodes [4]node
		to    int
	}
	start := state{to: 1 % n}
	seen := map[state]bool{start: true}
	queue := []state{start}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		var succ []state
		for i := range n {
			nd := s.nodes[i]
			if !nd.asked && !nd.inCS && nd.issued < r { // request
				t := s
				t.nodes[i].asked, t.nodes[i].issued = true, nd.issued+1
				succ = append(succ, t)
			}
			if nd.inCS { // exit: the token goes on
				t := s
				t.nodes[i].inCS, t.nodes[i].asked = false, false
				t.to = (i + 1) % n
				succ = append(succ, t)
			}
		}
		if j := s.to; j >= 0 { // the token arrives
			t := s
			if s.nodes[j].asked {
				t.nodes[j].inCS, t.to = true, -1
			} else {
				t.to = (j + 1) % n
			}
			succ = append(succ, t)
		}
		if len(succ) == 0 {
			terminal++
		}
		for _, t := range succ {
			transitions++
			if !seen[t] {
				seen[t] = true
				queue = append(queue, t)
			}
		}
	}
	return len(seen), transitions, terminal
}

// TestKnownAnswer: for the token ring of 2 to 4 nodes with one or two
// requests each, the explorer counts the states, transitions and
// terminal states that ringModel, written separately, counts, and finds
// it clean; the reduced search (on by default here: the ring declares no
// every-step invariant) is clean in no more states.
func TestKnownAnswer(t *testing.T) {
	for _, c := range []struct{ n, r int }{{2, 1}, {2, 2}, {3, 1}, {3, 2}, {4, 1}, {4, 2}} {
		states, transitions, terminal := ringModel(c.n, c.r)
		for _, w := range []int{1, 2} {
			res := explored(t, Config{Algorithm: ring{}, Nodes: c.n, Requests: c.r, MaxStates: 1 << 20, Workers: w})
			if res.Violation != nil || res.Limit != "" || res.States != int64(states) || res.Transitions != int64(transitions) || res.Terminal != int64(terminal) {
				t.Errorf("ring N=%d R=%d, %d workers: %d states, %d transitions, %d terminal, violation %v, limit %q; the model: %d, %d, %d",
					c.n, c.r, w, res.States, res.Transitions, res.Terminal, res.Violation, res.Limit, states, transitions, terminal)
			}
		}
		red := explored(t, Config{Algorithm: ring{}, Nodes: c.n, Requests: c.r, MaxStates: 1 << 20, Reduce: true})
		if !red.Reduced || red.Violation != nil || red.Limit != "" || red.States > int64(states) {
			t.Errorf("ring N=%d R=%d reduced: %+v; the model: %d states", c.n, c.r, red, states)
		}
		t.Logf("ring N=%d R=%d: %d states, %d transitions (model and explorer); reduced: %d states", c.n, c.r, states, transitions, red.States)
	}
}
