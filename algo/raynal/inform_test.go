package raynal

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// TestInformExample: N = 3. Node 0, privileged at the start and not
// asking, passes the permission (INFORM to 1 and 2). Node 2 asks. Node 1,
// privileged by 0's INFORM and not asking, passes it on; 0's INFORM does
// not make node 2 privileged, 1's does, and node 2 enters: 2 steps of the
// ring, 2(N−1) = 4 messages, within the survey's (N−1)² = 4. Node 2
// leaves and passes the permission; node 0, privileged again and not
// asking, passes it on: it circulates while nobody asks.
func TestInformExample(t *testing.T) {
	a := Inform{}
	net := &steptest.Net{T: t, Types: a.MessageTypes(), Nodes: a.NewNodes(3), Invariants: a.Invariants(false)}
	var out proto.Output
	for _, nd := range net.Nodes {
		nd.(proto.Starter).Start(&out)
	}
	net.Pending = append(net.Pending, out.Msgs...)
	net.Sent += len(out.Msgs)
	if len(out.Msgs) != 2 {
		t.Fatalf("start: %d messages, want node 0's 2 INFORMs", len(out.Msgs))
	}
	net.EnterTag(2, 5)
	net.Deliver("inform() 0→1", "inform() 1→0", "inform() 1→2")
	net.Deliver("inform() 0→2")
	net.InCSNow()
	net.Deliver("inform() 1→2")
	net.InCSNow(2)
	if net.Sent != 4 {
		t.Errorf("node 2's entry: %d messages, want 4", net.Sent)
	}
	net.Deliver("inform() 1→0")
	net.Exit(2, "inform() 2→0", "inform() 2→1")
	net.Deliver("inform() 2→1")
	net.Deliver("inform() 2→0", "inform() 0→1", "inform() 0→2")
}

// TestInformRandom: random requests, exits and any delivery order, N = 2
// … 7: the permission invariant (one privileged node, the one in the
// critical section if any, no m known ahead of its owner's) after every
// step, and every request served.
func TestInformRandom(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	for n := 2; n <= 7; n++ {
		for seed := range seeds {
			t.Run(fmt.Sprintf("n=%d/seed=%d", n, seed), func(t *testing.T) {
				informRun(t, n, uint64(seed), 8*n)
			})
		}
	}
}

func informRun(t *testing.T, n int, seed uint64, requests int) {
	rng := rand.New(rand.NewPCG(seed, 39))
	a := Inform{}
	nodes := a.NewNodes(n)
	var pending []proto.Message
	var out proto.Output
	step := func(id proto.NodeID, in proto.Input) bool {
		out.Msgs, out.Enter = out.Msgs[:0], false
		nodes[id].Step(in, &out)
		pending = append(pending, out.Msgs...)
		if err := InformPermission(steptest.System(nodes, pending)); err != nil {
			t.Fatalf("after %v at node %d: %v", in.Kind, id, err)
		}
		return out.Enter
	}
	for _, nd := range nodes {
		out.Msgs = out.Msgs[:0]
		nd.(proto.Starter).Start(&out)
		pending = append(pending, out.Msgs...)
	}
	issued, served := 0, 0
	for steps := 0; served < requests; steps++ {
		if steps > 1000*requests {
			t.Fatalf("%d of %d requests served after %d steps", served, requests, steps)
		}
		switch k := rng.IntN(10); {
		case k == 0 && issued < requests:
			id := proto.NodeID(rng.IntN(n))
			if nodes[id].View().Asked {
				continue
			}
			issued++
			if step(id, proto.Input{Kind: proto.EnterCS, Tag: uint32(issued)}) {
				served++
			}
		case k == 1:
			for id, nd := range nodes {
				if nd.View().InCS {
					step(proto.NodeID(id), proto.Input{Kind: proto.ExitCS})
					break
				}
			}
		case len(pending) > 0:
			i := rng.IntN(len(pending))
			m := pending[i]
			pending = append(pending[:i], pending[i+1:]...)
			if step(m.To, proto.Input{Kind: proto.Receive, Msg: m}) {
				served++
			}
		}
	}
}
