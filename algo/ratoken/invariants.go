package ratoken

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
	inv := sktoken.Invariants(TokenState, HolderKnows)
	inv[0].Incremental = sktoken.Tracked(tokenState, Token, tokenStateAt)
	return proto.WithoutCrashes(crashes, inv...)
}

func nodes(s proto.System) ([]*Node, error) {
	return nodecast.Checked(s, "Ricart–Agrawala token", nodecast.Is[*Node])
}

// TokenState checks the token against the nodes, in O(N):
//
//   - a node in the critical section holds the token;
//   - for every node j, with t_j = request_j[j] the timestamp of its own
//     latest request (at most its clock) and token[j] the token's:
//     token[j] ≤ t_j, equal if j is not asking, smaller while j waits for
//     the token (its request is not granted);
//   - an idle holder knows of no request not granted (it would have sent
//     the token);
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
	at, err := sktoken.Find(s, nd, view, func(m *proto.Message) bool { return m.Type == Token && len(m.Payload) == n })
	if err != nil {
		return sktoken.Token{}, err
	}
	owner, flying, tok := at.Owner, at.Flying, at.Msg.Payload
	if !flying {
		tok = nd[owner].tok
	}
	for j, x := range nd {
		if err := entryAt(x, j, tok); err != nil {
			return sktoken.Token{}, err
		}
	}
	if h := nd[owner]; !flying && !h.Asked {
		for j := range nd {
			if h.req[j] > tok[j] {
				return sktoken.Token{}, fmt.Errorf("the idle holder %d keeps the token, and knows node %d's request %d is not granted", owner, j, h.req[j])
			}
		}
	}
	return at, nil
}

// entryAt checks node j (x) against the token's vector tok.
func entryAt(x *Node, j int, tok []int64) error {
	t := x.req[j]
	switch {
	case uint64(t) > x.clock:
		return fmt.Errorf("node %d: its request's timestamp %d is ahead of its clock %d", j, t, x.clock)
	case tok[j] > t:
		return fmt.Errorf("node %d: the token grants its request %d, its latest is %d", j, tok[j], t)
	case !x.Asked && tok[j] != t:
		return fmt.Errorf("node %d is not asking, and its request %d is not granted (token[%d] = %d)", j, t, j, tok[j])
	case x.Asked && !x.InCS && tok[j] == t:
		return fmt.Errorf("node %d waits, and its request %d is granted", j, t)
	}
	return nil
}

// tokenStateAt is TokenState after a step of node id that left the token
// where and as it was (sktoken.Tracked): only id's entry can have changed.
// O(1), where TokenState reads every node and every message in flight.
func tokenStateAt(s proto.System, id proto.NodeID, tok *sktoken.Token) error {
	ps := s.Nodes()
	x, ok := ps[id].(*Node)
	if !ok || x.TokenHere {
		return proto.ErrFull
	}
	if x.InCS {
		return incr.ErrBroken // in the critical section without the token
	}
	vec, ok := sktoken.Vector(ps, tok, func(h *Node) []int64 { return h.tok })
	if !ok {
		return proto.ErrFull
	}
	return entryAt(x, int(id), vec)
}

// HolderKnows checks, when no message is in flight, that the token's holder
// has received every node's latest request, and, if it is not in the
// critical section, that no node waits (no request is forgotten).
func HolderKnows(s proto.System) error {
	nd, err := nodes(s)
	if err != nil {
		return err
	}
	return sktoken.HolderKnows(nd, view, "request")
}

// view is what sktoken reads of a node.
func view(x *Node) sktoken.View {
	return sktoken.View{TokenHere: x.TokenHere, InCS: x.InCS, Asked: x.Asked, Tag: x.Tag, Req: x.req}
}
