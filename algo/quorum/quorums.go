package quorum

import (
	"math/bits"
	"slices"

	"github.com/ocbench/ocbench/proto"
)

// Quorums is a quorum construction: it gives every node of an n-node system
// the set of nodes (its quorum) whose permission it must collect. Any two
// quorums of one system intersect.
type Quorums interface {
	// Name is the algorithm's flag value.
	Name() string
	// Quorum returns node i's quorum in a system of n nodes, in increasing
	// order of id; i itself is a member.
	Quorum(i proto.NodeID, n int) []proto.NodeID
	// Size is the size of the largest quorum of an n-node system.
	Size(n int) int
}

// Grid is Maekawa's algorithm on grid quorums (--algo maekawa-grid, a
// variant: Maekawa's own quorums are Plane's): the nodes fill a grid of r
// rows and c = n/r columns row by row (node i at row i/c, column i%c), and
// node i's quorum is its row and its column, r + c − 1 nodes. r is the
// largest divisor of n not above √n: for n = m² it is a square m×m grid
// (K = 2√n − 1); for the powers of two that are not squares, n = 2·m²
// (2, 8, 32, 128, …), it is m rows of 2m columns (K = 3m − 1). Row a and
// column b meet at node (a, b), so any two quorums intersect.
type Grid struct{}

// Name implements Quorums.
func (Grid) Name() string { return "maekawa-grid" }

// Shape returns the grid's rows and columns for n nodes: for n = 2^k,
// 2^⌊k/2⌋ rows; otherwise the largest divisor of n not above √n.
func (Grid) Shape(n int) (rows, cols int) {
	if n > 0 && n&(n-1) == 0 {
		rows = 1 << ((bits.Len(uint(n)) - 1) / 2)
		return rows, n / rows
	}
	rows = 1
	for r := 1; r*r <= n; r++ {
		if n%r == 0 {
			rows = r
		}
	}
	return rows, n / rows
}

// Quorum implements Quorums: row ∪ column.
func (g Grid) Quorum(i proto.NodeID, n int) []proto.NodeID {
	rows, cols := g.Shape(n)
	row, col := int(i)/cols, int(i)%cols
	q := make([]proto.NodeID, 0, rows+cols-1)
	for c := range cols {
		q = append(q, proto.NodeID(row*cols+c))
	}
	for r := range rows {
		if r != row {
			q = append(q, proto.NodeID(r*cols+col))
		}
	}
	slices.Sort(q)
	return q
}

// Size implements Quorums: every quorum has rows + cols − 1 nodes.
func (g Grid) Size(n int) int {
	rows, cols := g.Shape(n)
	return rows + cols - 1
}

// Tree is Agrawal and El Abbadi's algorithm on tree quorums, failure-free:
// the nodes form a complete binary tree in heap order (the root is node 0,
// the sons of node j are 2j+1 and 2j+2 when below n), and a quorum is a
// path from the root to a leaf. Node i's quorum is the path through i: from
// the root down to i, then on down to a leaf, taking at the d-th step below
// i the son 2j+1+b, where b is bit d of i (the other son if that one does
// not exist), so that the nodes of one level spread their paths over the
// leaves below them. Every path holds the root, so any two quorums
// intersect. For n = 2^h the nodes 0..n−2 form a perfect tree of h levels
// and node n−1 hangs, alone on level h, below node 2^(h−1)−1: the paths
// through it have h+1 nodes, the others h, and Size is h+1 = log2 n + 1.
type Tree struct{}

// Name implements Quorums.
func (Tree) Name() string { return "agrawal-el-abbadi" }

// Quorum implements Quorums: the root-to-leaf path through i.
func (Tree) Quorum(i proto.NodeID, n int) []proto.NodeID {
	var q []proto.NodeID
	for j := int(i); ; j = (j - 1) / 2 {
		q = append(q, proto.NodeID(j))
		if j == 0 {
			break
		}
	}
	slices.Reverse(q)
	for d, j := 0, int(i); ; d++ {
		left := 2*j + 1
		if left >= n {
			break
		}
		next := left + (int(i)>>d)&1
		if next >= n {
			next = left
		}
		q = append(q, proto.NodeID(next))
		j = next
	}
	slices.Sort(q) // a path in heap order is already sorted; kept for clarity
	return q
}

// Size implements Quorums: the number of levels, ⌊log2 n⌋ + 1.
func (Tree) Size(n int) int { return bits.Len(uint(n)) }
