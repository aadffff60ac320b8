package lamport

import (
	"fmt"

	"github.com/ocbench/ocbench/algo/tsorder"
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Invariants implements proto.Algorithm: without crashes, tsorder.CSFirst
// after every step, and proto.NoDeadlock and Settled whenever no message is
// in flight. The algorithm has no failure protocol, hence no invariant
// with crashes.
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	return []proto.Invariant{
		{Name: "cs_first", When: proto.EveryStep, Check: tsorder.CSFirst},
		proto.NoDeadlock,
		{Name: "settled", When: proto.Quiet, Check: Settled},
	}
}

func nodes(s proto.System) []*Node { return nodecast.All[*Node](s) }

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
