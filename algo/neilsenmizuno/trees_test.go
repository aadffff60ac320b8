package neilsenmizuno

import (
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// TestTrees: on the star and the line (any n, not only powers of two), a
// lone request from node i costs its depth in requests and the token
// (none at node 0): at most 3 on the star and N on the line, the survey's
// figures (Table 1); random runs in any delivery order serve every
// request within them, with the invariants after every step.
func TestTrees(t *testing.T) {
	for _, c := range []struct {
		a     Algorithm
		depth func(i int) int
	}{
		{OnStar, func(i int) int { return min(i, 1) }},
		{OnLine, func(i int) int { return i }},
	} {
		for _, n := range []int{2, 3, 5, 16, 64} {
			st := c.a.StatedCost(n)
			for i := range n {
				cfg := reorder.Config{Alg: c.a, N: n, Checks: []func(proto.System) error{reorder.Serving(reorder.Carried(Token))}}
				got := reorder.NewLone(t, cfg).Serve(proto.NodeID(i), 7)
				want := c.depth(i) + 1
				if i == 0 {
					want = 0
				}
				if got != want || float64(got) > st.High {
					t.Errorf("%s n=%d node %d: %d messages, want %d (stated %s = %g)", c.a.Name(), n, i, got, want, st.Text, st.High)
				}
			}
		}
		for _, n := range []int{2, 3, 5, 8} {
			t.Run(fmt.Sprintf("%s/n=%d", c.a.Name(), n), func(t *testing.T) {
				for seed := range 30 {
					res := reorder.Run(t, reorder.Config{Alg: c.a, N: n, Seed: uint64(seed), Requests: 10 * n})
					if _, most := res.Costs(); float64(most) > c.a.StatedCost(n).High {
						t.Fatalf("seed %d: a request cost %d, above %g", seed, most, c.a.StatedCost(n).High)
					}
				}
			})
		}
	}
	if s, l := OnStar.StatedCost(64), OnLine.StatedCost(64); s.High != 3 || l.High != 64 {
		t.Errorf("stated at N = 64: star %g, line %g; want 3 and 64", s.High, l.High)
	}
}

// TestStarExample: the star of 4 nodes, node 0 at the centre with the
// token. Node 3 asks: request to 0, which sends the token. Node 2 asks:
// its request goes to 0, whose last is now 3, so 0 forwards it to 3 (the
// sink), which makes 2 its next: 3 messages, the survey's bound.
func TestStarExample(t *testing.T) {
	net := &steptest.Net{T: t, Types: messageTypes, Nodes: OnStar.NewNodes(4), Invariants: OnStar.Invariants(false)}
	net.EnterTag(3, 5, "request(3) 3→0")
	net.Deliver("request(3) 3→0", "token() 0→3")
	net.Deliver("token() 0→3")
	net.InCS(3)
	net.EnterTag(2, 6, "request(2) 2→0")
	net.Deliver("request(2) 2→0", "request(2) 0→3")
	net.Deliver("request(2) 0→3")
	net.Exit(3, "token() 3→2")
	net.Deliver("token() 3→2")
	net.InCS(2)
	if net.Sent != 5 {
		t.Errorf("%d messages, want 2 + 3", net.Sent)
	}
}
