package neilsenmizuno

import (
	"fmt"
	"math/bits"
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// TestTwoConcurrentRequests: 4 nodes on the binomial tree (1→0, 2→0, 3→2;
// node 0 holds the token). Nodes 3 and 1 request at once. 1's request
// reaches the holder first and gets the token; 3's request, forwarded by 2
// and then by 0 (whose last now points at 1), stops at the sink 1, which
// queues it (next = 3) and passes the token on after its critical section.
func TestTwoConcurrentRequests(t *testing.T) {
	net := &steptest.Net{T: t, Types: messageTypes, Nodes: Algorithm{}.NewNodes(4)}

	net.Enter(3, "request(3) 3→2")
	net.Enter(1, "request(1) 1→0")
	net.Deliver("request(1) 1→0", "token() 0→1")
	net.Deliver("request(3) 3→2", "request(3) 2→0")
	net.Deliver("request(3) 2→0", "request(3) 0→1")
	net.Deliver("request(3) 0→1") // 1 is a sink waiting for the token: next = 3
	if nx := net.Nodes[1].(*Node).Next(); nx != 3 {
		t.Fatalf("next of node 1 = %d, want 3", nx)
	}
	net.Deliver("token() 0→1")
	net.InCS(1)
	net.Exit(1, "token() 1→3")
	net.Deliver("token() 1→3")
	net.InCS(3)
	net.Exit(3)
	if net.Sent != 6 {
		t.Errorf("%d messages, want 6", net.Sent)
	}
	// The paths reversed: every last points towards the sink 3, which
	// holds the idle token.
	var lasts []proto.NodeID
	for _, nd := range net.Nodes {
		lasts = append(lasts, nd.(*Node).Last())
	}
	if fmt.Sprint(lasts) != "[2 0 3 -1]" || !net.Nodes[3].View().TokenHere {
		t.Errorf("lasts %v (want [2 0 3 -1]), node 3 token here %v", lasts, net.Nodes[3].View().TokenHere)
	}
	// 3 holds the idle token: it enters again without a message.
	net.Enter(3)
	net.InCS(3)
}

// TestLoneRequest: from the initial tree, node i's lone request climbs its
// depth (the number of bits set in i) to node 0, and the token comes back
// directly: popcount(i) + 1 messages, at most log2 N + 1 ≤ D + 1; none for
// node 0.
func TestLoneRequest(t *testing.T) {
	for _, n := range []int{2, 4, 16, 64} {
		high := int(Algorithm{}.StatedCost(n).High)
		for i := range n {
			got := lone(t, n, proto.NodeID(i))
			want := bits.OnesCount(uint(i)) + 1
			if i == 0 {
				want = 0
			}
			if got != want || got > high {
				t.Errorf("n=%d node %d: %d messages, want %d (stated high %d)", n, i, got, want, high)
			}
		}
	}
}

func TestDiameter(t *testing.T) {
	for _, c := range []struct{ n, d int }{{1, 0}, {2, 1}, {4, 3}, {8, 5}, {64, 11}, {1 << 20, 39}} {
		if got := Diameter(c.n); got != c.d {
			t.Errorf("Diameter(%d) = %d, want %d", c.n, got, c.d)
		}
	}
}

func lone(t *testing.T, n int, i proto.NodeID) int {
	return reorder.NewLone(t, config(n)).Serve(i, 7)
}

// config is a run of n nodes with the test's check after every step: every
// message serves the pending request of the node it names (the token its
// receiver's, a request its J's), and carries its serial.
func config(n int) reorder.Config {
	return reorder.Config{Alg: Algorithm{}, N: n, Checks: []func(proto.System) error{reorder.Serving(reorder.Carried(Token))}}
}

// TestRandomNonFIFO drives n ∈ {2, 4, 8, 16} nodes with random requests and
// delivers the messages in flight in random order (internal/reorder),
// checking after every step mutual exclusion, the token count, the
// invariants and that every message serves the pending request it names;
// at the end every request was served within the D + 1 bound, with nothing
// left in flight.
func TestRandomNonFIFO(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 30
	}
	for _, n := range []int{2, 4, 8, 16} {
		t.Run(fmt.Sprint("n=", n), func(t *testing.T) {
			for seed := range seeds {
				runRandom(t, n, uint64(seed), 20*n)
			}
		})
	}
}

// TestRandomLarger: one run at n = 64 and one at n = 256.
func TestRandomLarger(t *testing.T) {
	runRandom(t, 64, 1, 4*64)
	runRandom(t, 256, 1, 2*256)
}

func runRandom(t *testing.T, n int, seed uint64, requests int) {
	t.Helper()
	c := config(n)
	c.Seed, c.Requests = seed, requests
	res := reorder.Run(t, c)
	if _, most := res.Costs(); most > int(Algorithm{}.StatedCost(n).High) {
		t.Fatalf("n=%d seed=%d: a request cost %d messages, above D+1 = %d", n, seed, most, int(Algorithm{}.StatedCost(n).High))
	}
}
