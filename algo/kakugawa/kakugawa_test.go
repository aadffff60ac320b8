package kakugawa

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ocbench/ocbench/algo/sanders"
	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// TestCoterie: for every n and g tried, the quorums of one group meet,
// those of two groups are disjoint (so the three conditions of a
// k-coterie hold, package doc), no quorum holds another, every node is in
// its own quorum; the sets meet Sanders' conditions (mutual exclusion)
// exactly when there is one group.
func TestCoterie(t *testing.T) {
	for _, n := range []int{2, 3, 4, 7, 8, 16, 64} {
		for _, g := range []int{1, 2, 3, 5} {
			if g > n {
				continue
			}
			c := Coterie{Groups: g}
			q := make([][]proto.NodeID, n)
			for i := range n {
				q[i], _ = c.Sets(proto.NodeID(i), n)
				if !slices.Contains(q[i], proto.NodeID(i)) {
					t.Fatalf("n=%d g=%d: node %d not in its quorum %v", n, g, i, q[i])
				}
			}
			for i := range n {
				for j := range n {
					meet := slices.ContainsFunc(q[i], func(k proto.NodeID) bool { return slices.Contains(q[j], k) })
					if meet != (i%g == j%g) {
						t.Fatalf("n=%d g=%d: quorums %v of %d and %v of %d meet: %v", n, g, q[i], i, q[j], j, meet)
					}
					if !slices.Equal(q[i], q[j]) && !slices.ContainsFunc(q[j], func(k proto.NodeID) bool { return !slices.Contains(q[i], k) }) {
						t.Fatalf("n=%d g=%d: quorum %v of %d holds %v of %d", n, g, q[i], i, q[j], j)
					}
				}
			}
			if i, j, ok := sanders.Check(c, n); ok != (g == 1) { // mutual exclusion only with one group
				if ok {
					t.Fatalf("n=%d g=%d: Sanders' conditions hold with %d groups", n, g, g)
				}
				t.Fatalf("n=%d g=%d: nodes %d and %d break Sanders' conditions", n, g, i, j)
			}
		}
	}
}

// TestWorkedExample: N = 4, ℓ = 2: groups {0, 2} and {1, 3}, each node's
// quorum its whole group. Nodes 0 and 1 ask together and are in the
// critical section together (two units, one per group), each after a
// request and a grant. Node 2 then asks: its own permission is granted (to
// node 0), so a quorum of its group is in use, and it chooses the other
// group's quorum {1, 3} (the survey's "appropriate quorum"); both arbiters
// serve node 1 and send it a fail; when node 1 leaves, both grant it, and
// nodes 0 and 2, of one group, are in the critical section together, which
// a quorum fixed by the node's group could not give.
func TestWorkedExample(t *testing.T) {
	a := Algorithm{Config{Ell: 2, K: 1}}
	net := &steptest.Net{T: t, Types: a.MessageTypes(), Nodes: a.NewNodes(4), Invariants: a.Invariants(false)}
	net.EnterTag(0, 10, "request() 0→2")
	net.EnterTag(1, 11, "request() 1→3")
	net.Deliver("request() 0→2", "grant() 2→0")
	net.Deliver("request() 1→3", "grant() 3→1")
	net.Deliver("grant() 2→0")
	net.Deliver("grant() 3→1")
	net.InCSNow(0, 1)
	net.EnterTag(2, 12, "request() 2→1", "request() 2→3")
	net.Deliver("request() 2→1", "fail() 1→2")
	net.Deliver("request() 2→3", "fail() 3→2")
	net.Deliver("fail() 1→2")
	net.Deliver("fail() 3→2")
	net.Exit(1, "release() 1→3", "grant() 1→2")
	net.Deliver("release() 1→3", "grant() 3→2")
	net.Deliver("grant() 1→2")
	net.Deliver("grant() 3→2")
	net.InCSNow(0, 2)
	if q := net.Nodes[2].(*Node).Node.Quorum(); !slices.Equal(q, []proto.NodeID{1, 3}) {
		t.Errorf("node 2's quorum %v, want [1 3]", q)
	}
	net.Exit(0, "release() 0→2")
	net.Deliver("release() 0→2")
	net.Exit(2, "release() 2→1", "release() 2→3")
	net.Drain()
	if net.Sent != 14 {
		t.Errorf("%d messages, want 14", net.Sent)
	}
}

