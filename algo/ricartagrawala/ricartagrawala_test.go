package ricartagrawala

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// TestTwoConcurrentRequests: nodes 1 and 2 of 3 ask at once with equal
// timestamps; node 1's smaller id wins: node 2 replies to it, node 1
// defers its reply to node 2 until it leaves. Every message is named;
// 2 · 2(n−1) = 8 messages in all.
func TestTwoConcurrentRequests(t *testing.T) {
	net := &steptest.Net{T: t, Types: messageTypes, Base: 1, Nodes: Algorithm{}.NewNodes(3)}
	net.Enter(1, "request() 1→2", "request() 1→3")
	net.Enter(2, "request() 2→1", "request() 2→3")
	for _, m := range net.Pending {
		if m.Gen != 1 {
			t.Fatalf("%s has timestamp %d, want 1 (a tie)", net.Msg(m), m.Gen)
		}
	}
	net.Deliver("request() 1→2", "reply() 2→1") // (1, 1) precedes node 2's (1, 2)
	net.Deliver("request() 2→1")                // deferred: node 1's (1, 1) precedes
	net.Deliver("request() 1→3", "reply() 3→1")
	net.Deliver("request() 2→3", "reply() 3→2")
	net.Deliver("reply() 3→2")
	net.Deliver("reply() 2→1")
	net.Deliver("reply() 3→1")
	net.InCS(1)
	net.Exit(1, "reply() 1→2")
	net.Deliver("reply() 1→2")
	net.InCS(2)
	net.Exit(2)
	if net.Sent != 8 {
		t.Errorf("%d messages, want 8", net.Sent)
	}
}

// TestRequestOvertakesReply: non-FIFO. Node 2 replies to node 1's request,
// then asks (with a later timestamp); its request reaches node 1 before
// its reply. Node 1 defers node 2, enters on the late reply, and answers
// node 2 when it leaves.
func TestRequestOvertakesReply(t *testing.T) {
	net := &steptest.Net{T: t, Types: messageTypes, Base: 1, Nodes: Algorithm{}.NewNodes(3)}
	net.Enter(1, "request() 1→2", "request() 1→3")
	net.Deliver("request() 1→2", "reply() 2→1")
	net.Enter(2, "request() 2→1", "request() 2→3")
	if ts := net.Pending[len(net.Pending)-1].Gen; ts != 2 {
		t.Fatalf("node 2's request has timestamp %d, want 2 (it saw node 1's 1)", ts)
	}
	net.Deliver("request() 2→1") // overtakes reply() 2→1; deferred
	net.Deliver("request() 2→3", "reply() 3→2")
	net.Deliver("request() 1→3", "reply() 3→1")
	net.Deliver("reply() 3→1")
	net.Deliver("reply() 3→2")
	net.Deliver("reply() 2→1")
	net.InCS(1)
	net.Exit(1, "reply() 1→2")
	net.Deliver("reply() 1→2")
	net.InCS(2)
	net.Exit(2)
	if net.Sent != 8 {
		t.Errorf("%d messages, want 8", net.Sent)
	}
}

// TestLoneRequest: a request from the quiescent state costs exactly
// 2(n−1) messages (survey, Table 2), for every requester.
func TestLoneRequest(t *testing.T) {
	for _, n := range []int{2, 4, 8, 16, 256} {
		nodes := Algorithm{}.NewNodes(n)
		want := int(Algorithm{}.StatedCost(n).High)
		for _, r := range []int{0, n / 2, n - 1} {
			var out proto.Output
			var pending []proto.Message
			step := func(id proto.NodeID, in proto.Input) {
				out.Reset()
				nodes[id].Step(in, &out)
				pending = append(pending, out.Msgs...)
			}
			sent := 0
			step(proto.NodeID(r), proto.Input{Kind: proto.EnterCS, Tag: uint32(r + 1)})
			for len(pending) > 0 || nodes[r].View().InCS {
				if len(pending) == 0 {
					step(proto.NodeID(r), proto.Input{Kind: proto.ExitCS})
					continue
				}
				m := pending[0]
				pending = pending[1:]
				sent++
				if m.Tag != uint32(r+1) {
					t.Fatalf("n=%d: message %+v does not carry the request's tag %d", n, m, r+1)
				}
				step(m.To, proto.Input{Kind: proto.Receive, Msg: m})
			}
			if sent != want || want != 2*(n-1) {
				t.Errorf("n=%d, requester %d: %d messages, want 2(n−1) = %d", n, r, sent, 2*(n-1))
			}
		}
	}
}

// sys is a proto.System over nodes and the messages in flight.
type sys struct {
	nodes    []proto.Node
	inFlight [][]proto.Message // by channel from·n+to, oldest first
}

func (s sys) Nodes() []proto.Node    { return s.nodes }
func (s sys) Down(proto.NodeID) bool { return false }
func (s sys) ForEachInFlight(f func(m *proto.Message)) {
	for _, ch := range s.inFlight {
		for k := range ch {
			f(&ch[k])
		}
	}
}

