package scheme

import (
	"slices"

	"github.com/ocbench/ocbench/internal/incr"
	"github.com/ocbench/ocbench/proto"
)

// aTree checks ATree step by step (proto.Incremental). It keeps the a_tree
// relation as claims: own[i], the father that node i's own state gives it
// (a1, a5), and maybe[i], the fathers that other nodes' states and the
// messages in flight give it while it asks (a3, a2, a4), with their
// multiplicity. After a step of node id only the claims of id's state and
// of the messages it received and sent change, and only the nodes they
// name can change father: each of them must have one father at most; the
// roots are counted; a cycle made by the step runs through a node whose
// father changed, so a walk up from each such node finds it.
type aTree struct {
	asked    []bool
	own      []proto.NodeID
	mandator []proto.NodeID   // mandator[j]: node j's mandator (its a3 claim)
	waiting  [][]proto.NodeID // waiting[j]: node j's waiting requests (its a2 claims)
	maybe    [][]proto.NodeID
	parent   []proto.NodeID
	roots    int
	dirty    []proto.NodeID // the nodes whose claims the step changed
	n        int
}

// ATreeIncremental makes an incremental checker of ATree.
func ATreeIncremental() proto.Incremental { return &aTree{} }

// Full implements proto.Incremental.
func (a *aTree) Full(s proto.System) error {
	if err := ATree(s); err != nil {
		return err
	}
	nodes := s.Nodes()
	n := len(nodes)
	a.n = n
	a.asked = resize(a.asked, n)
	a.own = resize(a.own, n)
	a.mandator = resize(a.mandator, n)
	a.parent = resize(a.parent, n)
	if len(a.waiting) != n {
		a.waiting, a.maybe = make([][]proto.NodeID, n), make([][]proto.NodeID, n)
	}
	for i := range n {
		a.waiting[i], a.maybe[i] = a.waiting[i][:0], a.maybe[i][:0]
	}
	for i, nd := range nodes {
		id := proto.NodeID(i)
		t, _ := TreeOf(nd)
		a.asked[i] = nd.View().Asked
		a.own[i] = ownFather(nd.View(), t)
		a.mandator[i] = t.Mandator
		if t.Mandator != proto.Nil && t.Mandator != id {
			a.maybe[t.Mandator] = append(a.maybe[t.Mandator], id)
		}
		nd.Waiting(func(j proto.NodeID) {
			a.waiting[i] = append(a.waiting[i], j)
			if j != id {
				a.maybe[j] = append(a.maybe[j], id)
			}
		})
	}
	s.ForEachInFlight(func(m *proto.Message) { a.message(m, true) })
	a.roots = 0
	for i := range n {
		a.parent[i], _ = a.father(proto.NodeID(i))
		if a.parent[i] == proto.Nil {
			a.roots++
		}
	}
	return nil
}

// Step implements proto.Incremental.
func (a *aTree) Step(s proto.System, id proto.NodeID, in *proto.Message, out []proto.Message) error {
	nodes := s.Nodes()
	if len(nodes) != a.n {
		return proto.ErrFull
	}
	nd := nodes[id]
	t, ok := TreeOf(nd)
	if !ok {
		return proto.ErrFull
	}
	a.dirty = append(a.dirty[:0], id)
	v := nd.View()
	a.asked[id] = v.Asked
	a.own[id] = ownFather(v, t)
	if t.Mandator != a.mandator[id] {
		a.drop(a.mandator[id], id)
		a.mandator[id] = t.Mandator
		a.claim(t.Mandator, id)
	}
	for _, j := range a.waiting[id] {
		a.drop(j, id)
	}
	a.waiting[id] = a.waiting[id][:0]
	nd.Waiting(func(j proto.NodeID) {
		a.waiting[id] = append(a.waiting[id], j)
		a.claim(j, id)
	})
	if in != nil && !a.message(in, false) {
		return proto.ErrFull
	}
	for k := range out {
		if !a.message(&out[k], true) {
			return proto.ErrFull
		}
	}
	changed := false
	for _, i := range a.dirty {
		f, ok := a.father(i)
		if !ok {
			return incr.ErrBroken // two fathers
		}
		if f == a.parent[i] {
			continue
		}
		if a.parent[i] == proto.Nil {
			a.roots--
		}
		if f == proto.Nil {
			a.roots++
		}
		a.parent[i], changed = f, true
	}
	if a.roots != 1 {
		return incr.ErrBroken
	}
	if !changed {
		return nil
	}
	for _, i := range a.dirty {
		j := a.parent[i]
		for k := 0; j != proto.Nil; k++ {
			if j == i || k >= a.n {
				return incr.ErrBroken // a cycle
			}
			j = a.parent[j]
		}
	}
	return nil
}

