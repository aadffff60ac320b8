package ratoken

import (
	"slices"
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
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

// TestRoundRobinExample: 4 nodes (paper numbering 1..4; node 1 holds the
// token). Node 3 asks and gets the token from the idle holder 1. While 3 is
// in the CS, node 2 asks (timestamp 1: it has heard no request) and then
// node 4 (timestamp 2: it has heard node 3's request, timestamp 1). Node 3
// scans 4, 1, 2 and serves 4 first although 2 asked first (round-robin from
// the releaser, not first come first served). Node 4 has not heard node 2's
// request when it leaves, so it keeps the idle token, and hands it over when
// the request arrives.
func TestRoundRobinExample(t *testing.T) {
	net := newNet(t, 4)
	net.Enter(3, "request() 3→1", "request() 3→2", "request() 3→4")
	net.Deliver("request() 3→1", "token() 1→3")
	if p, tag := lastToken(t, net); !slices.Equal(p, []int64{0, 0, 0, 0}) || tag != 3 {
		t.Fatalf("token to 3: %v, tag %d; want [0 0 0 0], tag 3", p, tag)
	}
	net.Deliver("token() 1→3")
	net.InCS(3)
	net.Enter(2, "request() 2→1", "request() 2→3", "request() 2→4")
	net.Deliver("request() 3→4")
	net.Enter(4, "request() 4→1", "request() 4→2", "request() 4→3")
	for _, m := range net.Pending {
		if want := map[proto.NodeID]uint64{1: 1, 2: 1, 3: 2}[m.From]; m.Type == Request && m.Stamp != want {
			t.Fatalf("request of node %d has timestamp %d, want %d", m.From+1, m.Stamp, want)
		}
	}
	net.Deliver("request() 2→3")
	net.Deliver("request() 4→3")
	net.Exit(3, "token() 3→4")
	if p, tag := lastToken(t, net); !slices.Equal(p, []int64{0, 0, 1, 0}) || tag != 4 {
		t.Fatalf("token to 4: %v, tag %d; want [0 0 1 0], tag 4", p, tag)
	}
	net.Deliver("token() 3→4")
	net.InCS(4)
	net.Exit(4) // node 4 has not heard node 2
	net.Deliver("request() 2→4", "token() 4→2")
	if p, tag := lastToken(t, net); !slices.Equal(p, []int64{0, 0, 1, 2}) || tag != 2 {
		t.Fatalf("token to 2: %v, tag %d; want [0 0 1 2], tag 2", p, tag)
	}
	net.Deliver("token() 4→2")
	net.InCS(2)
	net.Exit(2)
	// The requests still in flight are stale: no token moves.
	net.Drain()
	// Node 2 holds the idle token and enters again without a message.
	net.Enter(2)
	net.InCS(2)
	if net.Sent != 12 {
		t.Errorf("%d messages, want 12 (3 requests of 3, 3 tokens)", net.Sent)
	}
}

// TestInvariantsCatch: TokenState fails on states the algorithm must not
// reach.
func TestInvariantsCatch(t *testing.T) {
	nodes := Algorithm{}.NewNodes(4)
	s := reorder.Static(nodes)
	if err := TokenState(s); err != nil {
		t.Fatalf("initial state: %v", err)
	}
	x := nodes[2].(*Node)
	x.clock, x.req[2] = 1, 1 // node 3's request is not granted, yet it does not ask
	if err := TokenState(s); err == nil {
		t.Fatal("TokenState accepts a pending request of a node that does not ask")
	}
	x.Asked = true
	nodes[0].(*Node).req[2] = 1 // the idle holder 1 knows it, and keeps the token
	if err := TokenState(s); err == nil {
		t.Fatal("TokenState accepts an idle holder that knows a request not granted")
	}
}
