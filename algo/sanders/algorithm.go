package sanders

import (
	"github.com/ocbench/ocbench/algo/internal/arbiter"
	"github.com/ocbench/ocbench/proto"
)

// Algorithm is Sanders' generalized algorithm on an information structure.
type Algorithm struct{ Structure Structure }

// Quorums is Sanders' algorithm on Maekawa's grid structure: --algo
// sanders.
var Quorums = Algorithm{Structure: Grid{}}

// Broadcasts is Sanders' algorithm on Ricart and Agrawala's structure:
// --algo sanders-broadcast.
var Broadcasts = Algorithm{Structure: Broadcast{}}

// Name implements proto.Algorithm.
func (a Algorithm) Name() string { return a.Structure.Name() }

// NewNodes implements proto.Algorithm; the nodes are allocated together.
func (a Algorithm) NewNodes(size int) []proto.Node {
	nodes := make([]Node, size)
	out := make([]proto.Node, size)
	for i := range nodes {
		id := proto.NodeID(i)
		inform, request := a.Structure.Sets(id, size)
		nodes[i].Init(id, size, inform, request, a.Structure, true)
		out[i] = &nodes[i]
	}
	return out
}

// MemoryPerNode implements proto.MemoryEstimator: I_i and R_i (4 bytes a
// member) and a byte of state per member of R_i, and about 200 bytes.
func (a Algorithm) MemoryPerNode(n int) int64 {
	// The sets' sizes, averaged over up to 16 nodes spread over the ids
	// (a structure's sets need not be alike: a k-coterie's groups differ).
	var sum, k int64
	for i := 0; i < n; i += max(1, n/16) {
		inform, request := a.Structure.Sets(proto.NodeID(i), n)
		sum += int64(4*len(inform) + 5*len(request))
		k++
	}
	return sum/k + 200
}

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.PermissionBased }

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// ForgetMessage implements proto.MessageForgetter (arbiter.ForgetMessage).
func (Algorithm) ForgetMessage(m *proto.Message) { arbiter.ForgetMessage(m) }

// Events implements proto.Algorithm: none.
func (Algorithm) Events() []string { return nil }

// QuorumSize implements proto.QuorumAlgorithm: the largest request set.
func (a Algorithm) QuorumSize(n int) int {
	most := 0
	for i := range n {
		_, r := a.Structure.Sets(proto.NodeID(i), n)
		most = max(most, len(r))
	}
	return most
}

// StatedCost implements proto.CostAlgorithm: |I_i − {i}| + 2|R_i − {i}|
// (survey, Table 2), a request without contention, for node 0's sets
// (every node's are the same size in both structures).
func (a Algorithm) StatedCost(n int) proto.Cost {
	inform, request := a.Structure.Sets(0, n)
	c := float64(len(inform) - 1 + 2*(len(request)-1))
	return proto.Cost{Low: c, High: c, Text: "|I−{i}| + 2|R−{i}|", Source: "survey T2", Kind: proto.Exact}
}

// Invariants implements proto.Algorithm: without crashes, Arbiters after
// every step, and proto.NoDeadlock and Queued when no message is in
// flight. No invariant with crashes (no failure protocol).
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	return []proto.Invariant{
		{Name: "arbiters", When: proto.EveryStep, Check: Arbiters},
		proto.NoDeadlock,
		{Name: "queued", When: proto.Quiet, Check: Queued},
	}
}

// Arbiters checks that a node in the critical section holds the
// permission of every member of its request set, and that every member of
// its informing set has CSSTAT busy for its current request. O(Σ|R_i|)
// over the nodes in the critical section.
func Arbiters(s proto.System) error { return arbiter.Arbiters(s) }

// Queued checks, when no message is in flight, that every request an
// arbiter queues is its requester's current one, and that CSSTAT is busy
// wherever a request is queued. O(queued requests).
func Queued(s proto.System) error { return arbiter.Queued(s) }

// AnySize implements proto.AnySizeAlgorithm: it needs no hypercube.
func (Algorithm) AnySize() bool { return true }