// ownFather is the father node i's own state claims (a1, a5), or Nil.
func ownFather(v proto.View, t TreeView) proto.NodeID {
	if !v.Asked || v.TokenHere {
		return t.Father
	}
	return proto.Nil
}

// claim adds node j's claim to be the father of node i while i asks (a2
// waiting, a3), unless i is Nil or j itself.
func (a *aTree) claim(i, j proto.NodeID) {
	if i != proto.Nil && i != j {
		a.maybe[i] = append(a.maybe[i], j)
		a.dirty = append(a.dirty, i)
	}
}

// drop takes back a claim that claim added.
func (a *aTree) drop(i, j proto.NodeID) {
	if i != proto.Nil && i != j {
		a.unclaim(i, j)
	}
}

// unclaim takes one claim of j on i out of maybe[i].
func (a *aTree) unclaim(i, j proto.NodeID) {
	m := a.maybe[i]
	if k := slices.Index(m, j); k >= 0 {
		m[k] = m[len(m)-1]
		a.maybe[i] = m[:len(m)-1]
	}
	a.dirty = append(a.dirty, i)
}

// message adds (add) or takes back the claim of a message in flight (a2
// in transit, a4); false if it names no node it can.
func (a *aTree) message(m *proto.Message, add bool) bool {
	var i, j proto.NodeID
	switch {
	case m.Type == Request:
		i, j = m.J.Node(), m.To
	case m.Type == Token && !m.J.IsNil():
		i, j = m.To, m.From
	default:
		return true
	}
	if i < 0 || int(i) >= a.n || j < 0 || int(j) >= a.n {
		return false
	}
	if add {
		a.maybe[i] = append(a.maybe[i], j)
		a.dirty = append(a.dirty, i)
	} else {
		a.unclaim(i, j)
	}
	return true
}

// father returns node i's father in a_tree, and false if it has two.
func (a *aTree) father(i proto.NodeID) (proto.NodeID, bool) {
	f := a.own[i]
	if !a.asked[i] {
		return f, true
	}
	for _, j := range a.maybe[i] {
		switch {
		case f == proto.Nil:
			f = j
		case f != j:
			return f, false
		}
	}
	return f, true
}

// resize returns b with length n, its elements to be overwritten.
func resize[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// properties checks Properties step by step (proto.Incremental): property
// 3 is node id's own after its step; property 2 counts the nodes that are
// their own lender; property 1 counts the tokens in flight to each node,
// so that after a step only node id and the destinations of the tokens it
// sent are read.
type properties struct {
	lender  []bool
	lenders int
	tokens  []int // tokens[i]: the token messages in flight to node i
}

// PropertiesIncremental makes an incremental checker of Properties.
func PropertiesIncremental() proto.Incremental { return &properties{} }

// Full implements proto.Incremental.
func (p *properties) Full(s proto.System) error {
	if err := Properties(s); err != nil {
		return err
	}
	nodes := s.Nodes()
	p.lender = resize(p.lender, len(nodes))
	p.tokens = resize(p.tokens, len(nodes))
	clear(p.tokens)
	p.lenders = 0
	for i, nd := range nodes {
		t, _ := TreeOf(nd)
		p.lender[i] = t.Lender == proto.NodeID(i)
		if p.lender[i] {
			p.lenders++
		}
	}
	s.ForEachInFlight(func(m *proto.Message) {
		if m.Type == Token {
			p.tokens[m.To]++
		}
	})
	return nil
}

// Step implements proto.Incremental.
func (p *properties) Step(s proto.System, id proto.NodeID, in *proto.Message, out []proto.Message) error {
	nodes := s.Nodes()
	if len(nodes) != len(p.lender) {
		return proto.ErrFull
	}
	nd := nodes[id]
	t, ok := TreeOf(nd)
	if !ok {
		return proto.ErrFull
	}
	v := nd.View()
	if l := t.Lender == id; l != p.lender[id] {
		p.lender[id] = l
		if l {
			p.lenders++
		} else {
			p.lenders--
		}
	}
	switch {
	case p.lenders > 1,
		p.lender[id] && (t.Father != proto.Nil || t.Mandator != proto.Nil),
		!v.Asked && v.TokenHere && t.Father != proto.Nil,
		!v.Asked && t.Father == proto.Nil && !v.TokenHere:
		return incr.ErrBroken
	}
	if in != nil && in.Type == Token {
		p.tokens[in.To]--
	}
	for k := range out {
		if m := &out[k]; m.Type == Token {
			p.tokens[m.To]++
			if !nodes[m.To].View().Asked {
				return incr.ErrBroken
			}
		}
	}
	if p.tokens[id] > 0 && !v.Asked {
		return incr.ErrBroken
	}
	return nil
}
