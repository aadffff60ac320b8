package kofl

import (
	"fmt"
	"slices"
	"sync"

	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/proto"
)

// ring is a system read link by link: the kofl nodes, and the messages in
// flight on the link out of the node at ring position k, oldest first.
type ring struct {
	nodes []*Node
	links [][]proto.Message
}

// readRing reads s. Its ForEachInFlight must give every link's messages in
// the order they will be delivered (FIFO), which the legitimacy predicate
// needs to tell the messages ahead of the CToken from those behind it.
func readRing(s proto.System) (*ring, error) {
	pn := s.Nodes()
	r := ringPool.Get().(*ring)
	r.nodes = slices.Grow(r.nodes[:0], len(pn))[:len(pn)]
	if cap(r.links) < len(pn) {
		r.links = make([][]proto.Message, len(pn))
	}
	r.links = r.links[:len(pn)]
	for k := range r.links {
		r.links[k] = r.links[k][:0]
	}
	for i, nd := range pn {
		k, ok := nd.(*Node)
		if !ok {
			return nil, fmt.Errorf("node %d is a %T, not a kofl node", i, nd)
		}
		r.nodes[i] = k
	}
	var err error
	s.ForEachInFlight(func(m *proto.Message) {
		if err != nil {
			return
		}
		if m.From < 0 || int(m.From) >= len(pn) || m.To != r.nodes[m.From].next {
			err = fmt.Errorf("message %d→%d (type %d) is not on a ring link", m.From, m.To, m.Type)
			return
		}
		pos := ringPos(int(m.From), len(pn))
		r.links[pos] = append(r.links[pos], *m)
	})
	return r, err
}

// ringPool recycles the rings readRing fills (a runtime reads one after
// every step); done returns one.
var ringPool = sync.Pool{New: func() any { return new(ring) }}

func (r *ring) done() { ringPool.Put(r) }

// tokensIn is the number of tokens a message carries: a <Token> one, an
// <Allocate> T_a, a <Collect> T_c, any other none.
func tokensIn(m *proto.Message) int {
	switch m.Type {
	case Token:
		return 1
	case Allocate, Collect:
		return int(m.Stamp)
	}
	return 0
}

// tokens counts the tokens in all their forms: enabled at the nodes (T_h −
// T_d), free in <Token> messages, in the pools of <Allocate> (T_a) and
// <Collect> (T_c) messages, and Root's pool (MyT_c + MyT_a).
func (r *ring) tokens() int {
	t := r.nodes[0].st.MyTc + r.nodes[0].st.MyTa
	for _, nd := range r.nodes {
		t += max(0, nd.enabled())
	}
	for _, l := range r.links {
		for k := range l {
			t += tokensIn(&l[k])
		}
	}
	return t
}

// Tokens returns the number of tokens in all their forms in s (see
// Legitimate): ℓ in a legitimate configuration.
func Tokens(s proto.System) (int, error) {
	r, err := readRing(s)
	if err != nil {
		return 0, err
	}
	defer r.done()
	return r.tokens(), nil
}

// Safety checks the k-out-of-ℓ exclusion's safety in s: no more than ℓ
// units are in use (the needs of the nodes in the critical section add up
// to ℓ at most), and no unit is held twice: every node in the critical
// section holds enabled tokens for all the units it uses, and no more than
// ℓ tokens exist in all their forms.
func Safety(s proto.System) error {
	r, err := readRing(s)
	if err != nil {
		return err
	}
	defer r.done()
	ell := r.nodes[0].p.Ell
	inUse := 0
	for i, nd := range r.nodes {
		if nd.st.Mode != In {
			continue
		}
		inUse += nd.st.Need
		if nd.enabled() < nd.st.Need {
			return fmt.Errorf("safety: node %d uses %d units in the critical section and holds %d enabled tokens", i, nd.st.Need, nd.enabled())
		}
	}
	if inUse > ell {
		return fmt.Errorf("safety: %d units in use, ℓ = %d", inUse, ell)
	}
	if t := r.tokens(); t > ell {
		return fmt.Errorf("safety: %d tokens exist, ℓ = %d", t, ell)
	}
	return nil
}

// Legitimate is the legitimacy predicate of the composed protocol: it
// returns nil if s is legitimate, else what is wrong. s's messages in
// flight must be enumerated link by link in delivery order. Legitimate:
//
//  1. Every node is settled and consistent: 0 ≤ T_d ≤ T_h ≤ K, 1 ≤ NEED ≤
//     K; a node outside holds nothing; a requester has fewer enabled tokens
//     than it needs; a node in the critical section holds at least NEED
//     enabled tokens (no unit held twice).
//  2. Exactly one CToken is in flight, and it carries Root's MySeq; the
//     nodes it has visited in this traversal have MySeq equal to it, the
//     others a different one (they will report their enabled tokens).
//  3. No <Disable> is in flight; no <Enabled_Token> is behind the CToken;
//     at most one <Allocate> (carrying Root's MyOrder) and at most one
//     <Collect> are in flight, both ahead of the CToken.
//  4. ℓ tokens exist in all their forms (Tokens).
//  5. Root's count will be exact: C_e + C_f + MyT_c + MyT_a plus the
//     tokens still to be counted in this traversal — the enabled tokens of
//     the nodes not yet visited, the <Enabled_Token> messages and the
//     tokens carried by the messages ahead of the CToken — is ℓ.
func Legitimate(s proto.System) error { return legitimate(s, true) }

