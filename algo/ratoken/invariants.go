package ratoken

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
	nd, err := nodes(s)
	if err != nil {
		return err
	}
	n := len(nd)
	at, err := sktoken.Find(s, nd, view, func(m *proto.Message) bool { return m.Type == Token && len(m.Payload) == n })
	if err != nil {
		return err
	}
	owner, flying, tok := at.Owner, at.Flying, at.Msg.Payload
	if !flying {
		tok = nd[owner].tok
	}
	for j, x := range nd {
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
	}
	if h := nd[owner]; !flying && !h.Asked {
		for j := range nd {
			if h.req[j] > tok[j] {
				return fmt.Errorf("the idle holder %d keeps the token, and knows node %d's request %d is not granted", owner, j, h.req[j])
			}
		}
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
	return sktoken.HolderKnows(nd, view, "request")
}

// view is what sktoken reads of a node.
func view(x *Node) sktoken.View {
	return sktoken.View{TokenHere: x.TokenHere, InCS: x.InCS, Asked: x.Asked, Tag: x.Tag, Req: x.req}
}
