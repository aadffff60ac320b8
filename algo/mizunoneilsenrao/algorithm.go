package mizunoneilsenrao

import (
	"fmt"

	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Algorithm is the Mizuno–Neilsen–Rao algorithm on a quorum agreement.
type Algorithm struct{ Agreement Agreement }

// Tree is the algorithm on the binary-tree agreement (BinaryTree): --algo
// mizuno-neilsen-rao-tree.
var Tree = Algorithm{Agreement: BinaryTree{}}

// Grid is the algorithm on the grid agreement (Rows): --algo
// mizuno-neilsen-rao.
var Grid = Algorithm{Agreement: Rows{}}

// OnPlane is the algorithm on finite projective planes (Plane): --algo
// mizuno-neilsen-rao-plane.
var OnPlane = Algorithm{Agreement: Plane{}}

// Name implements proto.Algorithm.
func (a Algorithm) Name() string { return a.Agreement.Name() }

// NewNodes implements proto.Algorithm; the nodes and their arrays are
// allocated together.
func (a Algorithm) NewNodes(size int) []proto.Node {
	nodes := make([]Node, size)
	words := make([]int64, 2*size*size)
	tags := make([]uint32, size*size)
	flags := make([]bool, size*size)
	out := make([]proto.Node, size)
	_, a0 := a.Agreement.Sets(0, size)
	for i := range nodes {
		nd := &nodes[i]
		nd.id, nd.n = proto.NodeID(i), size
		nd.rn = words[2*i*size : (2*i+1)*size : (2*i+1)*size]
		nd.ln = words[(2*i+1)*size : (2*i+2)*size : (2*i+2)*size]
		nd.rnTag = tags[i*size : (i+1)*size : (i+1)*size]
		nd.inQ = flags[i*size : (i+1)*size : (i+1)*size]
		nd.init(a.Agreement, a0)
		out[i] = nd
	}
	return out
}

// MemoryPerNode implements proto.MemoryEstimator: RN and LN (8 bytes
// each), a serial (4) and a flag (1) per node of the system, R_i and A_i,
// and about 150 bytes.
func (a Algorithm) MemoryPerNode(n int) int64 {
	r, c := a.Agreement.Sets(0, n)
	return 21*int64(n) + 4*int64(len(r)+len(c)) + 150
}

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.TokenBased }

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// Events implements proto.Algorithm: none.
func (Algorithm) Events() []string { return nil }

// QuorumSize implements proto.QuorumAlgorithm: |R_i|, the largest.
func (a Algorithm) QuorumSize(n int) int {
	most := 0
	for i := range n {
		r, _ := a.Agreement.Sets(proto.NodeID(i), n)
		most = max(most, len(r))
	}
	return most
}

// StatedCost implements proto.CostAlgorithm: the agreement's (Agreement.Cost).
func (a Algorithm) StatedCost(n int) proto.Cost { return a.Agreement.Cost(n) }

// Invariants implements proto.Algorithm: without crashes, Queue after
// every step, and proto.NoDeadlock and Knowledge when no message is in
// flight. No invariant with crashes (no failure protocol).
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	return []proto.Invariant{
		{Name: "queue", When: proto.EveryStep, Check: Queue},
		proto.NoDeadlock,
		{Name: "knowledge", When: proto.Quiet, Check: Knowledge},
	}
}

func nodes(s proto.System) []*Node { return nodecast.All[*Node](s) }

// Queue checks the token's queue, held or in flight: no node twice, not
// the holder, and every queued node asks, is not in the critical section,
// and is queued with its current serial. O(n + queue).
func Queue(s proto.System) error {
	ns := nodes(s)
	seen := make([]bool, len(ns))
	check := func(holder proto.NodeID, q []int64) error {
		clear(seen)
		for _, e := range q {
			j, tag := unpack(e)
			switch v := ns[j].View(); {
			case j == holder:
				return fmt.Errorf("queue: the token's holder %d is in its queue", j)
			case seen[j]:
				return fmt.Errorf("queue: node %d is in the token's queue twice", j)
			case !v.Asked || v.InCS || v.Tag != tag:
				return fmt.Errorf("queue: node %d is queued with serial %d, its view is %+v", j, tag, v)
			}
			seen[j] = true
		}
		return nil
	}
	for _, nd := range ns {
		if nd.TokenHere {
			if err := check(nd.id, nd.q); err != nil {
				return err
			}
		}
	}
	var err error
	s.ForEachInFlight(func(m *proto.Message) {
		if err == nil && m.Type == Token {
			err = check(m.To, m.Payload[len(ns):])
		}
	})
	return err
}

// Knowledge checks, when no message is in flight, that no node knows a
// request number of another node above that node's own. O(n²).
func Knowledge(s proto.System) error {
	ns := nodes(s)
	for _, nd := range ns {
		for j, r := range nd.rn {
			if r > ns[j].rn[j] {
				return fmt.Errorf("knowledge: node %d knows request %d of node %d, which made %d", nd.id, r, j, ns[j].rn[j])
			}
		}
	}
	return nil
}

// AnySize implements proto.AnySizeAlgorithm: it needs no hypercube.
func (Algorithm) AnySize() bool { return true }
