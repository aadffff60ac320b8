package kakugawa

import (
	"fmt"

	"github.com/ocbench/ocbench/algo/internal/arbiter"
	"github.com/ocbench/ocbench/algo/kexcl"
	"github.com/ocbench/ocbench/algo/sanders"
	"github.com/ocbench/ocbench/proto"
)

// Config is the ℓ-exclusion of one run (kexcl.Unit): ℓ units (the k of the
// k-coterie), requests of K = 1 unit.
type Config kexcl.Unit

// Validate returns an error unless ℓ ≥ 1 and K ≤ 1.
func (c Config) Validate() error {
	return kexcl.Unit(c).Check("kakugawa", "Kakugawa et al.'s k-coterie algorithm serves requests of one unit")
}

// NeedOf returns the k of the request with serial tag (kexcl.NeedOf): 1.
func (c Config) NeedOf(tag uint32) int { return kexcl.Unit(c).NeedOf(tag) }

// Node is one node: Maekawa's protocol (algo/sanders' node, with status
// sets arbiter.All) on a quorum of the k-coterie that it chooses at each
// request (Choice), and that says it uses one unit while in the critical
// section. It is a proto.Recoverer as the inner node is.
type Node struct {
	*sanders.Node
	group, member int    // i mod g, i / g
	quorums       *table // the k-coterie's quorums, shared by the nodes
}

// table holds the quorums of the k-coterie: by group, by member.
type table struct{ q [][][]proto.NodeID }

func newTable(c Coterie, n int) *table {
	t := &table{q: make([][][]proto.NodeID, c.Groups)}
	for i := range n {
		r := i % c.Groups
		q, _ := c.Sets(proto.NodeID(i), n)
		t.q[r] = append(t.q[r], q)
	}
	return t
}

// Choice returns the group whose quorum the node asks at its next
// request: its own group's, unless its own permission is granted (its
// arbiter is busy: a quorum of its group is in use, which it knows without
// a message), then the next group's (i mod g + 1, cyclically). The node
// knows the state of no other arbiter, so the next group is chosen
// blindly. Within the chosen group it asks the quorum of the member of its
// own rank (i / g, modulo the group's size).
func (nd *Node) Choice() int {
	if nd.Node.Busy() {
		return (nd.group + 1) % len(nd.quorums.q)
	}
	return nd.group
}

// Step implements proto.Node: on a new request the node chooses its
// quorum (Choice), then runs Maekawa's protocol.
func (nd *Node) Step(in proto.Input, out *proto.Output) {
	if in.Kind == proto.EnterCS && !nd.Node.Asks() {
		g := nd.quorums.q[nd.Choice()]
		nd.Node.Choose(g[nd.member%len(g)])
	}
	nd.Node.Step(in, out)
}

// Units implements kexcl.UnitNode: one unit while in the critical
// section.
func (nd *Node) Units() int {
	if nd.Node.View().InCS {
		return 1
	}
	return 0
}

// View implements proto.Node.
func (nd *Node) View() proto.View {
	v := nd.Node.View()
	v.Units = nd.Units()
	return v
}

// Algorithm is Kakugawa et al.'s algorithm as a proto.Algorithm.
type Algorithm struct{ Config }

// coterie is the k-coterie of an n-node system: ℓ groups, at most n.
func (a Algorithm) coterie(n int) Coterie { return Coterie{Groups: max(1, min(a.Ell, n))} }

func (a Algorithm) maekawa(n int) sanders.Algorithm {
	return sanders.Algorithm{Structure: a.coterie(n)}
}

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "kakugawa" }

// NewNodes implements proto.Algorithm. It panics on a bad Config: check
// Config.Validate first.
func (a Algorithm) NewNodes(n int) []proto.Node {
	if err := a.Validate(); err != nil {
		panic(err)
	}
	c := a.coterie(n)
	t := newTable(c, n)
	inner := make([]sanders.Node, n)
	nodes := make([]Node, n)
	out := make([]proto.Node, n)
	for i := range nodes {
		r, m := i%c.Groups, i/c.Groups
		q := t.q[r][m]
		inner[i].Init(proto.NodeID(i), n, q, q, arbiter.All{}, true)
		nodes[i] = Node{Node: &inner[i], group: r, member: m, quorums: t}
		out[i] = &nodes[i]
	}
	return out
}

