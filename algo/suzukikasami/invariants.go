package suzukikasami

import (
	"fmt"

	"github.com/ocbench/ocbench/algo/sktoken"
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Invariants implements proto.Algorithm: TokenState after every step,
// HolderKnows whenever no message is in flight. Nothing with crashes (the
// algorithm has no failure protocol).
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	return proto.WithoutCrashes(crashes, sktoken.Invariants(TokenState, HolderKnows)...)
}

func nodes(s proto.System) ([]*Node, error) {
	return nodecast.Checked(s, "Suzuki–Kasami", func(p proto.Node) (*Node, bool) {
		nd, ok := p.(interface{ SuzukiKasami() *Node })
		if !ok {
			return nil, false
		}
		return nd.SuzukiKasami(), true
	})
}

// TokenState checks the token against the nodes, in O(N):
//
//   - a node in the critical section holds the token;
//   - for every node j, with RN_j[j] its own request number and LN[j] the
//     token's: LN[j] ≤ RN_j[j] ≤ LN[j]+1, equal if j is not asking, and
//     RN_j[j] = LN[j]+1 while j waits for the token (its request is not
//     granted);
//   - Q holds distinct nodes, each waiting for the token with the serial
//     of its current request, and neither the holder nor the node the
//     token travels to; an idle holder's Q is empty;
//   - a token in flight travels to a waiting node, tagged with its serial.
func TokenState(s proto.System) error {
	nd, err := nodes(s)
	if err != nil {
		return err
	}
	ps := s.Nodes()
	n := len(nd)
	for i, x := range nd {
		if x.TokenHere && !x.Asked && len(x.q) > 0 {
			return fmt.Errorf("node %d holds the idle token with a queue of %d", i, len(x.q))
		}
		if b, ok := x.num.(*rounds); ok {
			if err := b.check(n); err != nil {
				return fmt.Errorf("node %d: %w", i, err)
			}
		}
	}
	// A token older than its destination's generation (a variant with a
	// failure protocol) is discarded on arrival: it is not the token.
	at, err := sktoken.Find(s, nd, view, func(m *proto.Message) bool {
		return m.Type == Token && len(m.Payload) >= n && m.Stamp >= ps[m.To].View().Gen
	})
	if err != nil {
		return err
	}
	owner := at.Owner
	ln, q := nd[owner].ln, nd[owner].q
	if at.Flying {
		ln, q = at.Msg.Payload[:n], at.Msg.Payload[n:]
	}
	for j, x := range nd {
		r, d := x.rn[j], x.num.gap(x.rn[j], ln[j])
		switch {
		case d < 0 || d > 1:
			return fmt.Errorf("node %d: RN[%d] = %d, token LN[%d] = %d", j, j, r, j, ln[j])
		case (!x.Asked || x.pending()) && d != 0:
			return fmt.Errorf("node %d has sent no request that waits, and its request %d is not granted (LN = %d)", j, r, ln[j])
		case x.Asked && !x.InCS && !x.pending() && d != 1:
			return fmt.Errorf("node %d waits, and its request %d is granted (LN = %d)", j, r, ln[j])
		}
	}
	seen := make(map[proto.NodeID]bool, len(q))
	for _, e := range q {
		j, tag := unpack(e)
		switch {
		case j < 0 || int(j) >= n:
			return fmt.Errorf("the queue Q holds node %d", j)
		case seen[j]:
			return fmt.Errorf("the queue Q holds node %d twice", j)
		case j == owner:
			return fmt.Errorf("the queue Q holds node %d, which has the token", j)
		case !nd[j].Asked || nd[j].InCS || nd[j].pending():
			return fmt.Errorf("the queue Q holds node %d, which is not waiting", j)
		case tag != nd[j].Tag:
			return fmt.Errorf("the queue Q holds node %d with serial %d, its request is %d", j, tag, nd[j].Tag)
		}
		seen[j] = true
	}
	return nil
}

// HolderKnows checks, when no message is in flight, that the token's holder
// has received every node's latest request, and, if it is not in the
// critical section, that no node waits (no request is forgotten).
func HolderKnows(s proto.System) error {
	nd, err := nodes(s)
	if err != nil {
		return err
	}
	for i, x := range nd {
		if x.pending() {
			return fmt.Errorf("node %d's request is pending with nothing in flight (%d acks owed)", i, x.num.(*rounds).owed)
		}
	}
	return sktoken.HolderKnows(nd, view, "RN")
}

// view is what sktoken reads of a node.
func view(x *Node) sktoken.View {
	return sktoken.View{TokenHere: x.TokenHere, InCS: x.InCS, Asked: x.Asked, Tag: x.Tag, Req: x.rn}
}
