package scheme

import (
	"fmt"

	"github.com/ocbench/ocbench/proto"
)

// Family implements proto.Algorithm: the general scheme is token-based.
func (Algorithm) Family() proto.Family { return proto.TokenBased }

// Invariants implements proto.Algorithm: without crashes, after every step,
// the a_tree relation is a rooted tree (ATree) and Properties 1–3 of RR-1692
// hold (Properties). The scheme's instances have no failure protocol, hence
// no invariant with crashes.
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	return []proto.Invariant{ATreeInvariant, PropertiesInvariant}
}

// ATreeInvariant is ATree, checked after every step.
var ATreeInvariant = proto.Invariant{Name: "a_tree", When: proto.EveryStep, Check: ATree, Incremental: ATreeIncremental}

// PropertiesInvariant is Properties, checked after every step.
var PropertiesInvariant = proto.Invariant{Name: "properties 1-3", When: proto.EveryStep, Check: Properties, Incremental: PropertiesIncremental}

// Properties checks the three invariant properties of RR-1692 §3.2 on a
// system of nodes of the general scheme's family (TreeNode):
//
//   - Property 1: any node i receiving the token satisfies asked_i. Checked
//     as a state property: every token message in flight goes to an asking
//     node.
//   - Property 2: at most one node r has lender_r = r, and for it
//     father_r = nil and mandator_r = nil.
//   - Property 3: (i) ¬asked_i ∧ token_here_i ⇒ father_i = nil, and
//     (ii) ¬asked_i ∧ father_i = nil ⇒ token_here_i.
//
// The report proves them for failure-free runs; crashed nodes break them,
// so a runtime checks them only without crashes.
func Properties(s proto.System) error {
	nodes := s.Nodes()
	lender := proto.Nil
	for i, nd := range nodes {
		id, v := proto.NodeID(i), nd.View()
		t, ok := TreeOf(nd)
		if !ok {
			return fmt.Errorf("properties: node %d is not a node of the general scheme (%T)", i, nd)
		}
		if t.Lender == id {
			if lender != proto.Nil {
				return fmt.Errorf("property 2: nodes %d and %d are both their own lender", lender, id)
			}
			lender = id
			if t.Father != proto.Nil || t.Mandator != proto.Nil {
				return fmt.Errorf("property 2: node %d is its own lender with father %d and mandator %d (want nil, nil)", id, t.Father, t.Mandator)
			}
		}
		if !v.Asked && v.TokenHere && t.Father != proto.Nil {
			return fmt.Errorf("property 3 (i): node %d does not ask and holds the token, but its father is %d (want nil)", id, t.Father)
		}
		if !v.Asked && t.Father == proto.Nil && !v.TokenHere {
			return fmt.Errorf("property 3 (ii): node %d neither asks nor holds the token, and its father is nil", id)
		}
	}
	var err error
	s.ForEachInFlight(func(m *proto.Message) {
		if err == nil && m.Type == Token && !nodes[m.To].View().Asked {
			err = fmt.Errorf("property 1: a token is in flight from %d to %d, which is not asking", m.From, m.To)
		}
	})
	return err
}

// ATree checks Proposition 1 of RR-1692: the relation a_tree is a rooted
// tree. (i, j) ∈ a_tree iff
//
//	(a1) ¬asked_i ∧ father_i = j
//	(a2) asked_i ∧ a message request(i) is in transit towards, or waiting on, j
//	(a3) asked_i ∧ mandator_j = i ∧ i ≠ j
//	(a4) asked_i ∧ a message token(k), k ≠ nil, is in transit from j towards i
//	(a5) asked_i ∧ father_i = j ∧ token_here_i
func ATree(s proto.System) error {
	nodes := s.Nodes()
	n := len(nodes)
	views := make([]proto.View, n)
	trees := make([]TreeView, n)
	for i, nd := range nodes {
		views[i] = nd.View()
		var ok bool
		if trees[i], ok = TreeOf(nd); !ok {
			return fmt.Errorf("a_tree: node %d is not a node of the general scheme (%T)", i, nd)
		}
	}
	parent := make([]proto.NodeID, n)
	for i := range parent {
		parent[i] = proto.Nil
	}
	var err error
	set := func(i, j proto.NodeID, cond string) bool {
		if parent[i] != proto.Nil && parent[i] != j {
			err = fmt.Errorf("a_tree: node %d has two fathers, %d and %d (%s)", i, parent[i], j, cond)
			return false
		}
		parent[i] = j
		return true
	}
	for i, v := range views {
		id, t := proto.NodeID(i), trees[i]
		switch {
		case !v.Asked && t.Father != proto.Nil:
			if !set(id, t.Father, "a1") {
				return err
			}
		case v.Asked && v.TokenHere && t.Father != proto.Nil:
			if !set(id, t.Father, "a5") {
				return err
			}
		}
		if t.Mandator != proto.Nil && t.Mandator != id && views[t.Mandator].Asked {
			if !set(t.Mandator, id, "a3") {
				return err
			}
		}
		ok := true
		nodes[i].Waiting(func(j proto.NodeID) {
			if ok && j != id && views[j].Asked {
				ok = set(j, id, "a2, waiting")
			}
		})
		if !ok {
			return err
		}
	}
	ok := true
	s.ForEachInFlight(func(m *proto.Message) {
		switch {
		case !ok:
		case m.Type == Request && views[m.J.Node()].Asked:
			ok = set(m.J.Node(), m.To, "a2, in transit")
		case m.Type == Token && !m.J.IsNil() && views[m.To].Asked:
			ok = set(m.To, m.From, "a4")
		}
	})
	if !ok {
		return err
	}
	// A rooted tree: exactly one root, and every path upwards reaches it.
	roots := 0
	state := make([]uint8, n) // 0 unvisited, 1 on the current path, 2 reaches the root
	for i := range parent {
		if parent[i] == proto.Nil {
			roots++
			state[i] = 2
		}
	}
	if roots != 1 {
		return fmt.Errorf("a_tree has %d roots", roots)
	}
	for i := range parent {
		j := proto.NodeID(i)
		for state[j] == 0 {
			state[j] = 1
			j = parent[j]
		}
		if state[j] == 1 {
			return fmt.Errorf("a_tree has a cycle through node %d", j)
		}
		for j = proto.NodeID(i); state[j] == 1; j = parent[j] {
			state[j] = 2
		}
	}
	return nil
}

// Events implements proto.Algorithm: the general scheme counts no event.
func (Algorithm) Events() []string { return nil }
