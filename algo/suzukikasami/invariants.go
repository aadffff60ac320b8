package suzukikasami

import (
	"fmt"

	"github.com/ocbench/ocbench/algo/sktoken"
	"github.com/ocbench/ocbench/internal/incr"
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Invariants implements proto.Algorithm: TokenState after every step,
// HolderKnows whenever no message is in flight. Nothing with crashes (the
// algorithm has no failure protocol).
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	return proto.WithoutCrashes(crashes, TokenStateInvariant(), HolderKnowsInvariant())
}

// TokenStateInvariant is TokenState after every step, checked step by step
// (sktoken.Tracked).
func TokenStateInvariant() proto.Invariant {
	inv := sktoken.Invariants(TokenState, HolderKnows)[0]
	inv.Incremental = sktoken.Tracked(tokenState, Token, tokenStateAt)
	return inv
}

// HolderKnowsInvariant is HolderKnows whenever no message is in flight.
func HolderKnowsInvariant() proto.Invariant {
	inv := sktoken.Invariants(TokenState, HolderKnows)[1]
	inv.Incremental = sktoken.Quiet("Suzuki–Kasami", skNode, holderKnows)
	return inv
}

func nodes(s proto.System) ([]*Node, error) {
	return nodecast.Checked(s, "Suzuki–Kasami", skNode)
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
	_, err := tokenState(s)
	return err
}

// tokenState is TokenState, and the token it found.
func tokenState(s proto.System) (sktoken.Token, error) {
	nd, err := nodes(s)
	if err != nil {
		return sktoken.Token{}, err
	}
	n := len(nd)
	for i, x := range nd {
		if err := localAt(x, i, n); err != nil {
			return sktoken.Token{}, err
		}
	}
	at, err := find(s, nd)
	if err != nil {
		return sktoken.Token{}, err
	}
	ln, q := lnQ(nd, &at)
	for j, x := range nd {
		if err := entryAt(x, j, ln); err != nil {
			return sktoken.Token{}, err
		}
	}
	seen := make(map[proto.NodeID]bool, len(q))
	for _, e := range q {
		j, tag := unpack(e)
		switch {
		case j < 0 || int(j) >= n:
			return sktoken.Token{}, fmt.Errorf("the queue Q holds node %d", j)
		case seen[j]:
			return sktoken.Token{}, fmt.Errorf("the queue Q holds node %d twice", j)
		case j == at.Owner:
			return sktoken.Token{}, fmt.Errorf("the queue Q holds node %d, which has the token", j)
		}
		if err := queuedAt(nd[j], j, tag); err != nil {
			return sktoken.Token{}, err
		}
		seen[j] = true
	}
	return at, nil
}

// find finds the token (sktoken.Find). A token older than its
// destination's generation (a variant with a failure protocol) is
// discarded on arrival: it is not the token.
func find(s proto.System, nd []*Node) (sktoken.Token, error) {
	ps, n := s.Nodes(), len(nd)
	return sktoken.Find(s, nd, view, func(m *proto.Message) bool {
		return m.Type == Token && len(m.Payload) >= n && m.Stamp >= ps[m.To].View().Gen
	})
}

// lnQ returns the token's LN and Q.
func lnQ(nd []*Node, at *sktoken.Token) (ln, q []int64) {
	if at.Flying {
		n := len(nd)
		return at.Msg.Payload[:n], at.Msg.Payload[n:]
	}
	return nd[at.Owner].ln, nd[at.Owner].q
}

// localAt checks TokenState's properties of node i, x, alone (of n).
func localAt(x *Node, i, n int) error {
	if x.TokenHere && !x.Asked && len(x.q) > 0 {
		return fmt.Errorf("node %d holds the idle token with a queue of %d", i, len(x.q))
	}
	if b, ok := x.num.(*rounds); ok {
		if err := b.check(n); err != nil {
			return fmt.Errorf("node %d: %w", i, err)
		}
	}
	return nil
}

// entryAt checks node j, x, against the token's LN.
func entryAt(x *Node, j int, ln []int64) error {
	r, d := x.rn[j], x.num.gap(x.rn[j], ln[j])
	switch {
	case d < 0 || d > 1:
		return fmt.Errorf("node %d: RN[%d] = %d, token LN[%d] = %d", j, j, r, j, ln[j])
	case (!x.Asked || x.pending()) && d != 0:
		return fmt.Errorf("node %d has sent no request that waits, and its request %d is not granted (LN = %d)", j, r, ln[j])
	case x.Asked && !x.InCS && !x.pending() && d != 1:
		return fmt.Errorf("node %d waits, and its request %d is granted (LN = %d)", j, r, ln[j])
	}
	return nil
}

// queuedAt checks node j, x, queued in Q with serial tag.
func queuedAt(x *Node, j proto.NodeID, tag uint32) error {
	switch {
	case !x.Asked || x.InCS || x.pending():
		return fmt.Errorf("the queue Q holds node %d, which is not waiting", j)
	case tag != x.Tag:
		return fmt.Errorf("the queue Q holds node %d with serial %d, its request is %d", j, tag, x.Tag)
	}
	return nil
}

// tokenStateAt checks TokenState after a step of node id that left the
// token tok as it was (sktoken.Tracked): id's own properties, its entry
// of LN and its place in Q.
func tokenStateAt(s proto.System, id proto.NodeID, tok *sktoken.Token) error {
	ps := s.Nodes()
	x, ok := skNode(ps[id])
	if !ok || x.TokenHere {
		return proto.ErrFull
	}
	n := len(ps)
	if err := localAt(x, int(id), n); err != nil {
		return err
	}
	if x.InCS {
		return incr.ErrBroken // in the critical section without the token
	}
	var ln, q []int64
	if tok.Flying {
		ln, q = tok.Msg.Payload[:n], tok.Msg.Payload[n:]
	} else if h, ok := skNode(ps[tok.Owner]); ok {
		ln, q = h.ln, h.q
	} else {
		return proto.ErrFull
	}
	if err := entryAt(x, int(id), ln); err != nil {
		return err
	}
	for _, e := range q {
		if j, tag := unpack(e); j == id {
			if err := queuedAt(x, j, tag); err != nil {
				return err
			}
		}
	}
	return nil
}

// skNode returns the Suzuki–Kasami node of p.
func skNode(p proto.Node) (*Node, bool) {
	nd, ok := p.(interface{ SuzukiKasami() *Node })
	if !ok {
		return nil, false
	}
	return nd.SuzukiKasami(), true
}

// HolderKnows checks, when no message is in flight, that the token's holder
// has received every node's latest request, and, if it is not in the
// critical section, that no node waits (no request is forgotten).
func HolderKnows(s proto.System) error {
	nd, err := nodes(s)
	if err != nil {
		return err
	}
	return holderKnows(nd)
}

// holderKnows is HolderKnows of the nodes nd.
func holderKnows(nd []*Node) error {
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
