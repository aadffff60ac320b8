package singhaltoken

import (
	"fmt"

	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Invariants implements proto.Algorithm: without crashes, after every step,
// TokenGoesToRequester and TokenVectors. None with crashes (the algorithm
// has no failure protocol).
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	return proto.WithoutCrashes(crashes,
		proto.Invariant{Name: "token_goes_to_requester", When: proto.EveryStep, Check: TokenGoesToRequester,
			Incremental: func() proto.Incremental { return &followed{check: TokenGoesToRequester, step: goesToStep} }},
		proto.Invariant{Name: "token_vectors", When: proto.EveryStep, Check: TokenVectors,
			Incremental: func() proto.Incremental { return &followed{check: TokenVectors, step: vectorsStep} }})
}

func nodesOf(s proto.System) []*Node { return nodecast.All[*Node](s) }

// TokenGoesToRequester checks that a token in flight goes to a node in
// state R that does not hold a token, and that the token records that
// node's current request as requesting (TSV = R, TSN = its SN).
func TokenGoesToRequester(s proto.System) error {
	nodes := nodesOf(s)
	var err error
	s.ForEachInFlight(func(m *proto.Message) {
		if err == nil && m.Type == Token {
			err = goesToAt(nodes[m.To], m)
		}
	})
	return err
}

// goesToAt is TokenGoesToRequester for the token m in flight to node to.
func goesToAt(to *Node, m *proto.Message) error {
	if to.sv[to.id] != R || to.tok != nil {
		return fmt.Errorf("token in flight %d→%d to a node in state %s (holding: %v)", m.From, m.To, to.sv[to.id], to.tok != nil)
	}
	if st, sn, _ := unpack(m.Payload[m.To]); st != R || sn != to.sn[to.id] {
		return fmt.Errorf("token in flight to %d records its request as %s/%d; its own SN is %d", m.To, st, sn, to.sn[to.id])
	}
	return nil
}

// TokenVectors checks the token's vectors against the nodes, wherever the
// token is (held or in flight): TSN[j] never exceeds node j's own SN_j[j];
// TSV[j] is R or N, and R only for j's current, unfinished request (j is
// requesting or in its critical section and TSN[j] = SN_j[j]). A node
// holding the idle token knows of no requesting node.
func TokenVectors(s proto.System) error {
	nodes := nodesOf(s)
	var tok []int64
	for _, nd := range nodes {
		if nd.Up() && nd.tok != nil {
			tok = nd.tok
			if err := idleHolderAt(nd); err != nil {
				return err
			}
		}
	}
	s.ForEachInFlight(func(m *proto.Message) {
		if m.Type == Token {
			tok = m.Payload
		}
	})
	if tok == nil {
		return nil // the runtime checks that exactly one token exists
	}
	for j := range tok {
		if err := entryAt(tok, nodes[j]); err != nil {
			return err
		}
	}
	return nil
}

// entryAt is TokenVectors for node nd's entry of the token's vector tok.
func entryAt(tok []int64, nd *Node) error {
	j := nd.id
	st, sn, _ := unpack(tok[j])
	own := nd.sn[j]
	switch {
	case sn > own:
		return fmt.Errorf("the token has TSN[%d] = %d, above node %d's own SN %d", j, sn, j, own)
	case st != R && st != N:
		return fmt.Errorf("the token has TSV[%d] = %s", j, st)
	case st == R && (sn != own || (nd.sv[j] != R && nd.sv[j] != E)):
		return fmt.Errorf("the token has TSV[%d] = R for request %d, but node %d is in state %s with SN %d", j, sn, j, nd.sv[j], own)
	}
	return nil
}

// idleHolderAt is TokenVectors for the holder nd of the token: holding it
// idle, it believes no other node is in a state other than N.
func idleHolderAt(nd *Node) error {
	if nd.sv[nd.id] != H {
		return nil
	}
	for j, st := range nd.sv {
		if proto.NodeID(j) != nd.id && st != N {
			return fmt.Errorf("node %d holds the idle token but believes node %d is in state %s", nd.id, j, st)
		}
	}
	return nil
}

