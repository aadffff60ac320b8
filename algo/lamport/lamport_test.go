package lamport

import (
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// gens returns the timestamps (Stamp) of the pending messages, by their
// short form.
func gens(net *steptest.Net) map[string]uint64 {
	g := map[string]uint64{}
	for _, m := range net.Pending {
		g[net.Msg(m)] = m.Stamp
	}
	return g
}

// TestTwoConcurrentRequests: nodes 1 and 2 of 3 ask at once with equal
// timestamps; node 1's smaller id wins, node 2 enters on node 1's release.
// Every message is named; 2 · 3(n−1) = 12 messages in all.
func TestTwoConcurrentRequests(t *testing.T) {
	net := &steptest.Net{T: t, Types: messageTypes, Base: 1, Nodes: Algorithm{}.NewNodes(3)}
	net.Enter(1, "request() 1→2", "request() 1→3")
	net.Enter(2, "request() 2→1", "request() 2→3")
	if g := gens(net); g["request() 1→2"] != 1 || g["request() 2→1"] != 1 {
		t.Fatalf("request timestamps %v, want 1 and 1 (a tie)", g)
	}
	net.Deliver("request() 1→2", "reply() 2→1")
	net.Deliver("request() 1→3", "reply() 3→1")
	net.Deliver("request() 2→1", "reply() 1→2")
	net.Deliver("request() 2→3", "reply() 3→2")
	if g := gens(net); g["reply() 2→1"] != 2 || g["reply() 3→2"] != 3 {
		t.Fatalf("reply timestamps %v, want 2 and 3 (node 3 ticked twice)", g)
	}
	net.Deliver("reply() 1→2")
	net.Deliver("reply() 3→2") // node 2 has both replies, but node 1's (1, 1) precedes its (1, 2)
	if net.Nodes[1].View().InCS {
		t.Fatal("node 2 entered before node 1, whose request precedes")
	}
	net.Deliver("reply() 2→1")
	net.Deliver("reply() 3→1")
	net.InCS(1)
	net.Exit(1, "release() 1→2", "release() 1→3")
	net.Deliver("release() 1→3")
	net.Deliver("release() 1→2")
	net.InCS(2)
	net.Exit(2, "release() 2→1", "release() 2→3")
	net.Deliver("release() 2→1")
	net.Deliver("release() 2→3")
	if net.Sent != 12 {
		t.Errorf("%d messages, want 12", net.Sent)
	}
	for i, nd := range net.Nodes {
		n := nd.(*Node)
		if n.asked || n.queued != 0 {
			t.Errorf("node %d ends with asked=%v, %d requests queued", i+1, n.asked, n.queued)
		}
	}
}

// TestTimestampBeatsID: node 3 asks first; node 1 asks only after it
// replied to node 3, so its timestamp is larger and node 3 enters first
// although node 1's id is smaller.
func TestTimestampBeatsID(t *testing.T) {
	net := &steptest.Net{T: t, Types: messageTypes, Base: 1, Nodes: Algorithm{}.NewNodes(3)}
	net.Enter(3, "request() 3→1", "request() 3→2")
	net.Deliver("request() 3→1", "reply() 1→3")
	net.Enter(1, "request() 1→2", "request() 1→3")
	if g := gens(net); g["request() 1→2"] != 3 {
		t.Fatalf("node 1's request has timestamp %d, want 3", g["request() 1→2"])
	}
	net.Deliver("request() 1→2", "reply() 2→1")
	net.Deliver("request() 1→3", "reply() 3→1")
	net.Deliver("reply() 2→1")
	net.Deliver("reply() 3→1") // node 1 has both replies, but node 3's request (1, 3) heads its queue
	if net.Nodes[0].View().InCS {
		t.Fatal("node 1 entered before node 3, whose request is older")
	}
	net.Deliver("request() 3→2", "reply() 2→3")
	net.Deliver("reply() 1→3")
	net.Deliver("reply() 2→3")
	net.InCS(3)
	net.Exit(3, "release() 3→1", "release() 3→2")
	net.Deliver("release() 3→1")
	net.InCS(1)
	net.Exit(1, "release() 1→2", "release() 1→3")
	net.Deliver("release() 3→2")
	net.Deliver("release() 1→2")
	net.Deliver("release() 1→3")
	if net.Sent != 12 {
		t.Errorf("%d messages, want 12", net.Sent)
	}
}

// TestNeedsFIFO shows why the algorithm assumes FIFO channels: a release
// that overtakes its request leaves the request queued for ever, and the
// next request waits behind it (proto.NoDeadlock fails).
func TestNeedsFIFO(t *testing.T) {
	if !(Algorithm{}).NeedsFIFO() {
		t.Fatal("NeedsFIFO is false")
	}
	net := &steptest.Net{T: t, Types: messageTypes, Base: 1, Nodes: Algorithm{}.NewNodes(2)}
	net.Enter(1, "request() 1→2")
	net.Drop("request() 1→2") // held back: delivered after the release below
	req := proto.Message{Type: Request, Cause: proto.Normal, From: 0, To: 1, Stamp: 1, Tag: 1}
	// Node 1 cannot have entered without node 2's reply; give it one as if
	// node 2 had replied to the request, then let the release overtake it.
	net.Step(1, proto.Input{Kind: proto.Receive, Msg: proto.Message{Type: Reply, From: 1, To: 0, Stamp: 2, Tag: 1}})
	net.InCS(1)
	net.Exit(1, "release() 1→2")
	net.Deliver("release() 1→2")
	net.Step(2, proto.Input{Kind: proto.Receive, Msg: req}) // the late request; its reply goes to node 1
	net.Deliver("reply() 2→1")
	net.Enter(2, "request() 2→1")
	net.Deliver("request() 2→1", "reply() 1→2")
	net.Deliver("reply() 1→2")
	if net.Nodes[1].View().InCS {
		t.Fatal("node 2 entered although node 1's stale request heads its queue")
	}
	if err := proto.NoDeadlock.Check(reorder.Static(net.Nodes)); err == nil {
		t.Fatal("no_deadlock holds on a stuck system")
	}
}

// TestCost: every request costs exactly 3(n−1) messages (survey, Table
// 2): alone from the quiescent state at every requester, and under random
// requests and a random delivery order that keeps each channel FIFO (NeedsFIFO) (reorder.ExactCost).
func TestCost(t *testing.T) {
	reorder.ExactCost(t, Algorithm{}, 3, true)
}

// TestCrashRecover: a crashed node ignores every input; it recovers in the
// initial state (steptest.CrashRecover).
func TestCrashRecover(t *testing.T) {
	steptest.CrashRecover(t, Algorithm{}.NewNodes(4), 1)
}
