package retained

import (
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// TestSinghalTwoConcurrentRequests: four nodes (ids 0..3) in the initial staircase
// (R_i = {0..i−1} ∪ {i}). Nodes 2 and 3 request at once with equal
// timestamps (node 2 wins the tie). Then the special case and its race:
// node 2, requesting and not having node 1 in its request set, gets node 1's
// older request, replies, puts 1 in R_2 and asks 1; its request reaches node
// 1 before the reply does.
func TestSinghalTwoConcurrentRequests(t *testing.T) {
	net := &steptest.Net{T: t, Types: singhalTypes, Nodes: Singhal.NewNodes(4)}
	r := func(i proto.NodeID) []proto.NodeID {
		var out []proto.NodeID
		for j := range proto.NodeID(4) {
			if j != i && !net.Nodes[i].(*Node).Holds(j) {
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
	net.Absorb("reply() 0→1", "reply() 3→1", "reply() 2→1")
	net.InCS(1)
	net.Exit(1, "reply() 1→2")
	net.Absorb("reply() 3→2", "reply() 1→2")
	net.InCS(2)
	net.Exit(2)
	net.Drained("the second round", sent, 10)
}

// TestSinghalLoneRequestCost: from the initial staircase a lone request of node i
// takes 2i messages (R_i \ {i} = {0..i−1}), N−1 on average over the nodes;
// the same node's next lone request takes none.
func TestSinghalLoneRequestCost(t *testing.T) {
	for _, n := range []int{2, 4, 16, 256} {
		total := 0
		for i := range proto.NodeID(n) {
			lone := reorder.NewLone(t, singhalConfig(n, false))
			if got := lone.Serve(i, 1); got != 2*int(i) {
				t.Errorf("n=%d: node %d's lone request took %d messages, want %d", n, i, got, 2*i)
			}
			total += 2 * int(i)
			if got := lone.Serve(i, 2); got != 0 {
				t.Errorf("n=%d: node %d's repeated lone request took %d messages, want 0", n, i, got)
			}
			if i > 0 {
				if got := lone.Serve(0, 3); got != 2 {
					t.Errorf("n=%d: node 0's lone request after node %d took %d messages, want 2", n, i, got)
				}
			}
		}
		if total != n*(n-1) {
			t.Errorf("n=%d: %d messages for one lone request per node, want N(N−1) = %d", n, total, n*(n-1))
		}
	}
}

// singhalConfig is a run of n nodes with the test's checks after every step:
// every message serves its requester's pending request and names no third
// node; full adds the staircase in full, O(N²) a step.
func singhalConfig(n int, full bool) reorder.Config {
	checks := []func(proto.System) error{reorder.Serving(reorder.Requester(Reply)), reorder.PlainMessages}
	if full {
		checks = append(checks, staircasePairs)
	}
	return reorder.Config{Alg: Singhal, N: n, Checks: checks}
}

// staircasePairs checks the staircase in full (R_i: the nodes whose
// permission i lacks): for each pair {i, j}, [j ∈ R_i] + [i ∈ R_j] = 1 + (replies in flight between them), at most one
// reply in flight, and the inform sets only hold requests of other nodes.
func staircasePairs(s proto.System) error {
	nodes := s.Nodes()
	n := len(nodes)
	count := make([]int, n*n)
	flight := make([]int, n*n)
	key := func(i, j proto.NodeID) int { return int(min(i, j))*n + int(max(i, j)) }
	for i, nd := range nodes {
		for j := range n {
			if j != i && !nd.(*Node).Holds(proto.NodeID(j)) {
				count[key(proto.NodeID(i), proto.NodeID(j))]++
			}
		}
	}
	s.ForEachInFlight(func(m *proto.Message) {
		if m.Type == Reply {
			flight[key(m.From, m.To)]++
		}
	})
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

// TestSinghalRandomNonFIFO drives n nodes with random requests and delivers the
// messages in random order (internal/reorder), checking after every step
// mutual exclusion, the invariants, the staircase and the tags; at the end
// every request was served and nothing is in flight.
func TestSinghalRandomNonFIFO(t *testing.T) {
	for _, n := range []int{2, 4, 8, 16} {
		for seed := uint64(1); seed <= 40; seed++ {
			t.Run(fmt.Sprintf("n=%d/seed=%d", n, seed), func(t *testing.T) {
				c := singhalConfig(n, true)
				c.Seed, c.Requests = seed, 30*n
				reorder.Run(t, c)
			})
		}
	}
}
