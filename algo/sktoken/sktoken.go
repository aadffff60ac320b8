// Package sktoken holds what the invariants of ocbench's broadcast-token
// algorithms after Suzuki–Kasami share (algo/suzukikasami, algo/ratoken,
// algo/nishio; algo/mishrasrimani through algo/suzukikasami): where the one
// token is, that it travels to a node that waits for it, and that its idle
// holder has heard every request. It is not an algorithm.
package sktoken

import (
	"fmt"

	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// View is what the checks read of a node.
type View struct {
	TokenHere, InCS, Asked bool
	Tag                    uint32  // the serial of its own request
	Req                    []int64 // its request number of every node (RN, or request)
}

// Token is where the one token is.
type Token struct {
	Owner  proto.NodeID  // its holder, or the node it travels to
	Flying bool          // in flight, to Owner
	Msg    proto.Message // the token in flight, if Flying
}

// Find returns the token of nodes nd (read by view) and s's messages in
// flight, those isToken accepts being the token (the last of them, if
// several). It checks, in O(N): a node in the critical section holds the
// token; there is a token; a token in flight travels to a node that waits
// for it (asks, and is not in the critical section), tagged with the
// serial of its request.
func Find[T any](s proto.System, nd []T, view func(T) View, isToken func(m *proto.Message) bool) (Token, error) {
	tok := Token{Owner: proto.Nil}
	for i, x := range nd {
		v := view(x)
		if v.InCS && !v.TokenHere {
			return tok, fmt.Errorf("node %d is in the critical section without the token", i)
		}
		if v.TokenHere {
			tok.Owner = proto.NodeID(i)
		}
	}
	s.ForEachInFlight(func(m *proto.Message) {
		if isToken(m) {
			tok = Token{Owner: m.To, Flying: true, Msg: *m}
		}
	})
	if tok.Owner == proto.Nil {
		return tok, fmt.Errorf("no token")
	}
	if tok.Flying {
		d := view(nd[tok.Owner])
		if !d.Asked || d.InCS {
			return tok, fmt.Errorf("the token travels to node %d, which is not waiting for it", tok.Owner)
		}
		if tok.Msg.Tag != d.Tag {
			return tok, fmt.Errorf("the token travels to node %d with tag %d, its request is %d", tok.Owner, tok.Msg.Tag, d.Tag)
		}
	}
	return tok, nil
}

// HolderKnows checks, when no message is in flight, that the token's
// holder has received every node's latest request (its Req[j] is node j's
// own, named req in the error), and, if it is not in the critical section,
// that no node waits (no request is forgotten). O(N) per holder.
func HolderKnows[T any](nd []T, view func(T) View, req string) error {
	for h, x := range nd {
		hv := view(x)
		if !hv.TokenHere {
			continue
		}
		for j, y := range nd {
			yv := view(y)
			if hv.Req[j] != yv.Req[j] {
				return fmt.Errorf("the holder %d has %s[%d] = %d, node %d's own is %d", h, req, j, hv.Req[j], j, yv.Req[j])
			}
			if !hv.InCS && yv.Asked {
				return fmt.Errorf("node %d waits while the holder %d is idle and nothing is in flight", j, h)
			}
		}
	}
	return nil
}

// Invariants are the two checks every such algorithm makes without
// crashes: its TokenState after every step, and its HolderKnows whenever no
// message is in flight.
func Invariants(tokenState, holderKnows func(proto.System) error) []proto.Invariant {
	return []proto.Invariant{
		{Name: "token state", When: proto.EveryStep, Check: tokenState},
		{Name: "holder knows every request", When: proto.Quiet, Check: holderKnows},
	}
}

// Tracked makes incremental checkers (proto.Incremental) of a token state
// check: check is the whole check, which also returns the token it found
// (as Find), and at checks node id against the token tok after a step of
// id that left the token where it was and as it was (at returns
// proto.ErrFull if it cannot tell, as when id holds a token). A step that
// moves or changes the token (one of token type received or sent, or a
// step of its holder or of the node it travels to), or a system with more
// than one message or holder of the token, gets a full check.
func Tracked(check func(proto.System) (Token, error), token proto.MsgType, at func(s proto.System, id proto.NodeID, tok *Token) error) func() proto.Incremental {
	return func() proto.Incremental { return &tracked{check: check, token: token, at: at} }
}

type tracked struct {
	check func(proto.System) (Token, error)
	token proto.MsgType
	at    func(proto.System, proto.NodeID, *Token) error
	tok   Token
	one   bool // tok is the only token: held by one node, or the one message of token type
}

func (t *tracked) Full(s proto.System) error {
	tok, err := t.check(s)
	if err != nil {
		return err
	}
	k := 0
	for _, nd := range s.Nodes() {
		if nd.View().TokenHere {
			k++
		}
	}
	s.ForEachInFlight(func(m *proto.Message) {
		if m.Type == t.token {
			k++
		}
	})
	t.tok, t.one = tok, k == 1
	return nil
}

func (t *tracked) Step(s proto.System, id proto.NodeID, in *proto.Message, out []proto.Message) error {
	if !t.one || id == t.tok.Owner || in != nil && in.Type == t.token {
		return proto.ErrFull
	}
	for k := range out {
		if out[k].Type == t.token {
			return proto.ErrFull
		}
	}
	return t.at(s, id, &t.tok)
}

// Vector returns the vector the token tok carries: its payload in flight,
// else what vec reads of its holder among nodes ps (as T); ok is false if
// the holder is not a T.
func Vector[T any](ps []proto.Node, tok *Token, vec func(T) []int64) (v []int64, ok bool) {
	if tok.Flying {
		return tok.Msg.Payload, true
	}
	h, ok := ps[tok.Owner].(T)
	if !ok {
		return nil, false
	}
	return vec(h), true
}

// Quiet makes checkers (proto.Incremental) of a Quiet invariant that reads
// the nodes as T (nodecast.Checked with what and as) and checks them with
// check: each check reads the whole system, into a buffer kept from one
// check to the next.
func Quiet[T any](what string, as func(proto.Node) (T, bool), check func(nd []T) error) func() proto.Incremental {
	return func() proto.Incremental { return &quiet[T]{what: what, as: as, check: check} }
}

type quiet[T any] struct {
	what  string
	as    func(proto.Node) (T, bool)
	check func([]T) error
	nd    []T
}

func (q *quiet[T]) Full(s proto.System) error {
	nd, err := nodecast.Into(q.nd, s, q.what, q.as)
	if err != nil {
		return err
	}
	q.nd = nd
	return q.check(nd)
}

func (q *quiet[T]) Step(proto.System, proto.NodeID, *proto.Message, []proto.Message) error {
	return proto.ErrFull
}
