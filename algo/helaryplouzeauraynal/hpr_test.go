package helaryplouzeauraynal

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// TestLineExample: the line 0 – 1 – 2 – 3, the token idle at node 0. Node
// 3's request travels the line (each node sends it to the neighbours the
// set it carries does not hold); the idle holder sends the token back
// along the request's path: 2(N−1) = 6 messages, the survey's most on a
// line. Node 1 then asks: its request goes both ways (node 0 and node 2,
// which passes it on to 3, the holder), and the token comes back along
// 3 → 2 → 1: 3 + 2 = 5 messages.
func TestLineExample(t *testing.T) {
	a := OnLine
	net := &steptest.Net{T: t, Types: messageTypes, Nodes: a.NewNodes(4), Invariants: a.Invariants(false)}
	net.EnterTag(3, 7, "request(3) 3→2")
	net.Deliver("request(3) 3→2", "request(3) 2→1")
	net.Deliver("request(3) 2→1", "request(3) 1→0")
	net.Deliver("request(3) 1→0", "token(3) 0→1")
	net.Deliver("token(3) 0→1", "token(3) 1→2")
	net.Deliver("token(3) 1→2", "token(3) 2→3")
	net.Deliver("token(3) 2→3")
	net.InCS(3)
	if net.Sent != 6 {
		t.Errorf("node 3's request: %d messages, want 2(N−1) = 6", net.Sent)
	}
	net.EnterTag(1, 8, "request(1) 1→0", "request(1) 1→2")
	net.Deliver("request(1) 1→0")
	net.Deliver("request(1) 1→2", "request(1) 2→3")
	net.Deliver("request(1) 2→3") // in the critical section: recorded
	net.Exit(3, "token(1) 3→2")
	net.Deliver("token(1) 3→2", "token(1) 2→1")
	net.Deliver("token(1) 2→1")
	net.InCS(1)
	net.Exit(1)
	if net.Sent != 11 {
		t.Errorf("%d messages in all, want 11", net.Sent)
	}
}

// TestTreeExample: the 7-node binary tree 0 – {1, 2}, 1 – {3, 4},
// 2 – {5, 6}, the token idle at the root 0. Node 3's request floods the
// N − 1 = 6 links, each node sending it to the neighbours the set it
// carries does not hold (node 4, a leaf sent it by 1, sends nothing); the
// root, the idle holder, sends the token back 0 → 1 → 3: N + 1 = 8
// messages. Node 6, at the far end of the tree, then asks while 3 is in
// the critical section: its request floods the tree again, and on 3's
// exit the token crosses the diameter 3 → 1 → 0 → 2 → 6: 6 + 4 =
// N − 1 + D = 10 messages, the survey's most on a tree.
func TestTreeExample(t *testing.T) {
	a := OnTree
	if d := (Tree{}).Diameter(7); d != 4 {
		t.Fatalf("the 7-node tree's diameter is %d, want 4", d)
	}
	net := &steptest.Net{T: t, Types: messageTypes, Nodes: a.NewNodes(7), Invariants: a.Invariants(false)}
	net.EnterTag(3, 1, "request(3) 3→1")
	net.Deliver("request(3) 3→1", "request(3) 1→0", "request(3) 1→4")
	net.Deliver("request(3) 1→4")
	net.Deliver("request(3) 1→0", "request(3) 0→2", "token(3) 0→1")
	net.Deliver("request(3) 0→2", "request(3) 2→5", "request(3) 2→6")
	net.Deliver("request(3) 2→5")
	net.Deliver("request(3) 2→6")
	net.Deliver("token(3) 0→1", "token(3) 1→3")
	net.Deliver("token(3) 1→3")
	net.InCS(3)
	if net.Sent != 8 {
		t.Errorf("node 3's request: %d messages, want N + 1 = 8", net.Sent)
	}
	net.EnterTag(6, 2, "request(6) 6→2")
	net.Deliver("request(6) 6→2", "request(6) 2→0", "request(6) 2→5")
	net.Deliver("request(6) 2→5")
	net.Deliver("request(6) 2→0", "request(6) 0→1")
	net.Deliver("request(6) 0→1", "request(6) 1→3", "request(6) 1→4")
	net.Deliver("request(6) 1→4")
	net.Deliver("request(6) 1→3") // in the critical section: recorded
	net.Exit(3, "token(6) 3→1")
	net.Deliver("token(6) 3→1", "token(6) 1→0")
	net.Deliver("token(6) 1→0", "token(6) 0→2")
	net.Deliver("token(6) 0→2", "token(6) 2→6")
	net.Deliver("token(6) 2→6")
	net.InCS(6)
	net.Exit(6)
	if got := net.Sent - 8; got != 10 {
		t.Errorf("node 6's request: %d messages, want N − 1 + D = 10", got)
	}
}

// TestTreeDiameter: Tree.Diameter is the diameter found by breadth-first
// search (twice: the farthest node from 0, then from it) for every n up
// to 200, and the stated cost's upper end is N − 1 + D.
func TestTreeDiameter(t *testing.T) {
	far := func(from proto.NodeID, n int) (proto.NodeID, int) {
		dist := map[proto.NodeID]int{from: 0}
		todo, last := []proto.NodeID{from}, from
		for len(todo) > 0 {
			i := todo[0]
			todo, last = todo[1:], i
			for _, j := range (Tree{}).Neighbors(i, n) {
				if _, ok := dist[j]; !ok {
					dist[j] = dist[i] + 1
					todo = append(todo, j)
				}
			}
		}
		return last, dist[last]
	}
	for n := 1; n <= 200; n++ {
		a, _ := far(0, n)
		_, d := far(a, n)
		if got := (Tree{}).Diameter(n); got != d {
			t.Errorf("n=%d: Diameter %d, breadth-first search %d", n, got, d)
		}
		if n >= 2 {
			if c := (Tree{}).Cost(n); c.Low != float64(n) || c.High != float64(n-1+d) {
				t.Errorf("n=%d: stated %g…%g, want %d…%d", n, c.Low, c.High, n, n-1+d)
			}
		}
	}
}

