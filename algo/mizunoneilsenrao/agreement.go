package mizunoneilsenrao

import (
	"github.com/ocbench/ocbench/algo/quorum"
	"github.com/ocbench/ocbench/proto"
)

// Agreement is a quorum agreement (Q, Q⁻¹): node i's request set R_i is a
// member of Q and its acquired set A_i a member of Q⁻¹, each holding i,
// and every R_i meets every A_j.
type Agreement interface {
	// Sets returns R_i and A_i of an n-node system, in increasing order.
	Sets(i proto.NodeID, n int) (request, acquired []proto.NodeID)
}

// Rows is the grid agreement: the nodes fill the grid of algo/quorum's
// Grid (r rows of c columns, row by row); R_i is i's row and A_i its
// column, so R_i ∩ A_j is the one node at i's row and j's column.
type Rows struct{}

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

// Sets implements Agreement.
func (BinaryTree) Sets(i proto.NodeID, n int) (request, acquired []proto.NodeID) {
	request = quorum.Tree{}.Quorum(i, n)
	if i == 0 {
		return request, []proto.NodeID{0}
	}
	return request, []proto.NodeID{0, i}
}
