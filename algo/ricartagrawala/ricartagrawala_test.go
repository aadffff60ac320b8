package ricartagrawala

import (
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
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
	net.Absorb("reply() 3→2", "reply() 2→1", "reply() 3→1")
	net.InCS(1)
	net.Exit(1, "reply() 1→2")
	net.Absorb("reply() 1→2")
	net.InCS(2)
	net.Exit(2)
	net.Drained("the example", 0, 8)
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
	net.Absorb("reply() 3→1", "reply() 3→2", "reply() 2→1")
	net.InCS(1)
	net.Exit(1, "reply() 1→2")
	net.Absorb("reply() 1→2")
	net.InCS(2)
	net.Exit(2)
	net.Drained("the example", 0, 8)
}

// TestCost: every request costs exactly 2(n−1) messages (survey, Table
// 2): alone from the quiescent state at every requester, and under random
// requests and a random delivery order (channels not FIFO) (reorder.ExactCost).
func TestCost(t *testing.T) {
	reorder.ExactCost(t, Algorithm{}, 2, false)
}

// TestCrashRecover: a crashed node ignores every input; it recovers in the
// initial state (steptest.CrashRecover).
func TestCrashRecover(t *testing.T) {
	steptest.CrashRecover(t, Algorithm{}.NewNodes(4), 1)
}
