package suzukikasami

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
)

func newNet(t *testing.T, n int) *steptest.Net {
	return &steptest.Net{T: t, Types: messageTypes, Base: 1, Nodes: Algorithm{}.NewNodes(n)}
}

// lastToken returns the payload and tag of the token the last step sent.
func lastToken(t *testing.T, net *steptest.Net) ([]int64, uint32) {
	t.Helper()
	m := net.LastSent(Token)
	return m.Payload, m.Tag
}

// q formats Q entries with 1-based node numbers and serials: "3:3 4:4".
func q(p []int64, n int) string {
	s := ""
	for _, e := range p[n:] {
		j, tag := unpack(e)
		s += fmt.Sprintf(" %d:%d", j+1, tag)
	}
	return s
}

// TestQueueExample: 4 nodes (paper numbering 1..4; node 1 holds the
// token). Node 1 enters with its idle token, without a message; nodes 2, 4
// and 3 ask meanwhile. On exit node 1 queues 2, 3, 4 in ascending order and
// sends the token to 2 with Q = (3, 4); node 2 passes it to 3 from Q
// although it has not heard node 4's request, and 3 to 4. A late request
// changes nothing.
func TestQueueExample(t *testing.T) {
	net := newNet(t, 4)
	net.Enter(1)
	net.InCS(1)
	net.Enter(2, "request() 2→1", "request() 2→3", "request() 2→4")
	net.Enter(4, "request() 4→1", "request() 4→2", "request() 4→3")
	net.Enter(3, "request() 3→1", "request() 3→2", "request() 3→4")
	net.Deliver("request() 2→1")
	net.Deliver("request() 4→1")
	net.Deliver("request() 3→1")
	net.Exit(1, "token() 1→2")
	p, tag := lastToken(t, net)
	if !slices.Equal(p[:4], []int64{0, 0, 0, 0}) || q(p, 4) != " 3:3 4:4" || tag != 2 {
		t.Fatalf("token to 2: LN %v, Q%s, tag %d; want LN [0 0 0 0], Q 3:3 4:4, tag 2", p[:4], q(p, 4), tag)
	}
	net.Deliver("token() 1→2")
	net.InCS(2)
	net.Deliver("request() 3→2") // node 2 has not heard node 4
	net.Exit(2, "token() 2→3")
	p, tag = lastToken(t, net)
	if !slices.Equal(p[:4], []int64{0, 1, 0, 0}) || q(p, 4) != " 4:4" || tag != 3 {
		t.Fatalf("token to 3: LN %v, Q%s, tag %d; want LN [0 1 0 0], Q 4:4, tag 3", p[:4], q(p, 4), tag)
	}
	net.Deliver("token() 2→3")
	net.InCS(3)
	net.Exit(3, "token() 3→4")
	net.Deliver("token() 3→4")
	net.InCS(4)
	net.Exit(4)
	// The requests still in flight are stale: RN rises, no token moves.
	for len(net.Pending) > 0 {
		net.Deliver(net.Msg(net.Pending[len(net.Pending)-1]))
	}
	// Node 4 holds the idle token and enters again without a message.
	net.Enter(4)
	net.InCS(4)
	if net.Sent != 12 {
		t.Errorf("%d messages, want 12 (3 requests of 3, 3 tokens)", net.Sent)
	}
}

// TestIdleHolderAnswers: two concurrent requests (nodes 2 and 3) reach the
// idle holder 1 in the order 3, 2; 3 gets the token at once, and queues 2
// when it leaves; node 3's request reaches node 2 after node 2's exit
// (non-FIFO), and is recognised as granted.
func TestIdleHolderAnswers(t *testing.T) {
	net := newNet(t, 3)
	net.Enter(2, "request() 2→1", "request() 2→3")
	net.Enter(3, "request() 3→1", "request() 3→2")
	net.Deliver("request() 3→1", "token() 1→3")
	net.Deliver("request() 2→1") // node 1 no longer holds the token
	net.Deliver("token() 1→3")
	net.InCS(3)
	net.Deliver("request() 2→3")
	net.Exit(3, "token() 3→2")
	net.Deliver("token() 3→2")
	net.InCS(2)
	net.Exit(2)
	net.Deliver("request() 3→2") // late: RN[3] = LN[3] = 1
	if v := net.Nodes[1].View(); !v.TokenHere || v.Asked {
		t.Fatalf("node 2 ends with %+v, want the idle token", v)
	}
}

// TestInvariantsCatch: TokenState fails on a corrupted token.
func TestInvariantsCatch(t *testing.T) {
	nodes := Algorithm{}.NewNodes(4)
	s := reorder.Static(nodes)
	if err := TokenState(s); err != nil {
		t.Fatalf("initial state: %v", err)
	}
	nodes[2].(*Node).rn[2] = 1 // node 2's request is not granted, yet it does not ask
	if err := TokenState(s); err == nil {
		t.Fatal("TokenState accepts a pending request of a node that does not ask")
	}
	nodes[2].(*Node).rn[2] = 0
	nodes[0].(*Node).q = []int64{entry(1, 5)} // node 2 queued, though not asking
	if err := TokenState(s); err == nil {
		t.Fatal("TokenState accepts a queued node that is not asking")
	}
}
