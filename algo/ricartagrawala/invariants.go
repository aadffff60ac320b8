package ricartagrawala

import (
	"fmt"

	"github.com/ocbench/ocbench/algo/tsorder"
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Invariants implements proto.Algorithm: without crashes, tsorder.CSFirst
// and DeferOnlyAsking after every step, and proto.NoDeadlock and
// Permissions whenever no message is in flight. The algorithm has no
// failure protocol, hence no invariant with crashes.
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	return []proto.Invariant{
		{Name: "cs_first", When: proto.EveryStep, Check: tsorder.CSFirst},
		{Name: "defer_only_asking", When: proto.EveryStep, Check: DeferOnlyAsking},
		proto.NoDeadlock,
		{Name: "permissions", When: proto.Quiet, Check: Permissions},
	}
}

func nodes(s proto.System) []*Node { return nodecast.All[*Node](s) }

// DeferOnlyAsking checks that a node defers replies only while it asks, and
// at most one per other node. O(n) in all.
func DeferOnlyAsking(s proto.System) error {
	for _, n := range nodes(s) {
		if len(n.deferred) > 0 && !n.asked {
			return fmt.Errorf("defer_only_asking: node %d defers %d replies and does not ask", n.id, len(n.deferred))
		}
		if len(n.deferred) > n.n-1 {
			return fmt.Errorf("defer_only_asking: node %d defers %d replies, more than n−1", n.id, len(n.deferred))
		}
	}
	return nil
}

// Permissions checks, when no message is in flight, that every asking
// node's permissions are accounted for: its replies received plus the
// nodes that defer its current request make n−1, and every deferred
// request is its requester's current one and later than the deferrer's own
// (or the deferrer is in the critical section). O(n + deferred replies).
func Permissions(s proto.System) error {
	ns := nodes(s)
	held := make([]int, len(ns))
	for _, n := range ns {
		for _, d := range n.deferred {
			r := ns[d.j]
			if !r.asked || r.ts != d.ts || r.tag != d.tag {
				return fmt.Errorf("permissions: node %d defers node %d's request (%d, serial %d), which is not pending", n.id, d.j, d.ts, d.tag)
			}
			if !n.inCS && !tsorder.Before(n.ts, n.id, d.ts, d.j) {
				return fmt.Errorf("permissions: node %d defers node %d's request (%d) though its own (%d) is later", n.id, d.j, d.ts, n.ts)
			}
			held[d.j]++
		}
	}
	for i, n := range ns {
		if n.asked && n.replies+held[i] != len(ns)-1 {
			return fmt.Errorf("permissions: node %d has %d replies and %d deferred, not n−1 = %d, and no message is in flight",
				i, n.replies, held[i], len(ns)-1)
		}
	}
	return nil
}
