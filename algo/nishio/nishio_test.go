package nishio

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

func newNet(t *testing.T, a Algorithm, n int) *steptest.Net {
	return &steptest.Net{T: t, Types: messageTypes, Base: 1, Nodes: a.NewNodes(n)}
}

func node(net *steptest.Net, id proto.NodeID) *Node { return net.Nodes[id-1].(*Node) }

// lastToken returns the payload, age and tag of the token the last step
// sent.
func lastToken(t *testing.T, net *steptest.Net) ([]int64, uint64, uint32) {
	t.Helper()
	for _, m := range net.Out().Msgs {
		if m.Type == Token {
			return m.Payload, m.Stamp, m.Tag
		}
	}
	t.Fatal("the last step sent no token")
	return nil, 0, 0
}

// TestRingOrder: 4 nodes (paper numbering; node 1 holds the token). Node 1
// enters with its idle token; nodes 2 and 4 ask meanwhile, 4 first. On exit
// node 1 sends the token to 2, the nearest in the ring after it, although 4
// asked first; node 2 passes it to 4.
func TestRingOrder(t *testing.T) {
	net := newNet(t, Algorithm{}, 4)
	net.Enter(1)
	net.InCS(1)
	net.Enter(4, "request() 4→1", "request() 4→2", "request() 4→3")
	net.Enter(2, "request() 2→1", "request() 2→3", "request() 2→4")
	net.Deliver("request() 4→1")
	net.Deliver("request() 2→1")
	net.Exit(1, "token() 1→2")
	if p, age, tag := lastToken(t, net); !slices.Equal(p, []int64{0, 0, 0, 0}) || age != 0 || tag != 2 {
		t.Fatalf("token to 2: LN %v, age %d, tag %d; want LN [0 0 0 0], age 0, tag 2", p, age, tag)
	}
	net.Deliver("token() 1→2")
	net.InCS(2)
	net.Deliver("request() 4→2")
	net.Exit(2, "token() 2→4")
	if p, _, tag := lastToken(t, net); !slices.Equal(p, []int64{0, 1, 0, 0}) || tag != 4 {
		t.Fatalf("token to 4: LN %v, tag %d; want LN [0 1 0 0], tag 4", p, tag)
	}
	net.Deliver("token() 2→4")
	net.InCS(4)
	net.Exit(4)
	net.Drain() // late requests change nothing
	net.Enter(4)
	net.InCS(4)
	if net.Sent != 8 {
		t.Errorf("%d messages, want 8 (2 requests of 3, 2 tokens)", net.Sent)
	}
}

// TestLoneRequestCost: a lone request from the quiescent state costs N
// messages (N−1 requests, one token), none at the initial holder.
func TestLoneRequestCost(t *testing.T) {
	reorder.LoneTokenCost(t, Algorithm{}, []int{2, 4, 8, 16, 256})
}

// TestRandomOrder: random requests, messages delivered in random order,
// the failure-free algorithm, and the nodes with the failure protocol
// (their timers never fire here: no time-out, the same behaviour).
func TestRandomOrder(t *testing.T) {
	for _, a := range []Algorithm{{}, {FT: &Config{CSEstimate: 1}}} {
		t.Run(fmt.Sprint("ft=", a.FT != nil), func(t *testing.T) { randomOrder(t, a) })
	}
}

func randomOrder(t *testing.T, a Algorithm) {
	for _, c := range []struct {
		n, seeds, requests int
		saturate           bool
	}{{2, 100, 60, false}, {4, 100, 100, false}, {8, 100, 150, false}, {16, 40, 200, false}, {8, 50, 150, true}, {256, 1, 100, false}} {
		t.Run(fmt.Sprint("n=", c.n, " saturated=", c.saturate), func(t *testing.T) {
			for seed := range c.seeds {
				reorder.Run(t, reorder.Config{Alg: a, N: c.n, Seed: uint64(seed), Requests: c.requests, Saturate: c.saturate,
					Checks: []func(proto.System) error{reorder.PlainMessages}})
			}
		})
	}
}

// TestInvariantsCatch: TokenState and HeldToken fail on corrupted states.
func TestInvariantsCatch(t *testing.T) {
	nodes := Algorithm{}.NewNodes(4)
	s := reorder.Static(nodes)
	if err := TokenState(s); err != nil {
		t.Fatalf("initial state: %v", err)
	}
	if err := HeldToken(s); err != nil {
		t.Fatalf("initial state: %v", err)
	}
	nodes[2].(*Node).rn[2] = 1 // node 2's request is not granted, yet it does not ask
	if err := TokenState(s); err == nil {
		t.Fatal("TokenState accepts a pending request of a node that does not ask")
	}
	nodes[2].(*Node).rn[2] = 0
	nodes[0].(*Node).ln[3] = 1 // the token says node 3 was granted request 1
	if err := TokenState(s); err == nil {
		t.Fatal("TokenState accepts LN[3] = 1 with node 3's granted 0")
	}
	if err := HeldToken(s); err == nil {
		t.Fatal("HeldToken accepts LN[3] = 1 with node 3's granted 0")
	}
}
