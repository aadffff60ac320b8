package neilsenmizuno

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// TestTwoConcurrentRequests: 4 nodes on the binomial tree (1→0, 2→0, 3→2;
// node 0 holds the token). Nodes 3 and 1 request at once. 1's request
// reaches the holder first and gets the token; 3's request, forwarded by 2
// and then by 0 (whose last now points at 1), stops at the sink 1, which
// queues it (next = 3) and passes the token on after its critical section.
func TestTwoConcurrentRequests(t *testing.T) {
	net := &steptest.Net{T: t, Types: messageTypes, Nodes: Algorithm{}.NewNodes(4)}

	net.Enter(3, "request(3) 3→2")
	net.Enter(1, "request(1) 1→0")
	net.Deliver("request(1) 1→0", "token() 0→1")
	net.Deliver("request(3) 3→2", "request(3) 2→0")
	net.Deliver("request(3) 2→0", "request(3) 0→1")
	net.Deliver("request(3) 0→1") // 1 is a sink waiting for the token: next = 3
	if nx := net.Nodes[1].(*Node).Next(); nx != 3 {
		t.Fatalf("next of node 1 = %d, want 3", nx)
	}
	net.Deliver("token() 0→1")
	net.InCS(1)
	net.Exit(1, "token() 1→3")
	net.Deliver("token() 1→3")
	net.InCS(3)
	net.Exit(3)
	if net.Sent != 6 {
		t.Errorf("%d messages, want 6", net.Sent)
	}
	// The paths reversed: every last points towards the sink 3, which
	// holds the idle token.
	var lasts []proto.NodeID
	for _, nd := range net.Nodes {
		lasts = append(lasts, nd.(*Node).Last())
	}
	if fmt.Sprint(lasts) != "[2 0 3 -1]" || !net.Nodes[3].View().TokenHere {
		t.Errorf("lasts %v (want [2 0 3 -1]), node 3 token here %v", lasts, net.Nodes[3].View().TokenHere)
	}
	// 3 holds the idle token: it enters again without a message.
	net.Enter(3)
	net.InCS(3)
}

// TestLoneRequest: from the initial tree, node i's lone request climbs its
// depth (the number of bits set in i) to node 0, and the token comes back
// directly: popcount(i) + 1 messages, at most log2 N + 1 ≤ D + 1; none for
// node 0.
func TestLoneRequest(t *testing.T) {
	for _, n := range []int{2, 4, 16, 64} {
		high := int(Algorithm{}.StatedCost(n).High)
		for i := range n {
			got := lone(t, n, proto.NodeID(i))
			want := bits.OnesCount(uint(i)) + 1
			if i == 0 {
				want = 0
			}
			if got != want || got > high {
				t.Errorf("n=%d node %d: %d messages, want %d (stated high %d)", n, i, got, want, high)
			}
		}
	}
}

func TestDiameter(t *testing.T) {
	for _, c := range []struct{ n, d int }{{1, 0}, {2, 1}, {4, 3}, {8, 5}, {64, 11}, {1 << 20, 39}} {
		if got := Diameter(c.n); got != c.d {
			t.Errorf("Diameter(%d) = %d, want %d", c.n, got, c.d)
		}
	}
}

func lone(t *testing.T, n int, i proto.NodeID) int {
	nodes := Algorithm{}.NewNodes(n)
	var out proto.Output
	var pending []proto.Message
	sent := 0
	step := func(id proto.NodeID, in proto.Input) {
		out.Reset()
		nodes[id].Step(in, &out)
		sent += len(out.Msgs)
		pending = append(pending, out.Msgs...)
	}
	step(i, proto.Input{Kind: proto.EnterCS, Tag: 7})
	for !nodes[i].View().InCS {
		if len(pending) == 0 {
			t.Fatalf("n=%d node %d: nothing in flight and not in the CS", n, i)
		}
		m := pending[0]
		pending = pending[1:]
		step(m.To, proto.Input{Kind: proto.Receive, Msg: m})
	}
	step(i, proto.Input{Kind: proto.ExitCS})
	if len(pending) > 0 {
		t.Fatalf("n=%d node %d: %d messages after the exit", n, i, len(pending))
	}
	return sent
}

// TestRandomNonFIFO drives n ∈ {2, 4, 8, 16} nodes with random requests and
// delivers the messages in flight in random order, checking mutual
// exclusion, the token count, the invariants and the D + 1 bound per
// request after every step, and that every request is served with nothing
// left in flight.
func TestRandomNonFIFO(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 30
	}
	for _, n := range []int{2, 4, 8, 16} {
		t.Run(fmt.Sprint("n=", n), func(t *testing.T) {
			for seed := range seeds {
				runRandom(t, n, uint64(seed), 20*n)
			}
		})
	}
}

