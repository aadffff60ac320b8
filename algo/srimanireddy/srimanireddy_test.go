package srimanireddy

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// newExample returns a steptest.Net of n nodes, ℓ = ell, that checks the
// invariants (and IdleServes) after every step.
func newExample(t *testing.T, n, ell int) *steptest.Net {
	a := Algorithm{Config{Ell: ell}}
	invs := append(a.Invariants(false), proto.Invariant{Name: "idle_serves", Check: IdleServes})
	return &steptest.Net{T: t, Types: messageTypes, Nodes: a.NewNodes(n), Invariants: invs}
}

// queue returns the Q carried by the pending token msg, as node ids.
func queue(e *steptest.Net, msg string) []proto.NodeID {
	e.T.Helper()
	var q []proto.NodeID
	for _, w := range e.Find(msg).Payload[len(e.Nodes):] {
		j, _ := unpack(w)
		q = append(q, j)
	}
	return q
}

// held returns the tokens every node holds.
func held(e *steptest.Net) []int {
	var h []int
	for _, nd := range e.Nodes {
		h = append(h, nd.(*Node).Held())
	}
	return h
}

// TestWorkedExample: n = 4, ℓ = 2 tokens, initially at nodes 0 and 1.
// Nodes 2 and 3 ask at once. Both idle holders answer node 2's request:
// two tokens reach it ("many tokens can arrive"); it enters with one and
// sends the spare to node 3 when node 3's request arrives. Nodes 0 and 1
// then ask while both tokens are in use: node 2's exit sends its token to
// node 0 with node 1 queued; node 3, which does not know that node 0 was
// served, sends its token to node 0 too, and node 0 passes it on to node
// 1, the head of its queue.
func TestWorkedExample(t *testing.T) {
	e := newExample(t, 4, 2)
	if h := fmt.Sprint(held(e)); h != "[1 1 0 0]" {
		t.Fatalf("tokens held initially: %s", h)
	}
	e.EnterTag(2, 2, "request() 2→0", "request() 2→1", "request() 2→3")
	e.EnterTag(3, 3, "request() 3→0", "request() 3→1", "request() 3→2")
	e.Deliver("request() 2→0", "token() 0→2")
	e.Deliver("request() 3→0") // node 0's token is gone
	e.Deliver("request() 2→1", "token() 1→2")
	e.Deliver("token() 0→2")
	e.InCS(2)
	e.Deliver("token() 1→2") // a spare: node 2 knows no other request yet
	if h := fmt.Sprint(held(e)); h != "[0 0 2 0]" {
		t.Fatalf("tokens held: %s", h)
	}
	e.Deliver("request() 3→2", "token() 2→3") // the spare serves node 3
	e.Deliver("token() 2→3")
	e.InCSNow(2, 3)
	e.Deliver("request() 3→1")
	e.Deliver("request() 2→3")

	e.EnterTag(0, 4, "request() 0→1", "request() 0→2", "request() 0→3")
	e.EnterTag(1, 5, "request() 1→0", "request() 1→2", "request() 1→3")
	for _, m := range []string{"request() 0→1", "request() 0→2", "request() 0→3", "request() 1→0", "request() 1→2", "request() 1→3"} {
		e.Deliver(m) // both tokens are in use
	}
	e.Exit(2, "token() 2→0") // pending from node 3 on: 0, then 1
	if q := fmt.Sprint(queue(e, "token() 2→0")); q != "[1]" {
		t.Fatalf("node 2's token carries Q = %s, want [1]", q)
	}
	e.Deliver("token() 2→0")
	e.InCSNow(0, 3)
	e.Exit(3, "token() 3→0") // node 3 does not know node 0 was served
	e.Deliver("token() 3→0", "token() 0→1")
	e.Deliver("token() 0→1")
	e.InCSNow(0, 1)
	e.Exit(0)
	e.Exit(1)
	if h := fmt.Sprint(held(e)); h != "[1 1 0 0]" || len(e.Pending) != 0 {
		t.Fatalf("at the end: tokens held %s, %d in flight", h, len(e.Pending))
	}
	if e.Sent != 18 {
		t.Errorf("%d messages, want 18 (12 requests, 6 tokens)", e.Sent)
	}
}

