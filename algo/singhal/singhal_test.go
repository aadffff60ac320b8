package singhal

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

func enter(net *steptest.Net, id proto.NodeID, tag uint32, want ...string) {
	net.T.Helper()
	net.Expect(fmt.Sprintf("node %d enter_cs", id), net.Step(id, proto.Input{Kind: proto.EnterCS, Tag: tag}), want...)
}

// TestTwoConcurrentRequests: four nodes (ids 0..3) in the initial staircase
// (R_i = {0..i−1} ∪ {i}). Nodes 2 and 3 request at once with equal
// timestamps (node 2 wins the tie). Then the special case and its race:
// node 2, requesting and not having node 1 in its request set, gets node 1's
// older request, replies, puts 1 in R_2 and asks 1; its request reaches node
// 1 before the reply does.
func TestTwoConcurrentRequests(t *testing.T) {
	net := &steptest.Net{T: t, Types: messageTypes, Nodes: Algorithm{}.NewNodes(4)}
	r := func(i proto.NodeID) []proto.NodeID {
		var out []proto.NodeID
		for j := range proto.NodeID(4) {
			if j != i && net.Nodes[i].(*Node).InR(j) {
				out = append(out, j)
			}
		}
		return out
	}

	enter(net, 2, 12, "request() 2→0", "request() 2→1")                  // ts (1, 2)
	enter(net, 3, 13, "request() 3→0", "request() 3→1", "request() 3→2") // ts (1, 3)
	net.Deliver("request() 3→2")                                         // 2's request is older: I_2 = {2, 3}
	net.Deliver("request() 2→0", "reply() 0→2")                          // 0 is idle: R_0 = {0, 2}
	net.Deliver("request() 3→0", "reply() 0→3")
	net.Deliver("request() 3→1", "reply() 1→3")
	net.Deliver("request() 2→1", "reply() 1→2")
	net.Deliver("reply() 0→2")
	net.Deliver("reply() 1→2")
	net.InCS(2)
	net.Deliver("reply() 0→3")
	net.Deliver("reply() 1→3")
	net.Exit(2, "reply() 2→3")
	net.Deliver("reply() 2→3")
	net.InCS(3)
	net.Exit(3)
	if net.Sent != 10 {
		t.Errorf("the first round took %d messages, want 10", net.Sent)
	}
	want := [][]proto.NodeID{{2, 3}, {0, 2, 3}, {3}, nil}
	for i := range proto.NodeID(4) {
		if fmt.Sprint(r(i)) != fmt.Sprint(want[i]) {
			t.Errorf("R_%d without %d = %v, want %v", i, i, r(i), want[i])
		}
	}

	sent := net.Sent
	enter(net, 1, 21, "request() 1→0", "request() 1→2", "request() 1→3") // ts (2, 1)
	enter(net, 2, 22, "request() 2→3")                                   // ts (2, 2)
	net.Deliver("request() 1→2", "reply() 2→1", "request() 2→1")         // the special case
	net.Deliver("request() 2→1")                                         // before the reply: 1's request is older, I_1 = {1, 2}
	net.Deliver("request() 1→0", "reply() 0→1")
	net.Deliver("request() 1→3", "reply() 3→1")
	net.Deliver("request() 2→3", "reply() 3→2")
	net.Deliver("reply() 0→1")
	net.Deliver("reply() 3→1")
	net.Deliver("reply() 2→1")
	net.InCS(1)
	net.Exit(1, "reply() 1→2")
	net.Deliver("reply() 3→2")
	net.Deliver("reply() 1→2")
	net.InCS(2)
	net.Exit(2)
	if got := net.Sent - sent; got != 10 {
		t.Errorf("the second round took %d messages, want 10", got)
	}
	if len(net.Pending) != 0 {
		t.Errorf("%d messages left in flight", len(net.Pending))
	}
}

