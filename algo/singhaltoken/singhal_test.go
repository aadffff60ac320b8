package singhaltoken

import (
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// TestTwoConcurrentRequests: 4 nodes in the initial staircase; nodes 2 and
// 3 request at once. Each sends its request to the nodes its SV says are
// requesting; the one to node 0 (where each believes the token went, its
// tokenTo) is a relay. Node 3 learns of 2 through 2's answer to its
// request, node 0 grants the idle token to 2 and relays 3's request after
// it, and 2, on leaving, finds 3 requesting in its merged vectors.
func TestTwoConcurrentRequests(t *testing.T) {
	net := &steptest.Net{T: t, Types: messageTypes, Nodes: Algorithm{}.NewNodes(4)}

	net.Enter(2, "relay(2) 2→0", "request(2) 2→1")
	net.Enter(3, "relay(3) 3→0", "request(3) 3→1", "request(3) 3→2")
	// 2 is requesting and did not know 3 was: it tells 3 of its request.
	net.Deliver("request(3) 3→2", "request(2) 2→3")
	// 0 holds the idle token: it grants it to 2.
	net.Deliver("relay(2) 2→0", "token() 0→2")
	// 0 no longer holds the token: it relays 3's request to 2.
	net.Deliver("relay(3) 3→0", "relay(3) 0→2")
	net.Deliver("token() 0→2")
	net.InCS(2)
	net.Deliver("relay(3) 0→2") // 2 knows of it already
	net.Deliver("request(2) 2→3")
	net.Deliver("request(2) 2→1")
	net.Deliver("request(3) 3→1")
	net.Exit(2, "token() 2→3")
	net.Deliver("token() 2→3")
	net.InCS(3)
	net.Exit(3)
	if net.Sent != 9 {
		t.Errorf("%d messages, want 9", net.Sent)
	}
	// 3 keeps the idle token and knows of no request.
	n3 := net.Nodes[3].(*Node)
	if fmt.Sprint(n3.SV()) != "[N N N H]" || !n3.View().TokenHere {
		t.Errorf("node 3 ends with SV %v, token here %v", n3.SV(), n3.View().TokenHere)
	}
	// Node 0 last saw 2 and 3 requesting: its next request goes to them
	// (a relay to 2, to which it passed the token), and 3 grants the idle
	// token at once. 2 relays 0's request to 3, which knows it.
	if got := fmt.Sprint(net.Nodes[0].(*Node).SV()); got != "[N N R R]" {
		t.Errorf("node 0 ends with SV %s, want [N N R R]", got)
	}
	net.Enter(0, "relay(0) 0→2", "request(0) 0→3")
	net.Deliver("request(0) 0→3", "token() 3→0")
	net.Deliver("relay(0) 0→2", "relay(0) 2→3")
	net.Deliver("relay(0) 2→3")
	net.Deliver("token() 3→0")
	net.InCS(0)
}

// TestTextbookRulesLoseRequests: without the relay (decision D1), the
// rules as the survey and the textbook give them leave a request unserved
// with nothing in flight, even with FIFO channels: the request reached only
// nodes in state N, and the idle token stays at a node that never hears of
// it. The relay is there because this test finds such a run.
func TestTextbookRulesLoseRequests(t *testing.T) {
	textbook, fifo = true, true
	defer func() { textbook, fifo = false, false }()
	for seed := range 500 {
		if err := simulate(t, 4, uint64(seed), 80); err != nil {
			t.Logf("seed %d: %v", seed, err)
			return
		}
	}
	t.Error("no run of the textbook rules lost a request")
}

// TestLoneRequest: from the initial state, node i's lone request costs i
// requests (to nodes 0..i−1) and the token: i+1 messages, N for node N−1;
// node 0 holds the idle token and sends nothing. The mean is (N−1)(N+2)/2N,
// the survey's (N+1)/2 for light traffic.
func TestLoneRequest(t *testing.T) {
	for _, n := range []int{2, 4, 16, 64} {
		for i := range n {
			got := lone(t, n, proto.NodeID(i))
			want := i + 1
			if i == 0 {
				want = 0
			}
			if got != want {
				t.Errorf("n=%d node %d: %d messages, want %d", n, i, got, want)
			}
			if i == n-1 && got > int(Algorithm{}.StatedCost(n).High) {
				t.Errorf("n=%d: %d messages, above the stated N", n, got)
			}
		}
	}
}

func lone(t *testing.T, n int, i proto.NodeID) int {
	return reorder.NewLone(t, config(n)).Serve(i, 7)
}

// TestRandomNonFIFO drives n ∈ {2, 4, 8, 16} nodes with random requests and
// delivers the messages in flight in random order (internal/reorder),
// checking mutual exclusion, the token count and the invariants after every
// step, and that every request is served with nothing left in flight.
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
	runRandom(t, 64, 1, 2*64)
	runRandom(t, 256, 1, 256/2)
}

// traceRun logs every step of a random run (for debugging).
var traceRun = false

// fifo makes the random runs deliver in order between each pair of nodes.
var fifo = false

// config is a run of n nodes (requests may still be in flight when their
// node enters: reorder.Serving does not hold).
func config(n int) reorder.Config {
	return reorder.Config{Alg: Algorithm{}, N: n, FIFO: fifo}
}

func runRandom(t *testing.T, n int, seed uint64, requests int) {
	t.Helper()
	if err := simulate(t, n, seed, requests); err != nil {
		t.Fatal(err)
	}
}

// simulate runs one random run and returns the first violation.
func simulate(t *testing.T, n int, seed uint64, requests int) error {
	c := config(n)
	c.Seed, c.Requests = seed, requests
	if traceRun { // every step, and the vectors of every node after it
		c.Log = t.Logf
		c.Checks = append(c.Checks, func(s proto.System) error {
			var st []string
			for _, nd := range nodesOf(s) {
				st = append(st, fmt.Sprint(nd.sv, nd.sn))
			}
			t.Log(st)
			return nil
		})
	}
	_, err := reorder.Try(c)
	return err
}
