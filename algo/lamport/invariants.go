package lamport

import (
	"fmt"

	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Invariants implements proto.Algorithm: without crashes, CSFirst after
// every step, and proto.NoDeadlock and Settled whenever no message is in flight.
// The algorithm has no failure protocol, hence no invariant with crashes.
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	return []proto.Invariant{
		{Name: "cs_first", When: proto.EveryStep, Check: CSFirst},
		proto.NoDeadlock,
		{Name: "settled", When: proto.Quiet, Check: Settled},
	}
}

func nodes(s proto.System) []*Node { return nodecast.All[*Node](s) }

// CSFirst checks that a node in the critical section asks, and that its
// request precedes, in (timestamp, id) order, every other pending request:
// requests are served in timestamp order. O(n).
func CSFirst(s proto.System) error {
	ns := nodes(s)
	in := proto.Nil
	for i, n := range ns {
		if n.inCS {
			if !n.asked {
				return fmt.Errorf("cs_first: node %d is in the critical section without asking", i)
			}
			in = proto.NodeID(i)
		}
	}
	if in == proto.Nil {
		return nil
	}
	c := ns[in]
	for i, n := range ns {
		if i != int(in) && n.asked && before(n.ts, n.id, c.ts, c.id) {
			return fmt.Errorf("cs_first: node %d is in the critical section with request (%d, %d), but node %d's (%d, %d) precedes it",
				in, c.ts, in, i, n.ts, i)
		}
	}
	return nil
}

// Settled checks, when no message is in flight, that every node's queue
// holds as many requests as nodes ask, each with its timestamp, and that
// every asking node has all its replies. O(n) per node queue checked
// against the asking nodes (O(n·a) for a asking nodes).
func Settled(s proto.System) error {
	ns := nodes(s)
	var asking []*Node
	for _, n := range ns {
		if n.asked {
			asking = append(asking, n)
			if n.replies != len(ns)-1 {
				return fmt.Errorf("settled: node %d asks with %d replies of %d, and no message is in flight", n.id, n.replies, len(ns)-1)
			}
		}
	}
	for _, n := range ns {
		if n.queued != len(asking) {
			return fmt.Errorf("settled: node %d queues %d requests, %d nodes ask", n.id, n.queued, len(asking))
		}
		for _, a := range asking {
			if n.queue[a.id] != a.ts {
				return fmt.Errorf("settled: node %d queues node %d's request with timestamp %d, not %d", n.id, a.id, n.queue[a.id], a.ts)
			}
		}
	}
	return nil
}
