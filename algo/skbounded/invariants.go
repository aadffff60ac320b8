package skbounded

import (
	"fmt"

	"github.com/ocbench/ocbench/algo/sktoken"
	"github.com/ocbench/ocbench/algo/suzukikasami"
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Invariants implements proto.Algorithm: TokenState after every step;
// HolderKnows and RoundsAcknowledged whenever no message is in flight.
// Nothing with crashes (the algorithm has no failure protocol).
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	return []proto.Invariant{
		{Name: "token state", When: proto.EveryStep, Check: TokenState},
		{Name: "holder knows every request", When: proto.Quiet, Check: HolderKnows},
		{Name: "rounds acknowledged", When: proto.Quiet, Check: RoundsAcknowledged},
	}
}

func nodes(s proto.System) []*Node { return nodecast.All[*Node](s) }

// TokenState checks the token against the nodes, in O(N), as
// suzukikasami.TokenState does with the numbers modulo M:
//
//   - a node in the critical section holds the token; a token in flight
//     travels to a waiting node, tagged with its serial (sktoken.Find);
//   - for every node j, with RN_j[j] its own request number and LN[j] the
//     token's: RN_j[j] − LN[j] is 0 or 1 modulo M; 1 exactly while j's
//     sent request waits for the token; 0 if j does not ask or its request
//     is pending (not sent: it waits for acks);
//   - a pending node owes acks (0 < owed ≤ N−1);
//   - Q holds distinct nodes, each waiting for the token with the serial
//     of its current request (sent, not pending), and neither the holder
//     nor the node the token travels to; an idle holder's Q is empty.
func TokenState(s proto.System) error {
	nd := nodes(s)
	n := len(nd)
	for i, x := range nd {
		if x.tokenHere && !x.asked && len(x.q) > 0 {
			return fmt.Errorf("node %d holds the idle token with a queue of %d", i, len(x.q))
		}
		if x.owed < 0 || x.owed > n-1 || x.pending && x.owed == 0 {
			return fmt.Errorf("node %d: pending=%v with %d acks owed", i, x.pending, x.owed)
		}
	}
	at, err := sktoken.Find(s, nd, view, func(m *proto.Message) bool { return m.Type == Token })
	if err != nil {
		return err
	}
	ln, q := nd[at.Owner].ln, nd[at.Owner].q
	if at.Flying {
		ln, q = at.Msg.Payload[:n], at.Msg.Payload[n:]
	}
	for j, x := range nd {
		d := x.mod(x.rn[j] - ln[j])
		switch {
		case d > 1:
			return fmt.Errorf("node %d: RN[%d] = %d, token LN[%d] = %d (mod %d)", j, j, x.rn[j], j, ln[j], x.m)
		case (!x.asked || x.pending) && d != 0:
			return fmt.Errorf("node %d has sent no request that waits, and its request %d is not granted (LN = %d)", j, x.rn[j], ln[j])
		case x.asked && !x.inCS && !x.pending && d != 1:
			return fmt.Errorf("node %d waits, and its request %d is granted (LN = %d)", j, x.rn[j], ln[j])
		}
	}
	seen := make(map[proto.NodeID]bool, len(q))
	for _, e := range q {
		j, tag := suzukikasami.Unpack(e)
		switch {
		case j < 0 || int(j) >= n:
			return fmt.Errorf("the queue Q holds node %d", j)
		case seen[j]:
			return fmt.Errorf("the queue Q holds node %d twice", j)
		case j == at.Owner:
			return fmt.Errorf("the queue Q holds node %d, which has the token", j)
		case !nd[j].asked || nd[j].inCS || nd[j].pending:
			return fmt.Errorf("the queue Q holds node %d, which is not waiting for the token", j)
		case tag != nd[j].tag:
			return fmt.Errorf("the queue Q holds node %d with serial %d, its request is %d", j, tag, nd[j].tag)
		}
		seen[j] = true
	}
	return nil
}

// HolderKnows checks, when no message is in flight, that the token's holder
// has received every node's latest request, and, if it is not in the
// critical section, that no node waits (sktoken.HolderKnows). A pending
// request has sent nothing and waits for acks, which are in flight: when
// nothing is, no request is pending.
func HolderKnows(s proto.System) error {
	nd := nodes(s)
	for i, x := range nd {
		if x.pending {
			return fmt.Errorf("node %d's request is pending with nothing in flight (%d acks owed)", i, x.owed)
		}
	}
	return sktoken.HolderKnows(nd, view, "RN")
}

// RoundsAcknowledged checks, when no message is in flight, what bounding
// the numbers rests on: every node has received every request of every
// other (its RN[i] and its count of i's requests are i's own RN[i]), and
// no node owes acks. O(N²).
func RoundsAcknowledged(s proto.System) error {
	nd := nodes(s)
	for i, x := range nd {
		if x.owed != 0 {
			return fmt.Errorf("node %d owes %d acks with nothing in flight", i, x.owed)
		}
		own := x.rn[i]
		for k, y := range nd {
			if k != i && (y.rn[i] != own || y.cnt[i] != own) {
				return fmt.Errorf("node %d has RN[%d] = %d and counted %d of its requests; node %d's own is %d (mod %d)", k, i, y.rn[i], y.cnt[i], i, own, x.m)
			}
		}
	}
	return nil
}

// view is what sktoken reads of a node.
func view(x *Node) sktoken.View {
	return sktoken.View{TokenHere: x.tokenHere, InCS: x.inCS, Asked: x.asked, Tag: x.tag, Req: x.rn}
}
