package raynal

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// primes returns the first n primes, A_0 … A_{n−1}.
func primes(n int) []int64 {
	var out []int64
	for p := int64(2); len(out) < n; p++ {
		prime := true
		for _, q := range out {
			if p%q == 0 {
				prime = false
				break
			}
		}
		if prime {
			out = append(out, p)
		}
	}
	return out
}

// product computes T = Π X_j with X_j = A_j^(m_j+[j≠0]) / A_{j+1}^m_j in
// big rationals, as the survey's nodes would.
func product(a []int64, m []uint64) *big.Rat {
	n := len(a)
	t := big.NewRat(1, 1)
	for j := range n {
		e := int64(m[j])
		if j != 0 {
			e++
		}
		num := new(big.Int).Exp(big.NewInt(a[j]), big.NewInt(e), nil)
		den := new(big.Int).Exp(big.NewInt(a[(j+1)%n]), big.NewInt(int64(m[j])), nil)
		t.Mul(t, new(big.Rat).SetFrac(num, den))
	}
	return t
}

// TestPrimes checks the exponent arithmetic against the survey's: for
// reachable states (the permission passed t times round the ring) and for
// arbitrary vectors m, Privileged(m) = i exactly when T = Q/A_i in big
// rationals, and c_p is A_p's exponent in T.
func TestPrimes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{2, 3, 5, 8} {
		a := primes(n)
		q := big.NewInt(1)
		for _, p := range a {
			q.Mul(q, big.NewInt(p))
		}
		check := func(m []uint64, reachable bool, holder int) {
			t.Helper()
			tt := product(a, m)
			want := proto.Nil
			for i := range n {
				if tt.Cmp(new(big.Rat).SetFrac(q, big.NewInt(a[i]))) == 0 {
					want = proto.NodeID(i)
				}
			}
			got := Privileged(func(j int) uint64 { return m[j] }, n)
			if got != want || reachable && got != proto.NodeID(holder) {
				t.Fatalf("n=%d m=%v: Privileged %d, T = %v gives %d (holder %d, reachable %v)", n, m, got, tt, want, holder, reachable)
			}
			for p := range n { // c_p: T·A_p^−c_p has no factor A_p
				c := Exponent(func(j int) uint64 { return m[j] }, n, p)
				r := new(big.Rat).Set(tt)
				f := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(a[p]), big.NewInt(abs(c)), nil))
				if c > 0 {
					r.Quo(r, f)
				} else {
					r.Mul(r, f)
				}
				if new(big.Int).Mod(r.Num(), big.NewInt(a[p])).Sign() == 0 || new(big.Int).Mod(r.Denom(), big.NewInt(a[p])).Sign() == 0 {
					t.Fatalf("n=%d m=%v: exponent of %d in T = %v is not %d", n, m, a[p], tt, c)
				}
			}
		}
		m := make([]uint64, n)
		for pass := range 4 * n { // pass number pass is made by node pass mod n
			check(m, true, pass%n)
			m[pass%n]++
		}
		for range 200 {
			for j := range m {
				m[j] = uint64(rng.IntN(3))
			}
			check(m, false, 0)
		}
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestWorkedExample: three nodes, node 0 privileged. Node 2 asks. It
// knows nothing yet (m = 0 everywhere), which shows node 0 privileged, so
// its first round is a pass request to node 0, which does not ask and
// passes the permission to node 1 (m_0 = 1) before replying; the round
// fails (T = Q/A_1). After the wait, a pass request to node 1 moves the
// permission to node 2, which enters: 2 rounds, 2 · 2(n−1) = 8 messages,
// the survey's bound 2(n−1)² for the farthest requester. Node 0 then asks:
// what it knows (itself m_0 = 1, the others 0) is stale and shows node 1
// privileged, so its first round sends node 1 a pass request carrying
// m_1 = 0, which node 1 (m_1 = 1) ignores; the round learns T = Q/A_2
// (node 2 is in the critical section) and waits; node 2 leaves and hands
// the permission on to node 0; the second round (a stale pass request to
// node 2, ignored) shows T = Q/A_0 and node 0 enters.
func TestWorkedExample(t *testing.T) {
	a := Algorithm{Wait: DefaultWait}
	net := &steptest.Net{T: t, Types: messageTypes, Nodes: a.NewNodes(3), Invariants: a.Invariants(false)}
	net.Enter(2, "request(1) 2→0", "request(0) 2→1")
	net.Deliver("request(1) 2→0", "reply() 0→2") // node 0 passes: m_0 = 1
	if net.Find("reply() 0→2").Stamp != 1 {
		t.Fatalf("node 0's reply carries m = %d, want 1", net.Find("reply() 0→2").Stamp)
	}
	net.Deliver("request(0) 2→1", "reply() 1→2")
	net.Deliver("reply() 1→2")
	net.Deliver("reply() 0→2") // T = Q/A_1: wait
	if ts := net.Timers(2); len(ts) != 1 || ts[0].After != DefaultWait {
		t.Fatalf("node 2's timers: %+v, want one of %gδ", ts, DefaultWait)
	}
	net.Fire(2, timerRetry, "request(0) 2→0", "request(1) 2→1")
	net.Deliver("request(1) 2→1", "reply() 1→2") // node 1 passes: m_1 = 1
	net.Deliver("request(0) 2→0", "reply() 0→2")
	net.Deliver("reply() 0→2")
	net.Deliver("reply() 1→2")
	net.InCS(2)
	if net.Sent != 8 {
		t.Errorf("node 2's request cost %d messages, want 2(n−1)² = 8", net.Sent)
	}
	net.EnterTag(0, 9, "request(1) 0→1", "request(0) 0→2")
	net.Deliver("request(1) 0→1", "reply() 1→0") // stale: m_1 = 1, not 0
	net.Deliver("request(0) 0→2", "reply() 2→0") // node 2 is in the CS: no pass
	net.Deliver("reply() 1→0")
	net.Deliver("reply() 2→0")                                  // T = Q/A_2: wait
	net.Exit(2)                                                 // m_2 = 1: node 0 privileged
	net.Fire(0, timerRetry, "request(0) 0→1", "request(1) 0→2") // node 2 privileged, as far as node 0 knows
	net.Deliver("request(0) 0→1", "reply() 1→0")
	net.Deliver("request(1) 0→2", "reply() 2→0") // stale: m_2 = 1, not 0
	net.Deliver("reply() 1→0")
	net.Deliver("reply() 2→0")
	net.InCS(0)
	net.Exit(0)
	if net.Sent != 16 {
		t.Errorf("%d messages in all, want 16", net.Sent)
	}
}