// MemoryPerNode implements proto.MemoryEstimator: algo/sanders' node on
// the k-coterie, and the wrapper.
func (a Algorithm) MemoryPerNode(n int) int64 { return a.maekawa(n).MemoryPerNode(n) + 32 }

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.KExclusion }

// MessageTypes implements proto.Algorithm: algo/sanders' (Maekawa's
// request, grant, fail, inquire, yield, release).
func (a Algorithm) MessageTypes() []proto.MessageType { return a.maekawa(2).MessageTypes() }

// ForgetMessage implements proto.MessageForgetter as its nodes' (Maekawa's)
// messages do (arbiter.ForgetMessage); the nodes' Forget is theirs.
func (Algorithm) ForgetMessage(m *proto.Message) { arbiter.ForgetMessage(m) }

// Events implements proto.Algorithm: none.
func (Algorithm) Events() []string { return nil }

// QuorumSize implements proto.QuorumAlgorithm: s, the largest quorum.
func (a Algorithm) QuorumSize(n int) int { return a.coterie(n).Largest(n) }

// StatedCost implements proto.CostAlgorithm: 3s to 5s, s the size of the
// largest quorum (survey, Table 3).
func (a Algorithm) StatedCost(n int) proto.Cost {
	s := float64(a.QuorumSize(n))
	return proto.Cost{Low: 3 * s, High: 5 * s, Text: "3s … 5s", Source: "survey T3", Kind: proto.Range}
}

// WithUnits implements proto.KExclusionAlgorithm: ℓ units and requests of
// one unit (kexcl.Unit.WithUnits).
func (a Algorithm) WithUnits(ell, k int, seed uint64) (proto.Algorithm, error) {
	return kexcl.Unit(a.Config).WithUnits(ell, k, seed, func(u kexcl.Unit) (proto.Algorithm, error) {
		return Algorithm{Config(u)}, Config(u).Validate()
	})
}

// Units implements proto.KExclusionAlgorithm: ℓ, and K = 1.
func (a Algorithm) Units() (int, int) { return kexcl.Unit(a.Config).Units() }

// MaxK says that a request asks for one unit at most: runtimes default
// --k-max to it.
func (Algorithm) MaxK() int { return 1 }

// Invariants implements proto.Algorithm: kexcl's (at most ℓ units in use,
// no deadlock when nothing is in flight), DisjointQuorums, and
// algo/sanders' arbiters and queued checks on the inner nodes.
func (a Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	invs := kexcl.Invariants(a.Ell, false,
		proto.Invariant{Name: "disjoint_quorums", When: proto.EveryStep, Check: DisjointQuorums},
		proto.Invariant{Name: "arbiters", When: proto.EveryStep, Check: inner(sanders.Arbiters)})
	return append(invs, proto.Invariant{Name: "queued", When: proto.Quiet, Check: inner(sanders.Queued)})
}

// DisjointQuorums checks that the quorums of the nodes in the critical
// section are pairwise disjoint (the k-coterie's intersection property,
// which the arbiters enforce, makes them at most k). O(n + Σ|Q|).
func DisjointQuorums(s proto.System) error {
	ns := s.Nodes()
	var used map[proto.NodeID]int
	for i, nd := range ns {
		if !nd.View().InCS {
			continue
		}
		if used == nil {
			used = make(map[proto.NodeID]int)
		}
		for _, k := range nd.(*Node).Node.Quorum() {
			if j, ok := used[k]; ok {
				return fmt.Errorf("disjoint_quorums: nodes %d and %d are in the critical section with quorums that share node %d", j, i, k)
			}
			used[k] = i
		}
	}
	return nil
}

// inner runs check on the system of the inner (algo/sanders) nodes.
func inner(check func(proto.System) error) func(proto.System) error {
	return func(s proto.System) error { return check(unwrapped{s}) }
}

type unwrapped struct{ proto.System }

func (u unwrapped) Nodes() []proto.Node {
	ns := u.System.Nodes()
	out := make([]proto.Node, len(ns))
	for i, nd := range ns {
		out[i] = nd.(*Node).Node
	}
	return out
}

// AnySize implements proto.AnySizeAlgorithm: it needs no hypercube.
func (Algorithm) AnySize() bool { return true }
