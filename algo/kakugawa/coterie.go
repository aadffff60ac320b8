package kakugawa

import (
	"github.com/ocbench/ocbench/algo/quorum"
	"github.com/ocbench/ocbench/proto"
)

// Coterie is the k-coterie of g groups: node i is in group i mod g, and
// its quorum is its row and column in the grid (algo/quorum's Grid) of its
// group's members, numbered i/g within the group. Two quorums of one
// group meet; two of different groups are disjoint. So any g+1 quorums
// hold a meeting pair (two are in one group), any h < g pairwise disjoint
// quorums (one per group at most) leave a quorum of another group
// disjoint from them all, and no quorum holds another: the three
// conditions of a k-coterie with k = g (survey, §6).
type Coterie struct{ Groups int }

// Name implements sanders.Structure (the quorum is both the informing
// and the request set).
func (Coterie) Name() string { return "kakugawa" }

// size returns the number of members of group r in an n-node system.
func (c Coterie) size(r, n int) int { return (n - r + c.Groups - 1) / c.Groups }

// Sets implements sanders.Structure: I_i = R_i = i's quorum.
func (c Coterie) Sets(i proto.NodeID, n int) (inform, request []proto.NodeID) {
	g := c.Groups
	r := int(i) % g
	q := quorum.Grid{}.Quorum(i/proto.NodeID(g), c.size(r, n))
	out := make([]proto.NodeID, len(q))
	for k, x := range q {
		out[k] = x*proto.NodeID(g) + proto.NodeID(r)
	}
	return out, out
}

// Informs implements sanders.Structure: k is in j's quorum.
func (c Coterie) Informs(j, k proto.NodeID, n int) bool {
	g := proto.NodeID(c.Groups)
	if j%g != k%g {
		return false
	}
	_, cols := quorum.Grid{}.Shape(c.size(int(j%g), n))
	a, b := int(j/g), int(k/g)
	return a/cols == b/cols || a%cols == b%cols
}

// Largest returns s, the size of the largest quorum.
func (c Coterie) Largest(n int) int {
	most := 0
	for r := range min(c.Groups, n) {
		most = max(most, quorum.Grid{}.Size(c.size(r, n)))
	}
	return most
}
