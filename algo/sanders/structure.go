package sanders

import (
	"slices"

	"github.com/ocbench/ocbench/algo/quorum"
	"github.com/ocbench/ocbench/proto"
)

// Structure is an information structure: for every node i of an n-node
// system its informing set I_i and request set R_i, with i ∈ I_i ⊆ R_i,
// such that for every two nodes i and j either I_i ∩ I_j ≠ ∅, or j ∈ R_i
// and i ∈ R_j (Sanders' conditions, as the survey gives them; i ∈ I_i is
// ocbench's, see the package doc). Node k's status set S_k is the set of
// the nodes j with k ∈ I_j.
type Structure interface {
	// Name is the algorithm's flag value.
	Name() string
	// Sets returns I_i and R_i, each in increasing order of id.
	Sets(i proto.NodeID, n int) (inform, request []proto.NodeID)
	// Informs reports whether k ∈ I_j: whether j is in k's status set.
	Informs(j, k proto.NodeID, n int) bool
}

// Grid is Maekawa's structure on grid quorums (algo/quorum's Grid): I_i =
// R_i = node i's row and column, so any two informing sets intersect.
type Grid struct{}

// Name implements Structure.
func (Grid) Name() string { return "sanders" }

// Sets implements Structure: I_i = R_i = the grid quorum of i.
func (Grid) Sets(i proto.NodeID, n int) (inform, request []proto.NodeID) {
	q := quorum.Grid{}.Quorum(i, n)
	return q, q
}

// Informs implements Structure: j and k share a row or a column.
func (Grid) Informs(j, k proto.NodeID, n int) bool {
	_, cols := quorum.Grid{}.Shape(n)
	return int(j)/cols == int(k)/cols || int(j)%cols == int(k)%cols
}

// Broadcast is Ricart and Agrawala's structure: I_i = {i}, R_i = every
// node. The informing sets are disjoint; every two nodes are in each
// other's request set.
type Broadcast struct{}

// Name implements Structure.
func (Broadcast) Name() string { return "sanders-broadcast" }

// Sets implements Structure.
func (Broadcast) Sets(i proto.NodeID, n int) (inform, request []proto.NodeID) {
	all := make([]proto.NodeID, n)
	for j := range all {
		all[j] = proto.NodeID(j)
	}
	return []proto.NodeID{i}, all
}

// Informs implements Structure: j = k.
func (Broadcast) Informs(j, k proto.NodeID, _ int) bool { return j == k }

// Check returns the first pair of nodes of an n-node system that breaks
// the structure's conditions, or ok.
func Check(s Structure, n int) (i, j proto.NodeID, ok bool) {
	inform := make([][]proto.NodeID, n)
	request := make([][]proto.NodeID, n)
	for i := range n {
		inform[i], request[i] = s.Sets(proto.NodeID(i), n)
	}
	for i := range n {
		id := proto.NodeID(i)
		if !slices.Contains(inform[i], id) {
			return id, id, false
		}
		for _, k := range inform[i] {
			if !slices.Contains(request[i], k) || !s.Informs(id, k, n) {
				return id, k, false
			}
		}
		for j := range n {
			jd := proto.NodeID(j)
			if s.Informs(jd, id, n) != slices.Contains(inform[j], id) {
				return jd, id, false
			}
			meet := slices.ContainsFunc(inform[i], func(k proto.NodeID) bool { return slices.Contains(inform[j], k) })
			if !meet && !(slices.Contains(request[i], jd) && slices.Contains(request[j], id)) {
				return id, jd, false
			}
		}
	}
	return 0, 0, true
}