// TestStalePass: a pass request whose m is no longer the receiver's is
// ignored (the permission moved on since the requester saw it), as is one
// to a node that asks.
func TestStalePass(t *testing.T) {
	nodes := Algorithm{}.NewNodes(3)
	var out proto.Output
	nodes[0].Step(proto.Input{Kind: proto.Receive, Msg: proto.Message{Type: Request, Reply: Pass, From: 1, To: 0, Stamp: 0, Tag: 5}}, &out)
	if m := nodes[0].(*Node).m; m != 1 {
		t.Fatalf("a current pass request left m_0 = %d, want 1", m)
	}
	out.Reset()
	nodes[0].Step(proto.Input{Kind: proto.Receive, Msg: proto.Message{Type: Request, Reply: Pass, From: 2, To: 0, Stamp: 0, Tag: 6}}, &out)
	if m := nodes[0].(*Node).m; m != 1 || len(out.Msgs) != 1 || out.Msgs[0].Stamp != 1 {
		t.Fatalf("a stale pass request: m_0 = %d, sent %+v; want m_0 = 1 and one reply carrying 1", m, out.Msgs)
	}
	out.Reset()
	nodes[1].Step(proto.Input{Kind: proto.EnterCS, Tag: 7}, &out)
	out.Reset()
	nodes[1].Step(proto.Input{Kind: proto.Receive, Msg: proto.Message{Type: Request, Reply: Pass, From: 2, To: 1, Stamp: 0, Tag: 8}}, &out)
	if m := nodes[1].(*Node).m; m != 0 {
		t.Fatalf("a pass request to an asking node left its m = %d, want 0", m)
	}
}