// TestChoice: node i asks its own group's quorum while its permission is
// free, and the next group's (the quorum of its rank there) while its
// permission is granted.
func TestChoice(t *testing.T) {
	for _, c := range []struct{ n, ell int }{{4, 2}, {9, 3}, {16, 3}, {7, 2}} {
		a := Algorithm{Config{Ell: c.ell, K: 1}}
		nodes := a.NewNodes(c.n)
		g := a.coterie(c.n).Groups
		for i, nd := range nodes {
			k := nd.(*Node)
			if got := k.Choice(); got != i%g {
				t.Errorf("n=%d ℓ=%d: idle node %d chooses group %d, want its own %d", c.n, c.ell, i, got, i%g)
			}
		}
		// Node 0 asks and is granted its own permission: node 0's arbiter
		// is busy, so node 0 itself would choose the next group, and so
		// would any node whose arbiter 0 is.
		var out proto.Output
		nodes[0].Step(proto.Input{Kind: proto.EnterCS, Tag: 1}, &out)
		if got := nodes[0].(*Node).Choice(); got != 1%g {
			t.Errorf("n=%d ℓ=%d: node 0, its permission granted, chooses group %d, want %d", c.n, c.ell, got, 1%g)
		}
	}
}

// TestLoneRequest: a request alone costs 3(|Q|−1) messages (request,
// grant and release to each other member of its quorum): below the
// survey's 3s, which counts the node itself.
func TestLoneRequest(t *testing.T) {
	for _, ell := range []int{1, 2, 3, 8} {
		a := Algorithm{Config{Ell: ell, K: 1}}
		for _, n := range []int{2, 4, 16, 64} {
			lone := reorder.NewLone(t, reorder.Config{Alg: a, N: n})
			c := a.coterie(n)
			for r := range n {
				q, _ := c.Sets(proto.NodeID(r), n)
				if sent := lone.Serve(proto.NodeID(r), uint32(r+1)); sent != 3*(len(q)-1) || float64(sent) > a.StatedCost(n).High {
					t.Errorf("ℓ=%d n=%d, requester %d: %d messages, want 3(|Q|−1) = %d", ell, n, r, sent, 3*(len(q)-1))
				}
			}
		}
	}
}

// TestRandom drives ℓ ∈ {1, 2, 3, 5} with random requests and delivery
// order (not FIFO), and saturated, with the invariants (at most ℓ units,
// one node a group, the arbiters) after every step; every request is
// served, and some run has min(ℓ, n) nodes in the critical section
// together (one per group).
func TestRandom(t *testing.T) {
	for _, ell := range []int{1, 2, 3, 5} {
		a := Algorithm{Config{Ell: ell, K: 1}}
		for _, n := range []int{2, 4, 6, 9} {
			seeds := 60
			if testing.Short() {
				seeds = 15
			}
			t.Run(fmt.Sprintf("ell=%d/n=%d", ell, n), func(t *testing.T) {
				most := 0
				watch := func(s proto.System) error {
					in := 0
					for _, nd := range s.Nodes() {
						if nd.View().InCS {
							in++
						}
					}
					most = max(most, in)
					return nil
				}
				for seed := range seeds {
					reorder.Run(t, reorder.Config{Alg: a, N: n, Seed: uint64(seed), Requests: 10 * n,
						Checks: []func(proto.System) error{watch}})
					reorder.Run(t, reorder.Config{Alg: a, N: n, Seed: uint64(seed), Requests: 10 * n, Saturate: true})
				}
				if most != min(ell, n) {
					t.Errorf("at most %d nodes in the critical section together, want min(ℓ, n) = %d", most, min(ell, n))
				}
				t.Logf("ℓ = %d, n = %d: at most %d nodes in the critical section together", ell, n, most)
			})
		}
	}
}

// TestWithUnits: K > 1 is refused with a one-line error; ℓ is taken.
func TestWithUnits(t *testing.T) {
	a := Algorithm{Config{Ell: 3, K: 1}}
	if _, err := a.WithUnits(4, 2, 1); err == nil {
		t.Error("K = 2 taken")
	}
	b, err := a.WithUnits(4, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if ell, k := b.(proto.KExclusionAlgorithm).Units(); ell != 4 || k != 1 {
		t.Errorf("Units = %d, %d; want 4, 1", ell, k)
	}
}

// TestCrashRecover: a crashed node ignores every input; it recovers in the
// initial state (steptest.CrashRecover).
func TestCrashRecover(t *testing.T) {
	steptest.CrashRecover(t, Algorithm{Config{Ell: 2, K: 1}}.NewNodes(4), 1)
}
