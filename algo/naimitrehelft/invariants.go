package naimitrehelft

import (
	"fmt"

	"github.com/ocbench/ocbench/internal/incr"
	"github.com/ocbench/ocbench/proto"
)

// Invariants implements proto.Algorithm. Every run: the local properties
// of LAST, NEXT and the token (Pointers), at every live node. Without
// crashes: no regeneration ever (NoRegeneration: the query and the
// election find every token), and for the failure-free nodes the queue of
// NEXT pointers is the queue of waiting requests (Queue) and nothing
// deadlocks.
func (a Algorithm) Invariants(crashes bool) []proto.Invariant {
	inv := []proto.Invariant{{Name: "nt_pointers", When: proto.EveryStep, Check: Pointers,
		Incremental: incr.Local(Pointers, func(s proto.System, i proto.NodeID) bool { return pointersAt(s, int(i)) != nil })}}
	if crashes {
		return inv
	}
	inv = append(inv, proto.Invariant{Name: "nt_no_regeneration", When: proto.EveryStep, Check: NoRegeneration,
		Incremental: incr.Local(NoRegeneration, func(s proto.System, i proto.NodeID) bool { return regeneratedAt(s, int(i)) != nil })})
	if a.FT == nil {
		inv = append(inv, proto.Invariant{Name: "nt_queue", When: proto.EveryStep, Check: Queue}, proto.NoDeadlock)
	}
	return inv
}

func nodeOf(nd proto.Node) *Node {
	n, _ := nd.(*Node)
	return n
}

// Pointers checks, at every live node k: LAST_k = k only if k holds the
// token or asks (a root without the token waits for it); NEXT_k ≠ 0 only
// if k asks or holds the token, and then LAST_k ≠ k (NEXT_k was the tail
// after k); an idle token is held by a root (LAST_k = k) with NEXT_k = 0
// that does not ask. O(n).
func Pointers(s proto.System) error {
	for i := range s.Nodes() {
		if err := pointersAt(s, i); err != nil {
			return err
		}
	}
	return nil
}

// pointersAt checks Pointers at node i.
func pointersAt(s proto.System, i int) error {
	n := nodeOf(s.Nodes()[i])
	if n == nil {
		return fmt.Errorf("node %d is not a Naimi–Trehel node", i)
	}
	if n.Up() {
		switch {
		case n.last == n.id && !n.tokenHere && !n.asked:
			return fmt.Errorf("node %d: LAST = itself, without the token and without a request", i)
		case n.next != proto.Nil && !n.asked && !n.tokenHere:
			return fmt.Errorf("node %d: NEXT = %d, without the token and without a request", i, n.next)
		case n.next != proto.Nil && n.last == n.id:
			return fmt.Errorf("node %d: NEXT = %d and LAST = itself", i, n.next)
		case n.tokenHere && !n.inCS && (n.asked || n.next != proto.Nil || n.last != n.id):
			return fmt.Errorf("node %d holds the idle token with asked %v, NEXT %d, LAST %d", i, n.asked, n.next, n.last)
		case n.inCS && !n.tokenHere:
			return fmt.Errorf("node %d is in the critical section without the token", i)
		}
	}
	return nil
}

// NoRegeneration checks that no token was regenerated and no election is
// under way: in a run without crashes the query finds the token. O(n).
func NoRegeneration(s proto.System) error {
	for i := range s.Nodes() {
		if err := regeneratedAt(s, i); err != nil {
			return err
		}
	}
	return nil
}

// regeneratedAt checks NoRegeneration at node i.
func regeneratedAt(s proto.System, i int) error {
	if n := nodeOf(s.Nodes()[i]); n.gen != 0 || n.st == candidate || n.st == observer {
		return fmt.Errorf("node %d: generation %d, state %s, in a run without crashes", i, n.gen, n.st)
	}
	return nil
}

// Queue checks the failure-free queue: NEXT_k = j only for a node j that
// waits for the token, and no node is the NEXT of two nodes. O(n).
func Queue(s proto.System) error {
	nodes := s.Nodes()
	of := make([]proto.NodeID, len(nodes))
	for k := range of {
		of[k] = proto.Nil
	}
	for k, nd := range nodes {
		j := nodeOf(nd).next
		if j == proto.Nil {
			continue
		}
		w := nodeOf(nodes[j])
		if !w.asked || w.inCS || w.tokenHere {
			return fmt.Errorf("node %d: NEXT = %d, which does not wait for the token (asked %v, in CS %v)", k, j, w.asked, w.inCS)
		}
		if of[j] != proto.Nil {
			return fmt.Errorf("node %d is the NEXT of nodes %d and %d", j, of[j], k)
		}
		of[j] = proto.NodeID(k)
	}
	return nil
}
