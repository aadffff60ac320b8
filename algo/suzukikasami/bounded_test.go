package suzukikasami

import (
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

func newBoundedNet(t *testing.T, n, l int) *steptest.Net {
	a := Bounded{L: l}
	return &steptest.Net{T: t, Types: boundedTypes, Base: 1, Nodes: a.NewNodes(n), Invariants: a.Invariants(false)}
}

// stamp returns the Stamp of the pending message formatted as msg.
func stamp(net *steptest.Net, msg string) uint64 { return net.Find(msg).Stamp }

// TestRoundExample: 3 nodes (paper numbering 1..3; node 1 holds the
// token), L = 2, so numbers run modulo 4. Node 2 enters five times. Its
// requests carry 1, 2, 3, 0, 1: the numbers wrap. Its second request ends
// a round: nodes 1 and 3 ack it on receipt, and node 2's third request
// waits (pending, no message) until both acks are in. A round of two
// entries costs 2·3 + 2 = 8 messages, the survey's L·N + (N−1).
func TestRoundExample(t *testing.T) {
	net := newBoundedNet(t, 3, 2)
	serve := func(want uint64) {
		t.Helper()
		if got := stamp(net, "request() 2→1"); got != want {
			t.Fatalf("request 2→1 carries %d, want %d", got, want)
		}
		if want%2 == 0 { // the last of a round: acked by both
			net.Deliver("request() 2→3", "ack() 3→2")
			net.Deliver("request() 2→1", "ack() 1→2", "token() 1→2")
		} else {
			net.Deliver("request() 2→3")
			net.Deliver("request() 2→1", "token() 1→2")
		}
		net.Deliver("token() 1→2")
		net.InCS(2)
		net.Exit(2)
	}
	// Node 1 takes the token back between node 2's entries, whatever its
	// own rounds send; the acks to node 2 stay in flight.
	settle := func() {
		t.Helper()
		for k := 0; k < len(net.Pending); {
			m := net.Pending[k]
			if m.Type == Ack && m.To == 1 {
				k++
				continue
			}
			net.Pending = append(net.Pending[:k], net.Pending[k+1:]...)
			net.Step(m.To+1, proto.Input{Kind: proto.Receive, Msg: m})
			k = 0
		}
	}
	back := func() {
		t.Helper()
		net.Step(1, proto.Input{Kind: proto.EnterCS, Tag: 1})
		settle()
		net.InCS(1)
		net.Exit(1)
	}
	net.Enter(2, "request() 2→1", "request() 2→3")
	serve(1)
	back()
	before := net.Sent
	net.Enter(2, "request() 2→1", "request() 2→3")
	serve(2)
	if got := net.Sent - before; got != 5 {
		t.Fatalf("the round's last entry cost %d messages, want N + N−1 = 5", got)
	}
	back()
	net.Enter(2) // pending: the acks of the round are in flight
	if v := net.Nodes[1].View(); !v.Asked {
		t.Fatal("node 2 does not ask")
	}
	net.Deliver("ack() 3→2")
	net.Deliver("ack() 1→2", "request() 2→1", "request() 2→3")
	serve(3)
	for _, want := range []uint64{0, 1} {
		back()
		if want == 1 { // round 2 ended with request 4, stamp 0: wait for acks again
			net.Enter(2)
			net.Deliver("ack() 1→2")
			net.Deliver("ack() 3→2", "request() 2→1", "request() 2→3")
		} else {
			net.Enter(2, "request() 2→1", "request() 2→3")
		}
		serve(want)
	}
	if len(net.Pending) != 0 {
		t.Fatalf("%d messages left in flight", len(net.Pending))
	}
	x := net.Nodes[1].(*Node)
	if x.rn[1] != 1 || x.num.(*rounds).owed != 0 {
		t.Fatalf("node 2 ends with RN[2] = %d, %d acks owed; want 1 and 0", x.rn[1], x.num.(*rounds).owed)
	}
}

// TestOutOfOrderRequests: node 2's request 2 overtakes its request 1 at
// node 3 (non-FIFO). Node 3 keeps RN[2] = 2, the higher modulo 4 (the late
// 1 is within a round behind), and acks once it has counted both.
func TestOutOfOrderRequests(t *testing.T) {
	net := newBoundedNet(t, 3, 2)
	net.Invariants = nil // a request left in flight on purpose
	net.Enter(2, "request() 2→1", "request() 2→3")
	net.Deliver("request() 2→1", "token() 1→2")
	net.Deliver("token() 1→2")
	net.Exit(2) // keeps the idle token... then asks again: enters at once
	net.Enter(2)
	net.InCS(2)
	net.Exit(2)
	net.Enter(1, "request() 1→2", "request() 1→3")
	net.Deliver("request() 1→2", "token() 2→1")
	net.Deliver("token() 2→1")
	net.Exit(1)
	net.Enter(2, "request() 2→1", "request() 2→3") // request 2; request 1 still in flight to 3
	late := net.Pending[0]
	if late.To != 2 || late.Stamp != 1 {
		t.Fatalf("the oldest pending message is %s, want request 1 to node 3", net.Full(late))
	}
	net.Pending = append(net.Pending[1:], late) // request 2 to node 3 goes first
	net.Deliver("request() 2→3")
	x := net.Nodes[2].(*Node)
	if x.rn[1] != 2 || x.num.(*rounds).cnt[1] != 1 {
		t.Fatalf("node 3 after request 2: RN[2] = %d, count %d; want 2 and 1", x.rn[1], x.num.(*rounds).cnt[1])
	}
	net.Deliver("request() 2→3", "ack() 3→2") // the late request 1 completes the round
	if x.rn[1] != 2 || x.num.(*rounds).cnt[1] != 2 {
		t.Fatalf("node 3 after request 1: RN[2] = %d, count %d; want 2 and 2", x.rn[1], x.num.(*rounds).cnt[1])
	}
}

// TestRoundCost: lone requests from nodes 1 and N−1 in turn (neither
// holds the idle token when it asks): every entry costs N messages, and
// the last of each of a node's rounds N−1 more (its acks), so a round
// costs L·N + (N−1), the survey's figure, and StatedCost's upper end is
// its mean per entry.
func TestRoundCost(t *testing.T) {
	for _, c := range []struct{ n, l int }{{3, 2}, {4, 2}, {4, 3}, {16, 3}, {16, 5}} {
		a := Bounded{L: c.l}
		lone := reorder.NewLone(t, reorder.Config{Alg: a, N: c.n})
		own := map[proto.NodeID]int{}
		total := 0
		for k := range 4 * c.l {
			from := proto.NodeID(1)
			if k%2 == 1 {
				from = proto.NodeID(c.n - 1)
			}
			own[from]++
			want := c.n
			if own[from]%c.l == 0 {
				want += c.n - 1
			}
			got := lone.Serve(from, uint32(k+1))
			if got != want {
				t.Errorf("n=%d L=%d: request %d of node %d cost %d messages, want %d", c.n, c.l, own[from], from, got, want)
			}
			total += got
		}
		st := a.StatedCost(c.n)
		if mean := float64(total) / float64(4*c.l); mean != st.High || !st.Comparable() {
			t.Errorf("n=%d L=%d: %g messages per entry over two rounds of each node, stated %+v", c.n, c.l, mean, st)
		}
	}
}

// TestBoundedRandomOrder: random requests, messages delivered in random order,
// the invariants checked after every step; L = 2 is the tightest modulus.
func TestBoundedRandomOrder(t *testing.T) {
	for _, l := range []int{2, 3, 7} {
		t.Run(fmt.Sprint("L=", l), func(t *testing.T) {
			reorder.RunSizes(t, Bounded{L: l}, []reorder.Size{
				{N: 2, Seeds: 200, Requests: 60},
				{N: 3, Seeds: 200, Requests: 80},
				{N: 5, Seeds: 150, Requests: 120},
				{N: 16, Seeds: 40, Requests: 200},
			})
		})
	}
}

// TestBoundedInvariantsCatch: TokenState and RoundsAcknowledged fail on corrupted
// states.
func TestBoundedInvariantsCatch(t *testing.T) {
	nodes := Bounded{L: 2}.NewNodes(4)
	s := reorder.Static(nodes)
	for _, inv := range (Bounded{}).Invariants(false) {
		if err := inv.Check(s); err != nil {
			t.Fatalf("initial state, %s: %v", inv.Name, err)
		}
	}
	nodes[2].(*Node).rn[2] = 1 // node 2's request is not granted, yet it does not ask
	if err := TokenState(s); err == nil {
		t.Fatal("TokenState accepts a pending request of a node that does not ask")
	}
	nodes[2].(*Node).rn[2] = 0
	nodes[1].(*Node).num.(*rounds).cnt[3] = 2 // node 1 counted requests node 3 never sent
	if err := RoundsAcknowledged(s); err == nil {
		t.Fatal("RoundsAcknowledged accepts a count above the sender's own")
	}
	nodes[1].(*Node).num.(*rounds).cnt[3] = 0
	nodes[3].(*Node).num.(*rounds).waits = true // pending without acks owed
	if err := TokenState(s); err == nil {
		t.Fatal("TokenState accepts a pending request with no acks owed")
	}
}
