package mizunoneilsenrao

import (
	"math"
	"slices"

	"github.com/ocbench/ocbench/algo/quorum"
	"github.com/ocbench/ocbench/proto"
)

// Agreement is a quorum agreement (Q, Q⁻¹): node i's request set R_i is a
// member of Q and its acquired set A_i a member of Q⁻¹, each holding i,
// and every R_i meets every A_j.
type Agreement interface {
	// Name is the algorithm's flag value on this agreement.
	Name() string
	// Sets returns R_i and A_i of an n-node system, in increasing order.
	Sets(i proto.NodeID, n int) (request, acquired []proto.NodeID)
	// Cost is the message cost per critical section stated for this
	// agreement (the survey's Table 1 and §4), or the nearest stated one,
	// labelled as such.
	Cost(n int) proto.Cost
}

// Rows is the grid agreement: the nodes fill the grid of algo/quorum's
// Grid (r rows of c columns, row by row); R_i is i's row and A_i its
// column, so R_i ∩ A_j is the one node at i's row and j's column.
type Rows struct{}

// Name implements Agreement.
func (Rows) Name() string { return "mizuno-neilsen-rao" }

// Cost implements Agreement. The survey states an upper bound of
// 2√2·√N − 2 for a "modified grid-set protocol" (§4 only; Table 1 gives
// the binary tree and the projective planes), which it does not describe;
// for the plain grid of rows and columns it states nothing. The figure
// given is §4's formula applied to the plain grid, so Derived.
func (Rows) Cost(n int) proto.Cost {
	c := 2*math.Sqrt2*math.Sqrt(float64(n)) - 2
	return proto.Cost{Low: 0, High: c, Text: "≤ 2√2·√N − 2", Source: "survey §4's bound for a modified grid-set protocol, applied to the plain grid", Kind: proto.Derived}
}

// Sets implements Agreement.
func (Rows) Sets(i proto.NodeID, n int) (request, acquired []proto.NodeID) {
	rows, cols := quorum.Grid{}.Shape(n)
	row, col := int(i)/cols, int(i)%cols
	for c := range cols {
		request = append(request, proto.NodeID(row*cols+c))
	}
	for r := range rows {
		acquired = append(acquired, proto.NodeID(r*cols+col))
	}
	return request, acquired
}

// BinaryTree is the binary-tree agreement: R_i is i's tree quorum of
// algo/quorum's Tree (the path from the root, node 0, through i down to a
// leaf, in the heap-ordered binary tree), and A_i = {0, i}. Every R_j
// holds the root, so it meets every A_i.
type BinaryTree struct{}

// Name implements Agreement.
func (BinaryTree) Name() string { return "mizuno-neilsen-rao-tree" }

// Cost implements Agreement: the survey's "avg log N" (Table 1), an order
// of growth.
func (BinaryTree) Cost(int) proto.Cost {
	return proto.Cost{Text: "avg log N", Source: "survey T1, the binary tree protocol", Kind: proto.Order}
}

// Sets implements Agreement.
func (BinaryTree) Sets(i proto.NodeID, n int) (request, acquired []proto.NodeID) {
	request = quorum.Tree{}.Quorum(i, n)
	if i == 0 {
		return request, []proto.NodeID{0}
	}
	return request, []proto.NodeID{0, i}
}

// Plane is the agreement on finite projective planes, the survey's "finite
// proj. planes" (Table 1): Q = Q⁻¹ = Maekawa's √N quorums, the lines of
// algo/quorum's Plane (the construction Maekawa's algorithm uses), and
// R_i = A_i = node i's line. Any two lines meet, so every R_i meets every
// A_j. When n = q² + q + 1 (q prime: 7, 13, 31, 57, 133, …) a line has
// q + 1 ≈ √n nodes; for any other n, algo/quorum folds the plane of the
// next such size onto the n nodes (the project's construction, not a
// plane), and a set can hold more than √n nodes.
type Plane struct{}

// Name implements Agreement.
func (Plane) Name() string { return "mizuno-neilsen-rao-plane" }

// Sets implements Agreement.
func (Plane) Sets(i proto.NodeID, n int) (request, acquired []proto.NodeID) {
	line := quorum.Plane{}.Quorum(i, n)
	return line, slices.Clone(line)
}

// Cost implements Agreement: the survey's upper bound "approximately
// 3·SQRT(N)" on finite projective planes (Table 1, §4): up to 0 … 3√N,
// 0 at the idle token. At a folded n it is the same formula, which the
// measurement can exceed (the sets are larger than √n).
func (Plane) Cost(n int) proto.Cost {
	return proto.Cost{Low: 0, High: 3 * math.Sqrt(float64(n)), Text: "≈ 3√N (projective planes)", Source: "survey T1, §4", Kind: proto.Range}
}
