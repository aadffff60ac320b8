package nishio

import (
	"fmt"
	"slices"

	"github.com/ocbench/ocbench/algo/sktoken"
	"github.com/ocbench/ocbench/internal/incr"
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Invariants implements proto.Algorithm. Without crashes: TokenState after
// every step, HolderKnows whenever no message is in flight. With crashes:
// HeldToken after every step.
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return []proto.Invariant{{Name: "held token", When: proto.EveryStep, Check: HeldToken,
			Incremental: func() proto.Incremental { return &heldToken{} }}}
	}
	inv := sktoken.Invariants(TokenState, HolderKnows)
	inv[0].Incremental = sktoken.Tracked(tokenState, Token, tokenStateAt)
	inv[1].Incremental = sktoken.Quiet("Nishio–Li–Manning", nodecast.Is[*Node], func(nd []*Node) error {
		return sktoken.HolderKnows(nd, view, "RN")
	})
	return inv
}

func nodes(s proto.System) ([]*Node, error) {
	return nodecast.Checked(s, "Nishio–Li–Manning", nodecast.Is[*Node])
}

// TokenState checks the one token against the nodes, in O(N), in a run
// without crashes:
//
//   - a node in the critical section holds the token;
//   - the token is the one held, or one in flight of at least its
//     destination's age (an older one is stale: it is dropped on arrival);
//   - for every node j, with RN_j[j] its own request number and LN[j] the
//     token's: j's granted request is LN[j]; RN_j[j] = LN[j] if j is not
//     asking, RN_j[j] = LN[j]+1 while it waits;
//   - a token in flight travels to a waiting node, tagged with its serial;
//   - no node runs a TOKEN_MISSING round unless it waits.
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
	for i, x := range nd {
		if x.cand && !x.waiting() {
			return sktoken.Token{}, fmt.Errorf("node %d runs a round and does not wait for the token", i)
		}
	}
	at, err := find(s, nd)
	if err != nil {
		return sktoken.Token{}, err
	}
	owner, ln := at.Owner, nd[at.Owner].ln
	if at.Flying {
		if nd[owner].tokenHere {
			return sktoken.Token{}, fmt.Errorf("the token travels to node %d, which is not waiting for it", owner)
		}
		ln = at.Msg.Payload
	}
	for j, x := range nd {
		if err := entryAt(x, j, ln); err != nil {
			return sktoken.Token{}, err
		}
	}
	return at, nil
}

// find finds the token (sktoken.Find): a token older than its
// destination's age is stale.
func find(s proto.System, nd []*Node) (sktoken.Token, error) {
	return sktoken.Find(s, nd, view, func(m *proto.Message) bool { return m.Type == Token && m.Stamp >= nd[m.To].age })
}

// entryAt checks node j, x, against the token's LN.
func entryAt(x *Node, j int, ln []int64) error {
	r := x.rn[j]
	switch {
	case x.granted != ln[j]:
		return fmt.Errorf("node %d: granted %d, token LN[%d] = %d", j, x.granted, j, ln[j])
	case !x.asked && r != ln[j]:
		return fmt.Errorf("node %d is not asking, and its request %d is not granted (LN = %d)", j, r, ln[j])
	case x.waiting() && r != ln[j]+1:
		return fmt.Errorf("node %d waits with request %d, token LN = %d", j, r, ln[j])
	}
	return nil
}

// tokenStateAt checks TokenState after a step of node id that left the
// token tok as it was (sktoken.Tracked): id's own properties and its entry
// of LN.
func tokenStateAt(s proto.System, id proto.NodeID, tok *sktoken.Token) error {
	ps := s.Nodes()
	x, ok := ps[id].(*Node)
	if !ok || x.tokenHere {
		return proto.ErrFull
	}
	if x.cand && !x.waiting() || x.inCS {
		return incr.ErrBroken
	}
	ln, ok := sktoken.Vector(ps, tok, func(h *Node) []int64 { return h.ln })
	if !ok {
		return proto.ErrFull
	}
	return entryAt(x, int(id), ln)
}

// HolderKnows checks, when no message is in flight, that the token's holder
// has received every node's latest request, and, if it is not in the
// critical section, that no node waits.
func HolderKnows(s proto.System) error {
	nd, err := nodes(s)
	if err != nil {
		return err
	}
	return sktoken.HolderKnows(nd, view, "RN")
}

// view is what sktoken reads of a node.
func view(x *Node) sktoken.View {
	return sktoken.View{TokenHere: x.tokenHere, InCS: x.inCS, Asked: x.asked, Tag: x.tag, Req: x.rn}
}

// HeldToken checks, with crashes, in O(N) per holder: a node in the
// critical section holds a token; a held token's LN[j] is node j's own
// granted request for every node j (up or down: the controller keeps it),
// and at most RN_j[j]; a held token's age is its holder's; a candidate's
// proposal is above its age.
func HeldToken(s proto.System) error {
	nd, err := nodes(s)
	if err != nil {
		return err
	}
	for h, x := range nd {
		if err := heldAt(x, h); err != nil {
			return err
		}
		if !x.Up() || !x.tokenHere {
			continue
		}
		for j, y := range nd {
			if err := lnAt(x, h, y, j); err != nil {
				return err
			}
		}
	}
	return nil
}

// heldAt checks HeldToken's properties of node h, x, alone.
func heldAt(x *Node, h int) error {
	if !x.Up() {
		return nil
	}
	if x.inCS && !x.tokenHere {
		return fmt.Errorf("node %d is in the critical section without the token", h)
	}
	if x.cand && x.proposal <= x.age {
		return fmt.Errorf("node %d proposes age %d, at most its own %d", h, x.proposal, x.age)
	}
	return nil
}

// lnAt checks the token held by node h, x, against node j, y.
func lnAt(x *Node, h int, y *Node, j int) error {
	if x.ln[j] != y.granted || y.granted > y.rn[j] {
		return fmt.Errorf("the holder %d has LN[%d] = %d, node %d's granted request is %d (RN %d)", h, j, x.ln[j], j, y.granted, y.rn[j])
	}
	return nil
}

// heldToken checks HeldToken step by step (proto.Incremental): after a
// step of node id, id's own properties, the token id holds against every
// node, and every other live holder's token against id.
type heldToken struct {
	holders []proto.NodeID // the live nodes that hold a token
}

func (c *heldToken) Full(s proto.System) error {
	if err := HeldToken(s); err != nil {
		return err
	}
	c.holders = c.holders[:0]
	for h, p := range s.Nodes() {
		if x := p.(*Node); x.Up() && x.tokenHere {
			c.holders = append(c.holders, proto.NodeID(h))
		}
	}
	return nil
}

func (c *heldToken) Step(s proto.System, id proto.NodeID, _ *proto.Message, _ []proto.Message) error {
	ps := s.Nodes()
	y, ok := ps[id].(*Node)
	if !ok {
		return proto.ErrFull
	}
	if heldAt(y, int(id)) != nil {
		return incr.ErrBroken
	}
	c.holders = slices.DeleteFunc(c.holders, func(h proto.NodeID) bool { return h == id })
	if y.Up() && y.tokenHere {
		c.holders = append(c.holders, id)
		for j, p := range ps {
			if lnAt(y, int(id), p.(*Node), j) != nil {
				return incr.ErrBroken
			}
		}
	}
	for _, h := range c.holders {
		if lnAt(ps[h].(*Node), int(h), y, int(id)) != nil {
			return incr.ErrBroken
		}
	}
	return nil
}
