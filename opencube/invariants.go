package opencube

import (
	"fmt"

	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/internal/incr"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
)

// Family implements proto.Algorithm: the open-cube is token-based.
func (Algorithm) Family() proto.Family { return proto.TokenBased }

// Invariants implements proto.Algorithm (docs/failures.md, "What is
// checked"). Without crashes: the a_tree relation is a rooted tree after
// every step, and the father relation an open-cube whenever the system is
// quiet. With crashes, neither holds while nodes search: at most one live
// node that neither asks nor searches is a root, after every step. At the
// end of a run (after the repair pass, with crashes) the live nodes form an
// open-cube.
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	atEnd := proto.Invariant{Name: "open-cube at end", When: proto.AtEnd, Check: Shape}
	if crashes {
		return []proto.Invariant{{Name: "idle roots", When: proto.EveryStep, Check: IdleRoots,
			Incremental: incr.AtMost(IdleRoots, 1, idleRoot, nil)}, atEnd}
	}
	return []proto.Invariant{scheme.ATreeInvariant, scheme.PropertiesInvariant, {Name: "open-cube", When: proto.Quiet, Check: Shape,
		Incremental: func() proto.Incremental { return &shape{} }}, atEnd}
}

// Shape checks, when no node is asking or searching, that the father
// relation is an open-cube: one root of power pmax = log2 N, and every node
// of power p has exactly one son of each power 0..p−1, where the power of a
// non-root node is dist(i, father_i) − 1 (Proposition 2.1). While some
// nodes are down (crashed for good) it checks what the live nodes can still
// be: one root, fathers that are up, and no node with two sons of the same
// power or a son of a power not below its own; the sons that the down nodes
// would be are missing. While a node asks or searches it says nothing.
func Shape(s proto.System) error { return new(shape).Full(s) }

// shape checks Shape with buffers kept from one check to the next
// (proto.Incremental of a Quiet invariant: Full only).
type shape struct {
	views []view
	sons  []uint64
}

// Full implements proto.Incremental: Shape.
func (c *shape) Full(s proto.System) error {
	nodes := s.Nodes()
	pmax, _ := hypercube.Log2(len(nodes))
	if cap(c.views) < len(nodes) {
		c.views, c.sons = make([]view, len(nodes)), make([]uint64, len(nodes))
	}
	views, sons := c.views[:len(nodes)], c.sons[:len(nodes)]
	clear(sons)
	partial := false
	for i, nd := range nodes {
		views[i] = viewOf(nd)
		if !views[i].Up {
			partial = true
			continue
		}
		if views[i].Asked || views[i].Searching {
			return nil
		}
	}
	power := func(i int) int { return hypercube.PowerWith(i, int(views[i].Father), pmax) }
	roots := 0
	for i, v := range views {
		if !v.Up {
			continue
		}
		if v.Father == proto.Nil {
			roots++
			continue
		}
		f, p := int(v.Father), power(i)
		if !views[f].Up {
			return fmt.Errorf("open-cube: node %d has father %d, which is down", i, f)
		}
		if p >= power(f) {
			return fmt.Errorf("open-cube: node %d of power %d has father %d of power %d", i, p, f, power(f))
		}
		if sons[f]&(1<<p) != 0 {
			return fmt.Errorf("open-cube: node %d has two sons of power %d", f, p)
		}
		sons[f] |= 1 << p
	}
	if roots != 1 {
		return fmt.Errorf("open-cube: %d roots", roots)
	}
	if partial {
		return nil
	}
	for i := range views {
		if want := uint64(1)<<power(i) - 1; sons[i] != want {
			return fmt.Errorf("open-cube: node %d of power %d has sons of powers %b, want one of each power below %d", i, power(i), sons[i], power(i))
		}
	}
	return nil
}

// Step implements proto.Incremental: a Quiet invariant's checker is only
// asked for Full.
func (c *shape) Step(proto.System, proto.NodeID, *proto.Message, []proto.Message) error {
	return proto.ErrFull
}

// IdleRoots checks, in a run with crashes, a relation that holds while
// nodes search and after crashes bent the tree: at most one live node that
// neither asks nor searches is a root (father nil). The a_tree relation and
// the open-cube shape do not hold then: a crashed node's sons keep it as
// their father until they next ask, and searches leave the fathers of idle
// nodes bent, even in cycles, until requests repair them (anomalies,
// chases).
func IdleRoots(s proto.System) error {
	first := proto.Nil
	for i := range s.Nodes() {
		if !idleRoot(s, proto.NodeID(i)) {
			continue
		}
		if first != proto.Nil {
			return fmt.Errorf("crash relations: two idle roots, nodes %d and %d", first, i)
		}
		first = proto.NodeID(i)
	}
	return nil
}

// idleRoot reports whether node i is live, neither asks nor searches, and
// is a root (IdleRoots).
func idleRoot(s proto.System, i proto.NodeID) bool {
	nd := s.Nodes()[i]
	if n, ok := nd.(*Node); ok {
		// viewOf's fields, read without building the views: the
		// explorer checks this at every state it reaches.
		return n.Up() && !n.core.Asked && !n.searching && n.core.Father == proto.Nil
	}
	v := viewOf(nd)
	return v.Up && !v.Asked && !v.Searching && v.Father == proto.Nil
}

// view is what the open-cube's checks read of a node: its view and its
// token-tree state.
type view struct {
	proto.View
	scheme.TreeView
}

func viewOf(nd proto.Node) view {
	t, _ := scheme.TreeOf(nd)
	return view{nd.View(), t}
}
