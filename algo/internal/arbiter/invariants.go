package arbiter

import (
	"fmt"

	"github.com/ocbench/ocbench/proto"
)

// The checks of Sanders' algorithm (algo/sanders), on any structure.

// Arbiters checks that a node in the critical section holds the
// permission of every member of its request set, and that every member of
// its informing set has CSSTAT busy for its current request. O(Σ|R_i|)
// over the nodes in the critical section.
func Arbiters(s proto.System) error {
	ns := nodes(s)
	for _, n := range ns {
		if !n.inCS {
			continue
		}
		if n.granted != len(n.request) {
			return fmt.Errorf("arbiters: node %d is in the critical section with %d of %d permissions", n.id, n.granted, len(n.request))
		}
		for _, k := range n.inform {
			a := ns[k]
			if !a.busy || a.csstat.id != n.id || a.csstat.tag != n.tag {
				return fmt.Errorf("arbiters: node %d is in the critical section, and node %d of its informing set has CSSTAT %v (busy %v)", n.id, k, a.csstat, a.busy)
			}
		}
	}
	return nil
}

// Queued checks, when no message is in flight, that every request an
// arbiter queues is its requester's current one, and that CSSTAT is busy
// wherever a request is queued. O(queued requests).
func Queued(s proto.System) error {
	ns := nodes(s)
	for _, a := range ns {
		if len(a.queue) > 0 && !a.busy {
			return fmt.Errorf("queued: node %d queues %d requests with CSSTAT free", a.id, len(a.queue))
		}
		for _, r := range a.queue {
			if q := ns[r.id]; !q.asked || q.tag != r.tag || q.ts != r.ts {
				return fmt.Errorf("queued: node %d queues node %d's request (%d, serial %d), which is not pending", a.id, r.id, r.ts, r.tag)
			}
		}
	}
	return nil
}

// The checks of Maekawa's protocol (algo/quorum), whose status sets are All:
// a grant always makes the arbiter busy ("locked for" the request).

// InCSHoldsQuorum checks that a node in the critical section asked for it
// and holds the permission of every member of its quorum. O(n).
func InCSHoldsQuorum(s proto.System) error {
	for _, n := range nodes(s) {
		if n.inCS && (!n.asked || n.granted != len(n.request)) {
			return fmt.Errorf("node %d is in the critical section with asked=%v and %d of %d permissions", n.id, n.asked, n.granted, len(n.request))
		}
	}
	return nil
}

// QueueHeads checks the first two requests of every arbiter's queue: the
// arbiter is locked if a request waits, the second request has been told it
// failed, and the first, if not, comes before the lock and the lock's
// holder was inquired. O(n).
func QueueHeads(s proto.System) error {
	for _, n := range nodes(s) {
		if len(n.queue) == 0 {
			continue
		}
		h := n.queue[0]
		switch {
		case !n.busy:
			return fmt.Errorf("arbiter %d is free and %d requests wait", n.id, len(n.queue))
		case len(n.queue) > 1 && (!n.queue[1].failed || n.queue[1].before(h)):
			return fmt.Errorf("arbiter %d: the second waiting request (%d, node %d) is out of order or was not told it failed", n.id, n.queue[1].ts, n.queue[1].id)
		case !h.failed && (!h.before(n.csstat) || !n.inquired):
			return fmt.Errorf("arbiter %d: the first waiting request (%d, node %d) was not told it failed, and lock (%d, node %d) inquired=%v", n.id, h.ts, h.id, n.csstat.ts, n.csstat.id, n.inquired)
		}
	}
	return nil
}

// OnePermission checks, when no message is in flight, that a locked
// arbiter's permission is held by exactly the request it is locked for and a
// free arbiter's by none, that a requester's counts of permissions held and
// failed agree with its quorum's states (never both for one member), and
// that every queue is in priority order and holds only waiting requests.
// O(n·K).
func OnePermission(s proto.System) error {
	ns := nodes(s)
	holders := make([]int, len(ns))
	for _, n := range ns {
		if !n.asked {
			continue
		}
		granted, failed := 0, 0
		for k, p := range n.perm {
			if p&permFailed != 0 {
				failed++
			}
			if p&permGranted == 0 {
				continue
			}
			granted++
			if p&permFailed != 0 {
				return fmt.Errorf("node %d holds the permission of arbiter %d and counts it failed", n.id, n.request[k])
			}
			a := ns[n.request[k]]
			holders[a.id]++
			if !a.busy || a.csstat.id != n.id || a.csstat.tag != n.tag {
				return fmt.Errorf("node %d holds the permission of arbiter %d, which is not locked for it", n.id, a.id)
			}
		}
		if granted != n.granted || failed != n.failed {
			return fmt.Errorf("node %d counts %d permissions and %d failed, its quorum says %d and %d", n.id, n.granted, n.failed, granted, failed)
		}
	}
	for _, a := range ns {
		if a.busy && holders[a.id] != 1 {
			return fmt.Errorf("arbiter %d is locked for node %d, and %d nodes hold its permission", a.id, a.csstat.id, holders[a.id])
		}
		for k, r := range a.queue {
			if k > 0 && r.before(a.queue[k-1]) {
				return fmt.Errorf("arbiter %d: queue out of order at %d", a.id, k)
			}
			if w := ns[r.id]; !w.asked || w.inCS || w.tag != r.tag {
				return fmt.Errorf("arbiter %d queues request %d of node %d, which does not wait for it", a.id, r.tag, r.id)
			}
		}
	}
	return nil
}
