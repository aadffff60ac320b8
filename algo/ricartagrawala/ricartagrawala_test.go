package ricartagrawala

import (
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
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
		if m.Stamp != 1 {
			t.Fatalf("%s has timestamp %d, want 1 (a tie)", net.Msg(m), m.Stamp)
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
	if ts := net.Pending[len(net.Pending)-1].Stamp; ts != 2 {
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
		want := int(Algorithm{}.StatedCost(n).High)
		lone := reorder.NewLone(t, reorder.Config{Alg: Algorithm{}, N: n})
		for _, r := range []int{0, n / 2, n - 1} {
			if sent := lone.Serve(proto.NodeID(r), uint32(r+1)); sent != want || want != 2*(n-1) {
				t.Errorf("n=%d, requester %d: %d messages, want 2(n−1) = %d", n, r, sent, 2*(n-1))
			}
		}
	}
}

// TestRandom drives n ∈ {2, 4, 8, 16} nodes with random requests (serials
// increasing per node, not consecutive, not ordered between nodes) and a
// random delivery order (any message in flight, so channels are not FIFO),
// with internal/reorder's checks after every step (mutual exclusion, the
// entry's view, the invariants, no third node named in a message); at the
// end every request was served with exactly 2(n−1) messages, nothing is
// in flight and no node queues a request.
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
	res := reorder.Run(t, reorder.Config{Alg: Algorithm{}, N: n, Seed: seed, Requests: requests, Checks: []func(proto.System) error{reorder.PlainMessages}})
	if least, most := res.Costs(); least != 2*(n-1) || most != least || len(res.ByTag) != requests {
		t.Fatalf("%d requests cost %d to %d messages, want 2(n−1) = %d", len(res.ByTag), least, most, 2*(n-1))
	}
}

// TestCrashRecover: a crashed node ignores every input; it recovers in the
// initial state (steptest.CrashRecover).
func TestCrashRecover(t *testing.T) {
	steptest.CrashRecover(t, Algorithm{}.NewNodes(4), 1)
}