// TestRandom drives n ∈ {2, 4, 8, 16} nodes with random requests (serials
// increasing per node, not consecutive, not ordered between nodes) and a
// random delivery order (any message in flight, so channels are not FIFO),
// and checks after every step mutual exclusion, the entry's view and the
// invariants; at the end every request was served with exactly 2(n−1)
// messages, and nothing is in flight.
func TestRandom(t *testing.T) {
	for _, n := range []int{2, 4, 8, 16} {
		seeds := 200
		if n == 16 {
			seeds = 50
		}
		for seed := range seeds {
			t.Run(fmt.Sprintf("n=%d/seed=%d", n, seed), func(t *testing.T) { random(t, n, uint64(seed), 20*n) })
		}
	}
}

func random(t *testing.T, n int, seed uint64, requests int) {
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	a := Algorithm{}
	s := sys{nodes: a.NewNodes(n), inFlight: make([][]proto.Message, n*n)}
	invs := a.Invariants(false)
	var out proto.Output
	serial := make([]uint32, n) // last serial of each node
	tagOf := make([]uint32, n)  // serial of each node's pending request, 0 if none
	perTag := map[uint32]int{}  // messages sent per serial
	inFlight, issued, served, inCS := 0, 0, 0, proto.Nil
	step := func(id proto.NodeID, in proto.Input) {
		out.Reset()
		s.nodes[id].Step(in, &out)
		for _, m := range out.Msgs {
			if m.From != id || m.To == id || m.To < 0 || int(m.To) >= n || m.Cause != proto.Normal || m.J != proto.Nil || m.Src != proto.Nil {
				t.Fatalf("node %d sent a malformed message %+v", id, m)
			}
			perTag[m.Tag]++
			ch := int(m.From)*n + int(m.To)
			s.inFlight[ch] = append(s.inFlight[ch], m)
			inFlight++
		}
		v := s.nodes[id].View()
		if out.Enter {
			if inCS != proto.Nil {
				t.Fatalf("node %d entered the critical section while node %d is in it", id, inCS)
			}
			if !v.InCS || v.Tag != tagOf[id] {
				t.Fatalf("node %d entered with view %+v, serving serial %d", id, v, tagOf[id])
			}
			inCS = id
			served++
		} else if v.InCS != (inCS == id) {
			t.Fatalf("node %d's view says InCS=%v without an entry or exit", id, v.InCS)
		}
		for _, inv := range invs {
			if inv.When == proto.EveryStep || inv.When == proto.Quiet && inFlight == 0 {
				if err := inv.Check(s); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for steps := 0; ; steps++ {
		if steps > 1000*requests {
			t.Fatal("no progress")
		}
		idle := -1
		if issued < requests {
			if i := rng.IntN(n); tagOf[i] == 0 {
				idle = i
			}
		}
		switch r := rng.IntN(10); {
		case idle >= 0 && r < 2:
			serial[idle] += uint32(1 + rng.IntN(5))
			tagOf[idle] = serial[idle]*uint32(n) + uint32(idle) // unique across nodes
			issued++
			step(proto.NodeID(idle), proto.Input{Kind: proto.EnterCS, Tag: tagOf[idle]})
		case inCS != proto.Nil && r < 4:
			id := inCS
			inCS, tagOf[id] = proto.Nil, 0
			step(id, proto.Input{Kind: proto.ExitCS})
			if s.nodes[id].View().InCS {
				t.Fatalf("node %d still in the critical section after exit_cs", id)
			}
		case inFlight > 0:
			k := rng.IntN(inFlight)
			for ch := range s.inFlight {
				if k < len(s.inFlight[ch]) {
					m := s.inFlight[ch][k] // any one: not FIFO
					s.inFlight[ch] = append(s.inFlight[ch][:k], s.inFlight[ch][k+1:]...)
					inFlight--
					step(m.To, proto.Input{Kind: proto.Receive, Msg: m})
					break
				}
				k -= len(s.inFlight[ch])
			}
		case issued == requests && inCS == proto.Nil:
			if served != requests {
				t.Fatalf("%d of %d requests served and nothing in flight", served, requests)
			}
			for tag, c := range perTag {
				if c != 2*(n-1) {
					t.Fatalf("request %d cost %d messages, want 2(n−1) = %d", tag, c, 2*(n-1))
				}
			}
			for i, nd := range s.nodes {
				nd.Waiting(func(j proto.NodeID) { t.Fatalf("node %d still defers node %d's request, or asks", i, j) })
			}
			return
		}
	}
}

// TestCrashRecover: a crashed node ignores every input; it recovers in the
// initial state.
func TestCrashRecover(t *testing.T) {
	nodes := Algorithm{}.NewNodes(4)
	var out proto.Output
	nodes[1].Step(proto.Input{Kind: proto.EnterCS, Tag: 7}, &out)
	nodes[1].Step(proto.Input{Kind: proto.Crash}, &out)
	out.Reset()
	nodes[1].Step(proto.Input{Kind: proto.EnterCS, Tag: 8}, &out)
	if v := nodes[1].View(); v.Up || len(out.Msgs) != 0 {
		t.Fatalf("crashed node: view %+v, sent %d messages", v, len(out.Msgs))
	}
	nodes[1].Step(proto.Input{Kind: proto.Recover}, &out)
	if v := nodes[1].View(); !v.Up || v.Asked || v.InCS {
		t.Fatalf("recovered node: view %+v", v)
	}
	nodes[1].Waiting(func(j proto.NodeID) { t.Fatalf("recovered node holds %d", j) })
}
