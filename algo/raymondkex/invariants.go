package raymondkex

import (
	"fmt"

	"github.com/ocbench/ocbench/algo/kexcl"
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Invariants implements proto.Algorithm: without crashes, at most ℓ nodes
// in the critical section (kexcl.AtMost), Permitted and Conserved after
// every step, proto.NoDeadlock when nothing is in flight. None with
// crashes: the algorithm has no failure protocol.
func (a Algorithm) Invariants(crashes bool) []proto.Invariant {
	return kexcl.Invariants(a.Ell, crashes,
		proto.Invariant{Name: "permitted", When: proto.EveryStep, Check: Permitted},
		proto.Invariant{Name: "replies_conserved", When: proto.EveryStep, Check: Conserved},
	)
}

func nodes(s proto.System) []*Node { return nodecast.All[*Node](s) }

// Permitted checks that a node in the critical section asks and is owed
// replies by at most ℓ−1 nodes, and that a node defers only while it asks.
// O(n).
func Permitted(s proto.System) error {
	for i, nd := range nodes(s) {
		if nd.inCS && (!nd.asked || nd.blocked > nd.ell-1) {
			return fmt.Errorf("permitted: node %d is in the critical section (asked %v) while %d nodes owe it a reply, ℓ = %d", i, nd.asked, nd.blocked, nd.ell)
		}
		if nd.deferredSum > 0 && !nd.asked {
			return fmt.Errorf("permitted: node %d defers %d replies without asking", i, nd.deferredSum)
		}
	}
	return nil
}

// Conserved checks that no reply is lost or made up: the replies owed to
// all nodes are the requests in flight, the requests deferred and the
// requests answered by replies in flight. O(n + messages in flight).
func Conserved(s proto.System) error {
	owed, held := 0, 0
	for _, nd := range nodes(s) {
		owed += nd.owedSum
		held += nd.deferredSum
	}
	requests, answered := 0, 0
	s.ForEachInFlight(func(m *proto.Message) {
		switch m.Type {
		case Request:
			requests++
		case Reply:
			answered += int(m.Stamp)
		}
	})
	if owed != requests+held+answered {
		return fmt.Errorf("replies_conserved: %d replies owed, but %d requests in flight + %d deferred + %d answered in flight = %d",
			owed, requests, held, answered, requests+held+answered)
	}
	return nil
}
