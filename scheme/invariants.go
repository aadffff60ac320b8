package scheme

import (
	"fmt"

	"github.com/ocbench/ocbench/proto"
)

// Family implements proto.Algorithm: the general scheme is token-based.
func (Algorithm) Family() proto.Family { return proto.TokenBased }

// Invariants implements proto.Algorithm: without crashes the a_tree relation
// is a rooted tree after every step (ATree). The scheme's instances have no
// failure protocol, hence no invariant with crashes.
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	return []proto.Invariant{ATreeInvariant}
}

// ATreeInvariant is ATree, checked after every step.
var ATreeInvariant = proto.Invariant{Name: "a_tree", When: proto.EveryStep, Check: ATree}

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