// tokenAt follows the one token, held or in flight, from step to step, for
// the incremental checkers: known is false when it cannot tell (no token,
// or more than one), and the checker then reads the whole system.
type tokenAt struct {
	known  bool
	holder proto.NodeID  // the node that holds it, if not flying
	flying bool          // in flight: msg
	msg    proto.Message // its payload is never changed once sent
}

// full finds the token in the whole system.
func (t *tokenAt) full(s proto.System) {
	k := 0
	t.holder, t.flying = proto.Nil, false
	for i, p := range s.Nodes() {
		if nd := p.(*Node); nd.Up() && nd.tok != nil {
			t.holder = proto.NodeID(i)
			k++
		}
	}
	s.ForEachInFlight(func(m *proto.Message) {
		if m.Type == Token {
			t.msg, t.flying = *m, true
			k++
		}
	})
	t.known = k == 1
}

// step follows the token through a step of node id (it received in and
// sent out), and reports whether the token moved or its holder stepped:
// then the token's vector may have changed.
func (t *tokenAt) step(ps []proto.Node, id proto.NodeID, in *proto.Message, out []proto.Message) bool {
	moved := in != nil && in.Type == Token
	if moved {
		t.flying = false
	}
	for i := range out {
		if out[i].Type == Token {
			t.known = t.known && !t.flying
			t.msg, t.flying, t.holder, moved = out[i], true, proto.Nil, true
		}
	}
	switch nd := ps[id].(*Node); {
	case nd.tok != nil:
		t.known = t.known && !t.flying && (t.holder == proto.Nil || t.holder == id)
		t.holder, moved = id, true
	case t.holder == id:
		t.holder, moved = proto.Nil, true
	}
	if !t.flying && t.holder == proto.Nil {
		t.known = false // the token is nowhere
	}
	return moved
}

// followed is an incremental checker that follows the one token from
// step to step (tokenAt): check is the whole check, and at checks a step
// of node id that left the token known (moved: it moved, or its holder
// stepped). A step after which the token is not known is read whole.
type followed struct {
	at    tokenAt
	check func(proto.System) error
	step  func(t *tokenAt, ps []proto.Node, id proto.NodeID, moved bool) error
}

// Full implements proto.Incremental.
func (c *followed) Full(s proto.System) error {
	c.at.full(s)
	return c.check(s)
}

// Step implements proto.Incremental.
func (c *followed) Step(s proto.System, id proto.NodeID, in *proto.Message, out []proto.Message) error {
	ps := s.Nodes()
	moved := c.at.step(ps, id, in, out)
	if !c.at.known {
		return proto.ErrFull
	}
	return c.step(&c.at, ps, id, moved)
}

// goesToStep is TokenGoesToRequester after a step (followed): the token in
// flight is checked when it is sent and whenever the node it goes to
// steps (what else the check reads does not change), O(1) a step where
// the whole check reads every message in flight.
func goesToStep(t *tokenAt, ps []proto.Node, id proto.NodeID, moved bool) error {
	if t.flying && (moved || id == t.msg.To) {
		return goesToAt(ps[t.msg.To].(*Node), &t.msg)
	}
	return nil
}

// vectorsStep is TokenVectors after a step (followed): after a step that
// moved the token or of its holder, the whole vector is checked (O(N));
// after another step, the stepping node's entry alone (O(1)), where the
// whole check reads every message in flight.
func vectorsStep(t *tokenAt, ps []proto.Node, id proto.NodeID, moved bool) error {
	tok := t.msg.Payload
	if !t.flying {
		h := ps[t.holder].(*Node)
		tok = h.tok
		if moved || id == t.holder {
			if err := idleHolderAt(h); err != nil {
				return err
			}
		}
	}
	if !moved && id != t.holder {
		return entryAt(tok, ps[id].(*Node))
	}
	for _, p := range ps {
		if err := entryAt(tok, p.(*Node)); err != nil {
			return err
		}
	}
	return nil
}
