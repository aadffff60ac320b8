package retained

import (
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

func enter(net *steptest.Net, id proto.NodeID, tag uint32, want ...string) {
	net.T.Helper()
	net.Expect(fmt.Sprintf("node %d enter_cs", id), net.Step(id, proto.Input{Kind: proto.EnterCS, Tag: tag}), want...)
}

// TestCarvalhoRoucairolTwoConcurrentRequests: three nodes (ids 0..2), from the initial state
// where no permission is held. Nodes 1 and 2 request at once with equal
// timestamps (node 1 wins the tie), node 0 asks while 1 is in the CS; then
// the special case and its race: node 2, requesting and holding node 1's
// permission, gets node 1's older request, replies and asks back, and its
// request reaches node 1 before the reply does.
func TestCarvalhoRoucairolTwoConcurrentRequests(t *testing.T) {
	net := &steptest.Net{T: t, Types: messageTypes, Nodes: CarvalhoRoucairol.NewNodes(3)}

	enter(net, 1, 11, "request() 1→0", "request() 1→2") // ts (1, 1)
	enter(net, 2, 12, "request() 2→0", "request() 2→1") // ts (1, 2)
	net.Deliver("request() 1→0", "reply() 0→1")         // 0 is idle
	net.Deliver("request() 2→1")                        // 1's request is older: deferred
	net.Deliver("request() 1→2", "reply() 2→1")         // 2's is younger; 2 held nothing to ask back
	net.Deliver("request() 2→0", "reply() 0→2")
	net.Deliver("reply() 0→1")
	net.Deliver("reply() 2→1")
	net.InCS(1)
	net.Deliver("reply() 0→2") // 2 still lacks 1's permission

	enter(net, 0, 10, "request() 0→1", "request() 0→2") // ts (2, 0)
	net.Deliver("request() 0→2")                        // 2's (1, 2) is older: deferred
	net.Deliver("request() 0→1")                        // 1 is in the CS: deferred
	net.Exit(1, "reply() 1→2", "reply() 1→0")
	net.Deliver("reply() 1→0")
	net.Deliver("reply() 1→2")
	net.InCS(2)
	net.Exit(2, "reply() 2→0")
	net.Deliver("reply() 2→0")
	net.InCS(0)
	net.Exit(0)

	// Node 0 holds 1's and 2's permissions, node 2 holds 1's, node 1 none.
	holds := func(i, j proto.NodeID) bool { return net.Nodes[i].(*Node).Holds(j) }
	if !holds(0, 1) || !holds(0, 2) || !holds(2, 1) || holds(1, 0) || holds(1, 2) || holds(2, 0) {
		t.Fatalf("permissions after the first round are wrong")
	}
	// A lone request by the node that holds everything: no message.
	enter(net, 0, 20)
	net.InCS(0)
	net.Exit(0)

	sent := net.Sent
	enter(net, 1, 21, "request() 1→0", "request() 1→2")          // ts (3, 1)
	enter(net, 2, 22, "request() 2→0")                           // ts (3, 2); holds 1's permission
	net.Deliver("request() 1→2", "reply() 2→1", "request() 2→1") // the special case
	net.Deliver("request() 2→1")                                 // before the reply: 1 lacks 2's permission, its request is older: deferred
	net.Deliver("request() 1→0", "reply() 0→1")
	net.Deliver("request() 2→0", "reply() 0→2")
	net.Absorb("reply() 0→1", "reply() 2→1")
	net.InCS(1)
	net.Exit(1, "reply() 1→2")
	net.Absorb("reply() 0→2", "reply() 1→2")
	net.InCS(2)
	net.Exit(2)
	net.Drained("the last round", sent, 8)
}

// TestCarvalhoRoucairolLoneRequestCost: from the initial state a lone request takes
// 2(N−1) messages (no permission is held); the same node's next lone request
// takes none; another node's takes 2 (it asks only the last user).
func TestCarvalhoRoucairolLoneRequestCost(t *testing.T) {
	for _, n := range []int{2, 4, 16, 256} {
		lone := reorder.NewLone(t, crConfig(n, true))
		if got := lone.Serve(1, 1); got != 2*(n-1) {
			t.Errorf("n=%d: first lone request took %d messages, want %d", n, got, 2*(n-1))
		}
		if got := lone.Serve(1, 2); got != 0 {
			t.Errorf("n=%d: repeated lone request took %d messages, want 0", n, got)
		}
		if got := lone.Serve(0, 3); got != 2*(n-1) {
			t.Errorf("n=%d: node 0's first lone request took %d messages, want %d", n, got, 2*(n-1))
		}
		if got := lone.Serve(1, 4); got != 2 {
			t.Errorf("n=%d: node 1's lone request after node 0 took %d messages, want 2", n, got)
		}
	}
}

// crConfig is a run of n nodes with the test's checks after every step:
// every message serves its requester's pending request and names no third
// node; full adds one permission per pair, O(N²) a step.
func crConfig(n int, full bool) reorder.Config {
	checks := []func(proto.System) error{reorder.Serving(reorder.Requester(Reply)), reorder.PlainMessages}
	if full {
		checks = append(checks, onePerPair)
	}
	return reorder.Config{Alg: CarvalhoRoucairol, N: n, Checks: checks}
}

// onePerPair checks, in full, that each pair has at most one permission (held by
// either node, or in flight as a reply).
func onePerPair(s proto.System) error {
	nodes := s.Nodes()
	n := len(nodes)
	count := make([]int, n*n)
	key := func(i, j proto.NodeID) int { return int(min(i, j))*n + int(max(i, j)) }
	for i, nd := range nodes {
		for j := range n {
			if j != i && nd.(*Node).Holds(proto.NodeID(j)) {
				count[key(proto.NodeID(i), proto.NodeID(j))]++
			}
		}
	}
	s.ForEachInFlight(func(m *proto.Message) {
		if m.Type == Reply {
			count[key(m.From, m.To)]++
		}
	})
	for k, c := range count {
		if c > 1 {
			return fmt.Errorf("pair {%d, %d} has %d permissions", k/n, k%n, c)
		}
	}
	return nil
}

// TestCarvalhoRoucairolRandomNonFIFO drives n nodes with random requests and delivers the
// messages in random order (internal/reorder), checking after every step
// mutual exclusion, the invariants, one permission per pair and the tags;
// at the end every request was served and nothing is in flight.
func TestCarvalhoRoucairolRandomNonFIFO(t *testing.T) {
	for _, n := range []int{2, 4, 8, 16} {
		for seed := uint64(1); seed <= 40; seed++ {
			t.Run(fmt.Sprintf("n=%d/seed=%d", n, seed), func(t *testing.T) {
				c := crConfig(n, true)
				c.Seed, c.Requests = seed, 30*n
				reorder.Run(t, c)
			})
		}
	}
}