// TestLoneRequestCost: from the initial staircase a lone request of node i
// takes 2i messages (R_i \ {i} = {0..i−1}), N−1 on average over the nodes;
// the same node's next lone request takes none.
func TestLoneRequestCost(t *testing.T) {
	for _, n := range []int{2, 4, 16, 256} {
		total := 0
		for i := range proto.NodeID(n) {
			nodes := Algorithm{}.NewNodes(n)
			if got := serve(t, nodes, i, 1); got != 2*int(i) {
				t.Errorf("n=%d: node %d's lone request took %d messages, want %d", n, i, got, 2*i)
			}
			total += 2 * int(i)
			if got := serve(t, nodes, i, 2); got != 0 {
				t.Errorf("n=%d: node %d's repeated lone request took %d messages, want 0", n, i, got)
			}
			if i > 0 {
				if got := serve(t, nodes, 0, 3); got != 2 {
					t.Errorf("n=%d: node 0's lone request after node %d took %d messages, want 2", n, i, got)
				}
			}
		}
		if total != n*(n-1) {
			t.Errorf("n=%d: %d messages for one lone request per node, want N(N−1) = %d", n, total, n*(n-1))
		}
	}
}

// serve runs one lone request of node id to the end (FIFO delivery) and
// returns the messages sent.
func serve(t *testing.T, nodes []proto.Node, id proto.NodeID, tag uint32) int {
	t.Helper()
	var out proto.Output
	var pending []proto.Message
	sent := 0
	step := func(k proto.NodeID, in proto.Input) {
		out.Reset()
		nodes[k].Step(in, &out)
		pending = append(pending, out.Msgs...)
		sent += len(out.Msgs)
	}
	step(id, proto.Input{Kind: proto.EnterCS, Tag: tag})
	for !nodes[id].View().InCS {
		if len(pending) == 0 {
			t.Fatalf("node %d is stuck", id)
		}
		m := pending[0]
		pending = pending[1:]
		step(m.To, proto.Input{Kind: proto.Receive, Msg: m})
	}
	if v := nodes[id].View(); v.Tag != tag || !v.Asked {
		t.Fatalf("node %d in the CS with view %+v, want tag %d", id, v, tag)
	}
	step(id, proto.Input{Kind: proto.ExitCS})
	for len(pending) > 0 {
		m := pending[0]
		pending = pending[1:]
		step(m.To, proto.Input{Kind: proto.Receive, Msg: m})
	}
	return sent
}

// system is a proto.System over nodes and the messages in flight.
type system struct {
	nodes   []proto.Node
	pending []proto.Message
}

func (s *system) Nodes() []proto.Node    { return s.nodes }
func (s *system) Down(proto.NodeID) bool { return false }
func (s *system) ForEachInFlight(f func(m *proto.Message)) {
	for k := range s.pending {
		f(&s.pending[k])
	}
}

// pairs checks the staircase in full: for each pair {i, j},
// [j ∈ R_i] + [i ∈ R_j] = 1 + (replies in flight between them), at most one
// reply in flight, and the inform sets only hold requests of other nodes.
func pairs(s *system) error {
	n := len(s.nodes)
	count := make([]int, n*n)
	flight := make([]int, n*n)
	key := func(i, j proto.NodeID) int { return int(min(i, j))*n + int(max(i, j)) }
	for i, nd := range s.nodes {
		for j := range n {
			if j != i && nd.(*Node).InR(proto.NodeID(j)) {
				count[key(proto.NodeID(i), proto.NodeID(j))]++
			}
		}
	}
	for _, m := range s.pending {
		if m.Type == Reply {
			flight[key(m.From, m.To)]++
		}
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			k := i*n + j
			if flight[k] > 1 || count[k] != 1+flight[k] {
				return fmt.Errorf("pair {%d, %d}: %d memberships in the other's request set, %d replies in flight", i, j, count[k], flight[k])
			}
		}
	}
	return nil
}

// TestRandomNonFIFO drives n nodes with random requests and delivers the
// messages in random order, checking after every step mutual exclusion, the
// invariants, one permission per pair and the tags; at the end every
// request was served and nothing is in flight.
func TestRandomNonFIFO(t *testing.T) {
	for _, n := range []int{2, 4, 8, 16} {
		for seed := uint64(1); seed <= 40; seed++ {
			t.Run(fmt.Sprintf("n=%d/seed=%d", n, seed), func(t *testing.T) {
				randomRun(t, n, seed, 30*n)
			})
		}
	}
}

