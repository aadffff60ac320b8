package quorum

import (
	"fmt"
	"math"

	"github.com/ocbench/ocbench/algo/internal/arbiter"
	"github.com/ocbench/ocbench/proto"
)

// Algorithm is Maekawa's permission protocol on a quorum construction:
// Algorithm{Quorums: Plane{}} is Maekawa's algorithm, Algorithm{Quorums:
// Grid{}} its variant on grids, Algorithm{Quorums: Tree{}} Agrawal and El
// Abbadi's.
type Algorithm struct{ Quorums Quorums }

// Maekawa is Maekawa's algorithm on his √N quorums (projective planes).
var Maekawa = Algorithm{Quorums: Plane{}}

// MaekawaGrid is Maekawa's algorithm on grid quorums (K ≈ 2√N − 1).
var MaekawaGrid = Algorithm{Quorums: Grid{}}

// AgrawalElAbbadi is Agrawal and El Abbadi's algorithm on tree quorums.
var AgrawalElAbbadi = Algorithm{Quorums: Tree{}}

// Name implements proto.Algorithm.
func (a Algorithm) Name() string { return a.Quorums.Name() }

// MemoryPerNode implements proto.MemoryEstimator: with Maekawa's grid, a
// bit per node of the system at each node and a few hundred bytes; with
// the tree quorums, a few hundred bytes (measured at N = 256..4096).
func (a Algorithm) MemoryPerNode(n int) int64 {
	switch a.Quorums.(type) {
	case Grid:
		return int64(n)/8 + 320
	case Plane:
		return 12*int64(a.QuorumSize(n)) + 288 // measured: about 12 bytes per quorum member (TestMemoryEstimates)
	}
	return 288
}

// NewNodes implements proto.Algorithm; the nodes are allocated together.
func (a Algorithm) NewNodes(n int) []proto.Node {
	nodes := make([]Node, n)
	out := make([]proto.Node, n)
	for i := range nodes {
		id := proto.NodeID(i)
		q := a.Quorums.Quorum(id, n)
		nodes[i].Init(id, n, q, q, arbiter.All{}, false)
		out[i] = &nodes[i]
	}
	return out
}

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.PermissionBased }

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// ForgetMessage implements proto.MessageForgetter (arbiter.ForgetMessage).
func (Algorithm) ForgetMessage(m *proto.Message) { arbiter.ForgetMessage(m) }

// Events implements proto.Algorithm: none.
func (Algorithm) Events() []string { return nil }

// QuorumSize implements proto.QuorumAlgorithm.
func (a Algorithm) QuorumSize(n int) int { return a.Quorums.Size(n) }

// StatedCost implements proto.CostAlgorithm. Maekawa's: the survey's 3√N …
// 5√N (Table 2; §5: "C·SQRT(N), where C is a constant between 3 and 5"),
// at this N. Agrawal–El Abbadi's: the survey's O(log N) (Table 2), an
// order of growth. The grid variant's: 3(K−1) … 5(K−1) for its K =
// QuorumSize(n) (a request alone: request, locked and release to each
// other member; under contention inquire and relinquish, or failed, add
// up to 2(K−1)): the survey's per-member count applied to a quorum size no
// paper gives, so Derived.
func (a Algorithm) StatedCost(n int) proto.Cost {
	switch a.Quorums.(type) {
	case Tree:
		return proto.Cost{Text: "O(log N)", Source: "survey T2", Kind: proto.Order}
	case Grid:
		k := float64(a.QuorumSize(n) - 1)
		return proto.Cost{Low: 3 * k, High: 5 * k, Text: fmt.Sprintf("3(K−1)…5(K−1), K=%d", a.QuorumSize(n)), Source: "survey T2 with √N → K−1", Kind: proto.Derived}
	}
	r := math.Sqrt(float64(n))
	return proto.Cost{Low: 3 * r, High: 5 * r, Text: "3√N … 5√N", Source: "survey T2", Kind: proto.Range}
}

// Invariants implements proto.Algorithm: after every step, a node in the
// critical section holds the permission of its whole quorum, and every
// arbiter's queue keeps Maekawa's discipline (only its first request may be
// without a Failed, and then it comes before the lock, whose holder was
// inquired); when no message is in flight, every arbiter's permission is
// held by the one request it is locked for, and some node is in the
// critical section if any waits (no deadlock). None with crashes: the
// algorithm is failure-free.
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	return []proto.Invariant{
		{Name: "in cs with the whole quorum", When: proto.EveryStep, Check: InCSHoldsQuorum},
		{Name: "arbiter queue", When: proto.EveryStep, Check: QueueHeads},
		{Name: "one permission per arbiter", When: proto.Quiet, Check: OnePermission},
		proto.NoDeadlock,
	}
}

// InCSHoldsQuorum checks that a node in the critical section asked for it
// and holds the permission of every member of its quorum. O(n).
func InCSHoldsQuorum(s proto.System) error { return arbiter.InCSHoldsQuorum(s) }

// QueueHeads checks the first two requests of every arbiter's queue: the
// arbiter is locked if a request waits, the second request has been told it
// failed, and the first, if not, comes before the lock and the lock's
// holder was inquired. O(n).
func QueueHeads(s proto.System) error { return arbiter.QueueHeads(s) }

// OnePermission checks, when no message is in flight, that a locked
// arbiter's permission is held by exactly the request it is locked for and a
// free arbiter's by none, that a requester's counts of permissions held and
// failed agree with its quorum's states (never both for one member), and
// that every queue is in priority order and holds only waiting requests.
// O(n·K).
func OnePermission(s proto.System) error { return arbiter.OnePermission(s) }
