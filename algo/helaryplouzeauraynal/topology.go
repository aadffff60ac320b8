package helaryplouzeauraynal

import (
	"math/bits"

	"github.com/ocbench/ocbench/proto"
)

// Topology is the network the nodes communicate on: a node knows its
// neighbours' names, nothing else.
type Topology interface {
	// Name is the algorithm's flag value on this topology.
	Name() string
	// Neighbors returns node i's neighbours in an n-node network, in
	// increasing order; the network is connected and undirected.
	Neighbors(i proto.NodeID, n int) []proto.NodeID
	// Cost is the survey's message cost per critical section on this
	// topology (Table 1).
	Cost(n int) proto.Cost
}

// Complete is the complete network: every node is every other's
// neighbour.
type Complete struct{}

// Name implements Topology.
func (Complete) Name() string { return "helary-plouzeau-raynal" }

// Neighbors implements Topology: every other node.
func (Complete) Neighbors(i proto.NodeID, n int) []proto.NodeID {
	out := make([]proto.NodeID, 0, n-1)
	for j := range proto.NodeID(n) {
		if j != i {
			out = append(out, j)
		}
	}
	return out
}

// Cost implements Topology: N (survey, Table 1, "complete topology").
func (Complete) Cost(n int) proto.Cost {
	return proto.Cost{Low: float64(n), High: float64(n), Text: "N (complete)", Source: "survey T1", Kind: proto.Exact}
}

// Line is the line 0 – 1 – … – n−1.
type Line struct{}

// Name implements Topology.
func (Line) Name() string { return "helary-plouzeau-raynal-line" }

// Neighbors implements Topology: i−1 and i+1 where they exist.
func (Line) Neighbors(i proto.NodeID, n int) []proto.NodeID {
	var out []proto.NodeID
	if i > 0 {
		out = append(out, i-1)
	}
	if int(i) < n-1 {
		out = append(out, i+1)
	}
	return out
}

// Cost implements Topology: N to 2(N−1) (survey, Table 1, "linear
// topology").
func (Line) Cost(n int) proto.Cost {
	return proto.Cost{Low: float64(n), High: float64(2 * (n - 1)), Text: "N … 2(N−1) (line)", Source: "survey T1", Kind: proto.Range}
}

// Ring is the ring 0 – 1 – … – n−1 – 0.
type Ring struct{}

// Name implements Topology.
func (Ring) Name() string { return "helary-plouzeau-raynal-ring" }

// Neighbors implements Topology: i−1 and i+1 mod n (one neighbour when
// n = 2).
func (Ring) Neighbors(i proto.NodeID, n int) []proto.NodeID {
	if n <= 2 {
		return Line{}.Neighbors(i, n)
	}
	a, b := (i+proto.NodeID(n)-1)%proto.NodeID(n), (i+1)%proto.NodeID(n)
	if a > b {
		a, b = b, a
	}
	return []proto.NodeID{a, b}
}

// Cost implements Topology: N to 2N (survey, Table 1, "ring topology").
func (Ring) Cost(n int) proto.Cost {
	return proto.Cost{Low: float64(n), High: float64(2 * n), Text: "N … 2N (ring)", Source: "survey T1", Kind: proto.Range}
}

// Tree is the balanced binary tree in heap order: node i's father is
// (i−1)/2 and its sons 2i+1 and 2i+2 where they exist (algo/quorum's Tree
// and mizuno-neilsen-rao-tree use the same tree). The survey's "tree
// topology" (Table 1) names no tree; this is the most balanced one with
// two sons a node, whose diameter D grows as 2·log2 N.
type Tree struct{}

// Name implements Topology.
func (Tree) Name() string { return "helary-plouzeau-raynal-tree" }

// Neighbors implements Topology: the father (i−1)/2 if i > 0, and the
// sons 2i+1, 2i+2 below n.
func (Tree) Neighbors(i proto.NodeID, n int) []proto.NodeID {
	var out []proto.NodeID
	if i > 0 {
		out = append(out, (i-1)/2)
	}
	for _, c := range []int{2*int(i) + 1, 2*int(i) + 2} {
		if c < n {
			out = append(out, proto.NodeID(c))
		}
	}
	return out
}

// Diameter returns the diameter of the n-node tree: the depth of its
// deepest node (node n−1, at depth h = ⌊log2 n⌋) plus the depth of the
// deepest node on the other side of the root, h when the last level
// reaches into the root's right subtree and h − 1 otherwise.
func (Tree) Diameter(n int) int {
	if n <= 1 {
		return 0
	}
	h := bits.Len(uint(n)) - 1
	if h == 0 {
		return 0
	}
	first := 1<<h - 1 // the first node at depth h
	if n-1 >= first+1<<(h-1) {
		return 2 * h
	}
	return 2*h - 1
}

// Cost implements Topology: N to N − 1 + D (survey, Table 1, "tree
// topology"): a request reaches every node over the N − 1 links, and the
// token comes back over at most D of them.
func (t Tree) Cost(n int) proto.Cost {
	return proto.Cost{Low: float64(n), High: float64(n - 1 + t.Diameter(n)), Text: "N … N−1+D (binary tree)", Source: "survey T1", Kind: proto.Range}
}