// TestCompleteExample: on the complete network a request goes to the N−1
// others at once, carrying the set of all nodes, so nobody passes it on;
// the holder sends the token directly: N messages. Two requests at once
// are served in (time, id) order by the holder that knows both.
func TestCompleteExample(t *testing.T) {
	a := OnComplete
	net := &steptest.Net{T: t, Types: messageTypes, Nodes: a.NewNodes(4), Invariants: a.Invariants(false)}
	net.EnterTag(2, 5, "request(2) 2→0", "request(2) 2→1", "request(2) 2→3")
	net.EnterTag(3, 6, "request(3) 3→0", "request(3) 3→1", "request(3) 3→2")
	net.Deliver("request(2) 2→1")
	net.Deliver("request(3) 3→2") // node 2 learns of 3, its clock goes to 1
	net.Deliver("request(3) 3→0", "token(3) 0→3")
	net.Deliver("request(2) 2→0") // node 0 no longer holds the token
	net.Deliver("request(2) 2→3") // node 3 records it
	net.Deliver("request(3) 3→1")
	net.Deliver("token(3) 0→3")
	net.InCS(3)
	net.Exit(3, "token(2) 3→2")
	net.Deliver("token(2) 3→2")
	net.InCS(2)
	net.Exit(2)
	if net.Sent != 8 {
		t.Errorf("%d messages, want 2N = 8", net.Sent)
	}
}

// TestLoneRequest: a request alone costs N on the complete network, N−1
// requests and the token's hops (N … 2(N−1)) on the line, at most 2N on
// the ring and N − 1 + D on the tree (survey, Table 1); none at the idle
// holder.
func TestLoneRequest(t *testing.T) {
	for _, a := range []Algorithm{OnComplete, OnLine, OnRing, OnTree} {
		for _, n := range []int{2, 3, 4, 8, 16, 64} {
			lone := reorder.NewLone(t, reorder.Config{Alg: a, N: n})
			st := a.StatedCost(n)
			holder := 0
			for k, id := range []int{n - 1, 0, n / 2, 1, 1, n - 1} {
				sent := lone.Serve(proto.NodeID(id), uint32(k+1))
				switch {
				case id == holder && sent != 0:
					t.Errorf("%s n=%d: the idle holder %d sent %d messages", a.Name(), n, id, sent)
				case id != holder && (float64(sent) > st.High || sent < n-1+1):
					t.Errorf("%s n=%d: node %d's request cost %d messages, want %d…%g", a.Name(), n, id, sent, n, st.High)
				}
				holder = id
			}
		}
	}
}

// TestRandom drives the four topologies with random requests and a random
// delivery order (channels not FIFO), and saturated, with the invariants
// (one token, links, no deadlock) and internal/reorder's checks after
// every step; every request is served.
func TestRandom(t *testing.T) {
	for _, a := range []Algorithm{OnComplete, OnLine, OnRing, OnTree} {
		for _, n := range []int{2, 3, 4, 5, 8} {
			seeds := 100
			if testing.Short() {
				seeds = 25
			}
			t.Run(fmt.Sprintf("%s/n=%d", a.Name(), n), func(t *testing.T) {
				for seed := range seeds {
					// No reorder.Serving check: a request's flood goes on after
					// the token reached its requester.
					reorder.Run(t, reorder.Config{Alg: a, N: n, Seed: uint64(seed), Requests: 10 * n})
					reorder.Run(t, reorder.Config{Alg: a, N: n, Seed: uint64(seed), Requests: 10 * n, Saturate: true})
				}
			})
		}
	}
}

// TestTopologies: every topology is connected and undirected.
func TestTopologies(t *testing.T) {
	for _, top := range []Topology{Complete{}, Line{}, Ring{}, Tree{}} {
		for _, n := range []int{2, 3, 5, 16} {
			seen := map[proto.NodeID]bool{0: true}
			todo := []proto.NodeID{0}
			for len(todo) > 0 {
				i := todo[0]
				todo = todo[1:]
				for _, j := range top.Neighbors(i, n) {
					if !slices.Contains(top.Neighbors(j, n), i) {
						t.Errorf("%s n=%d: %d→%d without %d→%d", top.Name(), n, i, j, j, i)
					}
					if !seen[j] {
						seen[j] = true
						todo = append(todo, j)
					}
				}
			}
			if len(seen) != n {
				t.Errorf("%s n=%d: %d nodes reachable from 0", top.Name(), n, len(seen))
			}
		}
	}
}

// TestInvariantsCatch: a token sent to a non-neighbour is caught.
func TestInvariantsCatch(t *testing.T) {
	nodes := OnLine.NewNodes(4)
	nd := nodes[3].(*Node)
	nd.Asked, nd.Tag = true, 3
	tok := proto.Message{Type: Token, From: 0, To: 3, J: proto.RefTo(3), Tag: 3, Payload: make([]int64, 4)}
	if c := steptest.Caught(OnLine.Invariants(false), steptest.System(nodes, []proto.Message{tok})); len(c) == 0 || c[0] != "links" {
		t.Errorf("a token 0→3 on the line: caught %v", c)
	}
}

// TestCrashRecover: a crashed node ignores every input; it recovers in the
// initial state (steptest.CrashRecover).
func TestCrashRecover(t *testing.T) {
	steptest.CrashRecover(t, OnRing.NewNodes(4), 1)
}