// TestRandomLarger: one run at n = 64 and one at n = 256.
func TestRandomLarger(t *testing.T) {
	runRandom(t, 64, 1, 4*64)
	runRandom(t, 256, 1, 2*256)
}

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

func runRandom(t *testing.T, n int, seed uint64, requests int) {
	t.Helper()
	a := Algorithm{}
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	s := &system{nodes: a.NewNodes(n)}
	invs := a.Invariants(false)
	high := int(a.StatedCost(n).High)
	const (
		idle = iota
		waiting
		inCS
	)
	status := make([]int, n)
	tags := make([]uint32, n)
	cost := make([]int, n) // messages of each node's current request
	issued, served := 0, 0
	var out proto.Output
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("n=%d seed=%d after %d requests issued: %s", n, seed, issued, fmt.Sprintf(format, args...))
	}
	step := func(id proto.NodeID, in proto.Input) {
		t.Helper()
		out.Reset()
		s.nodes[id].Step(in, &out)
		for _, m := range out.Msgs {
			if m.To == m.From || m.From != id || m.To < 0 || int(m.To) >= n {
				fail("node %d sent a bad message %+v", id, m)
			}
			owner := m.J
			if m.Type == Token {
				owner = m.To
			}
			if m.Tag != tags[owner] || status[owner] != waiting {
				fail("message %+v for a request of node %d not waiting (tag %d)", m, owner, tags[owner])
			}
			cost[owner]++
		}
		s.pending = append(s.pending, out.Msgs...)
		v := s.nodes[id].View()
		if out.Enter {
			if status[id] != waiting || !v.InCS || v.Tag != tags[id] {
				fail("node %d entered with status %d, view %+v, tag %d", id, status[id], v, tags[id])
			}
			if cost[id] > high {
				fail("node %d's request cost %d messages, above D+1 = %d", id, cost[id], high)
			}
			status[id] = inCS
		}
		inside, tokens := 0, 0
		for i, nd := range s.nodes {
			v := nd.View()
			if v.InCS {
				inside++
				if status[i] != inCS || !v.TokenHere {
					fail("node %d in the CS unexpectedly (view %+v)", i, v)
				}
			}
			if v.TokenHere {
				tokens++
			}
			if v.Asked != (status[i] != idle) {
				fail("node %d: asked %v, status %d", i, v.Asked, status[i])
			}
		}
		for _, m := range s.pending {
			if m.Type == Token {
				tokens++
			}
		}
		if inside > 1 || tokens != 1 {
			fail("%d nodes in the CS, %d tokens", inside, tokens)
		}
		for _, inv := range invs {
			if inv.When == proto.Quiet && len(s.pending) > 0 {
				continue
			}
			if err := inv.Check(s); err != nil {
				fail("%s: %v", inv.Name, err)
			}
		}
	}
	for {
		busy := 0
		for _, st := range status {
			if st != idle {
				busy++
			}
		}
		if issued == requests && busy == 0 && len(s.pending) == 0 {
			break
		}
		switch r := rng.IntN(10); {
		case r < 2 && issued < requests:
			i := proto.NodeID(rng.IntN(n))
			if status[i] == idle {
				tags[i] += 1 + uint32(rng.IntN(5))
				status[i], cost[i] = waiting, 0
				issued++
				step(i, proto.Input{Kind: proto.EnterCS, Tag: tags[i]})
			}
		case r < 4:
			for i, st := range status {
				if st == inCS {
					status[i] = idle
					served++
					step(proto.NodeID(i), proto.Input{Kind: proto.ExitCS})
				}
			}
		default:
			if len(s.pending) == 0 {
				inside := false
				for _, st := range status {
					inside = inside || st == inCS
				}
				if busy > 0 && !inside {
					fail("deadlock: %d requests wait, nothing in flight", busy)
				}
				continue
			}
			k := rng.IntN(len(s.pending))
			m := s.pending[k]
			s.pending[k] = s.pending[len(s.pending)-1]
			s.pending = s.pending[:len(s.pending)-1]
			step(m.To, proto.Input{Kind: proto.Receive, Msg: m})
		}
	}
	if served != requests {
		t.Fatalf("n=%d seed=%d: %d of %d requests served", n, seed, served, requests)
	}
}
