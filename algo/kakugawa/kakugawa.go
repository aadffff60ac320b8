package kakugawa

import (
	"fmt"

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

// Node is one node: Maekawa's protocol (algo/sanders' node on the
// k-coterie, whose informing and request sets are the quorum) that says
// it uses one unit while in the critical section. It is a proto.Recoverer
// as the inner node is.
type Node struct{ *sanders.Node }

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
	inner := a.maekawa(n).NewNodes(n)
	nodes := make([]Node, n)
	out := make([]proto.Node, n)
	for i := range nodes {
		nodes[i].Node = inner[i].(*sanders.Node)
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
// no deadlock when nothing is in flight), OneAGroup, and algo/sanders'
// arbiters and queued checks on the inner nodes.
func (a Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	invs := kexcl.Invariants(a.Ell, false,
		proto.Invariant{Name: "one_a_group", When: proto.EveryStep, Check: a.OneAGroup},
		proto.Invariant{Name: "arbiters", When: proto.EveryStep, Check: inner(sanders.Arbiters)})
	return append(invs, proto.Invariant{Name: "queued", When: proto.Quiet, Check: inner(sanders.Queued)})
}

// OneAGroup checks that at most one node of each group of the k-coterie is
// in the critical section. O(n).
func (a Algorithm) OneAGroup(s proto.System) error {
	ns := s.Nodes()
	g := a.coterie(len(ns)).Groups
	in := make([]int, g)
	for i := range in {
		in[i] = -1
	}
	for i, nd := range ns {
		if !nd.View().InCS {
			continue
		}
		if j := in[i%g]; j >= 0 {
			return fmt.Errorf("one_a_group: nodes %d and %d of group %d are in the critical section", j, i, i%g)
		}
		in[i%g] = i
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