// TestLoneRequest: from the initial state (token t at node t mod N), a
// lone request costs 0 messages at a node holding a token and exactly
// N+ℓ−1 elsewhere (survey, Table 3: "0 or N+K−1"): N−1 requests, and every
// idle holder sends its token. The requester then holds the ℓ tokens: the
// next lone request from another node costs N (one holder, one token),
// and the first requester's next one costs 0.
func TestLoneRequest(t *testing.T) {
	for _, n := range []int{2, 4, 8, 16, 256} {
		for _, ell := range []int{1, 2, n / 2, n - 1} {
			if ell < 1 || ell > n {
				continue
			}
			a := Algorithm{Config{Ell: ell}}
			stated := a.StatedCost(n)
			if stated.Low != 0 || stated.High != float64(n+ell-1) {
				t.Fatalf("stated cost %+v", stated)
			}
			for _, r := range []int{0, ell - 1} {
				lone := reorder.NewLone(t, reorder.Config{Alg: a, N: n})
				if sent := lone.Serve(proto.NodeID(r), 1); sent != 0 {
					t.Errorf("n=%d ℓ=%d, holder %d: %d messages, want 0", n, ell, r, sent)
				}
			}
			r, s := n-1, 0 // r holds no token; after r's request, no one but r does
			if ell >= n {
				continue
			}
			lone := reorder.NewLone(t, reorder.Config{Alg: a, N: n})
			if sent := lone.Serve(proto.NodeID(r), 1); sent != n+ell-1 {
				t.Errorf("n=%d ℓ=%d, node %d: %d messages, want N+ℓ−1 = %d", n, ell, r, sent, n+ell-1)
			}
			if h := lone.Nodes()[r].(*Node).Held(); h != ell {
				t.Errorf("n=%d ℓ=%d: node %d holds %d tokens after its request, want %d", n, ell, r, h, ell)
			}
			if sent := lone.Serve(proto.NodeID(s), 2); sent != n {
				t.Errorf("n=%d ℓ=%d, then node %d: %d messages, want N = %d", n, ell, s, sent, n)
			}
			want := 0
			if ell == 1 {
				want = n // node r gave its only token away
			}
			if sent := lone.Serve(proto.NodeID(r), 3); sent != want {
				t.Errorf("n=%d ℓ=%d, node %d again: %d messages, want %d", n, ell, r, sent, want)
			}
		}
	}
}

// TestRandom drives n ∈ {2, 4, 8, 16} nodes with several ℓ (ℓ > N too),
// random requests and a random delivery order (non-FIFO), with
// internal/reorder's checks and the invariants after every step (at most
// ℓ in the critical section, exactly ℓ tokens, a node in the critical
// section holds one, no idle token beside a known pending request); at
// the end every request was served, nothing is in flight, no node queues
// a request. No request costs more than N+ℓ−1 messages (each token is
// sent at most once to a request: the LN it carries says it was granted).
// Runs with random exits must have had min(ℓ, 2) nodes in the critical
// section together.
func TestRandom(t *testing.T) {
	for _, n := range []int{2, 4, 8, 16} {
		for _, ell := range []int{1, 2, 3, n / 2, n - 1, n + 1} {
			if ell < 1 {
				continue
			}
			for _, sat := range []bool{false, true} {
				seeds := 40
				if n == 16 {
					seeds = 10
				}
				most := 0
				for seed := range seeds {
					a := Algorithm{Config{Ell: ell}}
					peak := func(s proto.System) error {
						k := 0
						for _, nd := range s.Nodes() {
							k += nd.(*Node).Units()
						}
						most = max(most, k)
						return nil
					}
					res := reorder.Run(t, reorder.Config{Alg: a, N: n, Seed: uint64(seed), Requests: 20 * n, Saturate: sat,
						Checks: []func(proto.System) error{reorder.PlainMessages, IdleServes, peak}})
					if _, hi := res.Costs(); hi > n+ell-1 || len(res.ByTag) != 20*n {
						t.Fatalf("n=%d ℓ=%d seed=%d: %d requests, the costliest %d messages (> N+ℓ−1 = %d)", n, ell, seed, len(res.ByTag), hi, n+ell-1)
					}
				}
				if !sat && most < min(ell, 2) {
					t.Errorf("n=%d ℓ=%d: at most %d nodes were in the critical section together", n, ell, most)
				}
			}
		}
	}
}

