package helaryplouzeauraynal

import "github.com/ocbench/ocbench/proto"

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