func randomRun(t *testing.T, n int, seed uint64, requests int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	alg := Algorithm{}
	s := &system{nodes: alg.NewNodes(n)}
	invs := alg.Invariants(false)
	var out proto.Output
	issued, entered := 0, 0
	var tag uint32
	busy := make([]bool, n) // a request issued and not finished
	served := make([]uint32, n)
	step := func(id proto.NodeID, in proto.Input) {
		out.Reset()
		s.nodes[id].Step(in, &out)
		for _, m := range out.Msgs {
			if m.From != id || m.To == id || m.To < 0 || int(m.To) >= n || m.Tag == 0 || m.Cause != proto.Normal || m.J != proto.Nil || m.Src != proto.Nil {
				t.Fatalf("bad message %+v from node %d", m, id)
			}
		}
		s.pending = append(s.pending, out.Msgs...)
		if out.Enter {
			entered++
			v := s.nodes[id].View()
			if !v.InCS || v.Tag != served[id] {
				t.Fatalf("node %d entered with view %+v, its request is %d", id, v, served[id])
			}
		}
		in2 := 0
		for _, nd := range s.nodes {
			if nd.View().InCS {
				in2++
			}
		}
		if in2 > 1 {
			t.Fatalf("%d nodes in the CS", in2)
		}
		for _, inv := range invs {
			if inv.When == proto.EveryStep || len(s.pending) == 0 {
				if err := inv.Check(s); err != nil {
					t.Fatalf("%s: %v", inv.Name, err)
				}
			}
		}
		if err := pairs(s); err != nil {
			t.Fatal(err)
		}
	}
	deliver := func() {
		k := rng.IntN(len(s.pending))
		m := s.pending[k]
		s.pending[k] = s.pending[len(s.pending)-1]
		s.pending = s.pending[:len(s.pending)-1]
		// Every message serves the pending request of its requester.
		req := m.From
		if m.Type == Reply {
			req = m.To
		}
		if v := s.nodes[req].View(); !v.Asked || v.Tag != m.Tag {
			t.Fatalf("message %+v serves request %d of node %d, whose view is %+v", m, m.Tag, req, v)
		}
		step(m.To, proto.Input{Kind: proto.Receive, Msg: m})
	}
	for {
		var inCS proto.NodeID = proto.Nil
		for i, nd := range s.nodes {
			if nd.View().InCS {
				inCS = proto.NodeID(i)
			}
		}
		waiting := false
		for _, b := range busy {
			waiting = waiting || b
		}
		if waiting && inCS == proto.Nil && len(s.pending) == 0 {
			t.Fatalf("deadlock: requests wait, nobody is in the CS and nothing is in flight")
		}
		r := rng.IntN(10)
		switch {
		case r < 2 && issued < requests:
			id := proto.NodeID(rng.IntN(n))
			if busy[id] {
				continue
			}
			issued++
			tag += 1 + uint32(rng.IntN(3)) // increasing, not consecutive
			busy[id], served[id] = true, tag
			step(id, proto.Input{Kind: proto.EnterCS, Tag: tag})
		case r < 4 && inCS != proto.Nil:
			busy[inCS] = false
			step(inCS, proto.Input{Kind: proto.ExitCS})
		case len(s.pending) > 0:
			deliver()
		case inCS != proto.Nil:
			busy[inCS] = false
			step(inCS, proto.Input{Kind: proto.ExitCS})
		case issued < requests:
		default:
			if entered != issued {
				t.Fatalf("%d requests issued, %d served, and nothing in flight", issued, entered)
			}
			for i, nd := range s.nodes {
				if v := nd.View(); v.Asked || v.InCS {
					t.Fatalf("node %d still asks: %+v", i, v)
				}
			}
			return
		}
	}
}