// TestLoneRequest: from the initial state, a lone request of node r costs
// 2(n−1) messages per round for d rounds, d the ring distance from node 0
// (1 round at node 0): at most 2(n−1)², reached by node n−1 (survey,
// Table 2). The requester knows the initial m, so its first round already
// passes the permission.
func TestLoneRequest(t *testing.T) {
	for _, n := range []int{2, 4, 8, 16, 64} {
		for _, r := range []int{0, 1, n / 2, n - 1} {
			lone := reorder.NewLone(t, reorder.Config{Alg: Algorithm{}, N: n})
			rounds := max(r, 1)
			if sent := lone.Serve(proto.NodeID(r), uint32(r+1)); sent != 2*(n-1)*rounds {
				t.Errorf("n=%d, requester %d: %d messages, want 2(n−1)·%d = %d", n, r, sent, rounds, 2*(n-1)*rounds)
			}
		}
		if st := (Algorithm{}).StatedCost(n); st.High != float64(2*(n-1)*(n-1)) {
			t.Errorf("n=%d: stated %g, want 2(n−1)²", n, st.High)
		}
	}
}

// TestRandom drives n ∈ {2, 3, 5, 8} nodes (any n: the ring needs no
// hypercube) with random requests and a random delivery order (channels
// not FIFO), asking again at once after a failed round (Wait 0: the
// random driver has no timers), with internal/reorder's checks and the
// invariants after every step; every request is served.
func TestRandom(t *testing.T) {
	for _, n := range []int{2, 3, 5, 8} {
		seeds := 100
		if testing.Short() {
			seeds = 20
		}
		for seed := range seeds {
			t.Run(fmt.Sprintf("n=%d/seed=%d", n, seed), func(t *testing.T) {
				res := reorder.Run(t, reorder.Config{Alg: Algorithm{}, N: n, Seed: uint64(seed), Requests: 10 * n,
					Checks: []func(proto.System) error{reorder.PlainMessages, reorder.Serving(reorder.Requester(Reply))}})
				if least, _ := res.Costs(); least < 2*(n-1) {
					t.Errorf("a request cost %d messages, less than one round 2(n−1) = %d", least, 2*(n-1))
				}
			})
		}
	}
	for seed := range 20 {
		reorder.Run(t, reorder.Config{Alg: Algorithm{}, N: 5, Seed: uint64(seed), Requests: 60, Saturate: true})
	}
}

// TestInvariantsCatch: the invariants catch a broken state — two nodes
// passing at once (no privileged node), a node in the critical section
// without the permission, and a reply ahead of its sender.
func TestInvariantsCatch(t *testing.T) {
	invs := Algorithm{}.Invariants(false)
	for _, c := range []struct {
		name  string
		build func([]*Node) []proto.Message
		want  string
	}{
		{"two passes", func(ns []*Node) []proto.Message { ns[0].m, ns[2].m = 1, 1; return nil }, "permission"},
		{"CS without permission", func(ns []*Node) []proto.Message { ns[1].inCS, ns[1].asked = true, true; return nil }, "permission"},
		{"reply ahead", func([]*Node) []proto.Message {
			return []proto.Message{{Type: Reply, From: 1, To: 2, Stamp: 3, Tag: 1}}
		}, "seen_not_ahead"},
	} {
		nodes := Algorithm{}.NewNodes(4)
		ns := make([]*Node, len(nodes))
		for i, nd := range nodes {
			ns[i] = nd.(*Node)
		}
		pending := c.build(ns)
		caught := steptest.Caught(invs, steptest.System(nodes, pending))
		if len(caught) == 0 || caught[0] != c.want {
			t.Errorf("%s: caught %v, want %s", c.name, caught, c.want)
		}
	}
}

// TestCrashRecover: a crashed node ignores every input; it recovers in the
// initial state (steptest.CrashRecover).
func TestCrashRecover(t *testing.T) {
	steptest.CrashRecover(t, Algorithm{}.NewNodes(4), 1)
}