// Converged is Legitimate but for the backing of critical sections: a
// node may still be in the critical section on units whose tokens a
// <Disable> destroyed (or a fault took), until it leaves. The Controller
// and the token circulation have converged then — one CToken, ℓ tokens,
// an exact count — but safety waits for those critical sections to end.
func Converged(s proto.System) error { return legitimate(s, false) }

func legitimate(s proto.System, backed bool) error {
	r, err := readRing(s)
	if err != nil {
		return err
	}
	defer r.done()
	nodes, root := r.nodes, r.nodes[0]
	n, p := len(nodes), root.p
	for i, nd := range nodes {
		l := &nd.st
		switch {
		case l.Td < 0 || l.Td > l.Th || l.Th > p.K || l.Need < 1 || l.Need > p.K:
			return fmt.Errorf("node %d: T_h %d, T_d %d, NEED %d out of their domains (K = %d)", i, l.Th, l.Td, l.Need, p.K)
		case l.Mode == Out && l.Th != 0:
			return fmt.Errorf("node %d is outside with T_h %d, T_d %d", i, l.Th, l.Td)
		case l.Mode == Request && nd.enabled() >= l.Need:
			return fmt.Errorf("node %d requests %d units and holds %d enabled tokens", i, l.Need, nd.enabled())
		case l.Mode == In && nd.enabled() < l.Need && backed:
			return fmt.Errorf("node %d uses %d units and holds %d enabled tokens", i, l.Need, nd.enabled())
		}
	}
	if root.st.Disabling {
		return fmt.Errorf("root is disabling")
	}
	if root.st.Ce > p.Ell || root.st.Cf > p.Ell {
		return fmt.Errorf("root: C_e %d, C_f %d above ℓ = %d", root.st.Ce, root.st.Cf, p.Ell)
	}
	// 2: the one CToken, on the link out of ring position cr, at index cq.
	cr, cq, cts := -1, -1, 0
	for pos, l := range r.links {
		for k := range l {
			if l[k].Type == CToken {
				cts++
				cr, cq = pos, k
			}
		}
	}
	if cts != 1 {
		return fmt.Errorf("%d CTokens in flight", cts)
	}
	seq := r.links[cr][cq].Stamp
	if seq != root.st.MySeq {
		return fmt.Errorf("the CToken carries %d, Root's MySeq is %d", seq, root.st.MySeq)
	}
	for pos := 1; pos < n; pos++ {
		nd := nodes[ringAt(pos, n)]
		if visited := pos <= cr; visited != (nd.st.MySeq == seq) {
			return fmt.Errorf("node %d (ring position %d, CToken after position %d) has MySeq %d, the CToken %d", nd.id, pos, cr, nd.st.MySeq, seq)
		}
	}
	// 3 and 5: the messages ahead of the CToken.
	counted := root.st.Ce + root.st.Cf + root.st.MyTc + root.st.MyTa
	allocs, collects := 0, 0
	for pos, l := range r.links {
		for k := range l {
			m := &l[k]
			ahead := pos > cr || pos == cr && k < cq
			switch m.Type {
			case Disable:
				return fmt.Errorf("a <Disable> is in flight out of node %d", m.From)
			case EnabledToken:
				if !ahead {
					return fmt.Errorf("an <Enabled_Token> out of node %d is behind the CToken", m.From)
				}
			case Allocate, Collect:
				if !ahead {
					return fmt.Errorf("a %s out of node %d is behind the CToken", messageTypes[m.Type].Name, m.From)
				}
				if m.Type == Allocate {
					allocs++
					if (m.Phase != 0) != root.st.MyOrder {
						return fmt.Errorf("an <Allocate> carries order %d, Root's MyOrder is %v", m.Phase, root.st.MyOrder)
					}
				} else {
					collects++
				}
			}
			if ahead {
				counted += tokensIn(m)
				if m.Type == EnabledToken {
					counted++
				}
			}
		}
	}
	if allocs > 1 || collects > 1 {
		return fmt.Errorf("%d <Allocate> and %d <Collect> in flight", allocs, collects)
	}
	for pos := cr + 1; pos < n; pos++ {
		counted += nodes[ringAt(pos, n)].enabled()
	}
	if t := r.tokens(); t != p.Ell {
		return fmt.Errorf("%d tokens exist in all their forms, ℓ = %d", t, p.Ell)
	}
	if counted != p.Ell {
		return fmt.Errorf("Root will count %d tokens at the end of this traversal (C_e %d, C_f %d, MyT_c %d, MyT_a %d so far), ℓ = %d",
			counted, root.st.Ce, root.st.Cf, root.st.MyTc, root.st.MyTa, p.Ell)
	}
	return nil
}

// ringAt is the node at ring position k of an n-node ring: the Gray-code
// cycle when n is a power of two (each hop a hypercube link), else nodes
// in the order of their ids.
func ringAt(k, n int) int {
	if _, ok := hypercube.Log2(n); ok {
		return hypercube.Gray(k % n)
	}
	return k % n
}

// ringPos is the ring position of node i of an n-node ring (ringAt's
// inverse).
func ringPos(i, n int) int {
	if _, ok := hypercube.Log2(n); ok {
		return hypercube.GrayRank(i)
	}
	return i
}

// ringNext is the node after node i on an n-node ring.
func ringNext(i, n int) int { return ringAt(ringPos(i, n)+1, n) }