// TestInvariantsCatch: states built by hand that the invariants reject.
func TestInvariantsCatch(t *testing.T) {
	for _, c := range []struct {
		name, want string
		edit       func(ns []*Node)
	}{
		{"three in the critical section, ℓ = 2", "ell_exclusion", func(ns []*Node) {
			for _, nd := range ns[:3] {
				nd.asked, nd.inCS, nd.held = true, true, 1
			}
		}},
		{"a token more", "tokens", func(ns []*Node) { ns[3].held++ }},
		{"a token lost", "tokens", func(ns []*Node) { ns[0].held-- }},
		{"in the critical section without a token", "token_use", func(ns []*Node) { ns[2].asked, ns[2].inCS = true, true }},
		{"waiting beside an idle token", "token_use", func(ns []*Node) { ns[1].asked = true }},
		{"a queue without the token in use", "token_use", func(ns []*Node) { ns[0].q = []int64{entry(2, 5)} }},
		{"an idle token beside a pending request", "idle_serves", func(ns []*Node) { ns[0].rn[3] = 7 }},
	} {
		a := Algorithm{Config{Ell: 2}}
		pn := a.NewNodes(4)
		c.edit(nodecast.All[*Node](reorder.Static(pn)))
		invs := append(a.Invariants(false), proto.Invariant{Name: "idle_serves", Check: IdleServes})
		failed := steptest.Caught(invs, reorder.Static(pn))
		if !strings.Contains(strings.Join(failed, " "), c.want) {
			t.Errorf("%s: failed %v, want %s among them", c.name, failed, c.want)
		}
	}
}

// TestConfig: ℓ > N tokens are spread round-robin (the configuration's
// checks are algo/kexcl's TestOneUnit).
func TestConfig(t *testing.T) {
	var h []int
	for _, nd := range (Algorithm{Config{Ell: 6}}).NewNodes(4) {
		h = append(h, nd.(*Node).Held())
	}
	if fmt.Sprint(h) != "[2 2 1 1]" {
		t.Errorf("ℓ = 6 on 4 nodes: tokens held %v, want [2 2 1 1]", h)
	}
}

// TestCrashRecover: a crashed node ignores every input; it recovers in the
// initial state (steptest.CrashRecover).
func TestCrashRecover(t *testing.T) {
	steptest.CrashRecover(t, Algorithm{Config{Ell: 2}}.NewNodes(4), 3)
}

// TestCosts: messages per request at N = 16 and 64 (one seed each, ℓ =
// N/4, 4N requests) and at N = 256 (N/16 requests), with random requests
// and exits and with every node asking at once (saturated), random
// delivery order, every check after every step; the mean and the extremes
// are logged (docs/algorithms) and must lie in the stated range.
func TestCosts(t *testing.T) {
	for _, n := range []int{16, 64, 256} {
		for _, sat := range []bool{false, true} {
			ell := n / 4
			a := Algorithm{Config{Ell: ell}}
			requests := 4 * n
			if n == 256 {
				requests = n / 16
			}
			reorder.WithinStated(t, reorder.Config{Alg: a, N: n, Seed: 1, Requests: requests, Saturate: sat}, a.StatedCost(n).Low, fmt.Sprintf("ℓ=%d", ell))
		}
	}
}

// TestLoneSequence: lone requests one after another from random nodes (the
// simulator's sequential workload, without its timing), at N = 16 and 64
// with ℓ = 1, 2 and N/4: each costs 0 (an idle token here), or N−1
// requests plus one token from every node holding an idle token, so
// between N and N+ℓ−1. The mean is logged (docs/algorithms).
func TestLoneSequence(t *testing.T) {
	for _, n := range []int{16, 64} {
		for _, ell := range []int{1, 2, n / 4} {
			a := Algorithm{Config{Ell: ell}}
			lone := reorder.NewLone(t, reorder.Config{Alg: a, N: n})
			rng := rand.New(rand.NewPCG(uint64(n), uint64(ell)))
			total, zero, requests := 0, 0, 32000/n
			for k := range requests {
				r := proto.NodeID(rng.IntN(n))
				holders := 0
				for i, nd := range lone.Nodes() {
					if proto.NodeID(i) != r && nd.(*Node).Held() > 0 {
						holders++
					}
				}
				mine := lone.Nodes()[r].(*Node).Held() > 0
				sent := lone.Serve(r, uint32(k+1))
				want := n - 1 + holders
				if mine {
					want = 0
					zero++
				}
				if sent != want {
					t.Fatalf("N=%d ℓ=%d, request %d at node %d: %d messages, want %d (%d other holders, a token here: %v)", n, ell, k, r, sent, want, holders, mine)
				}
				total += sent
			}
			t.Logf("N=%d ℓ=%d: %d lone requests from random nodes, %.2f messages per request, %d at no cost", n, ell, requests, float64(total)/float64(requests), zero)
		}
	}
}
