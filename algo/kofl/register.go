package kofl

import (
	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/algo/kexcl"
	"github.com/ocbench/ocbench/proto"
)

func init() {
	algo.Register(SelfStabilizing{Algorithm{Config: Config{Ell: kexcl.DefaultEll, K: kexcl.DefaultEll}}})
}

// SelfStabilizing is the algorithm as registered (package algo): the
// self-stabilizing k-out-of-ℓ exclusion of Datta, Hadid and Villain, as a
// proto.KExclusionAlgorithm and a proto.SelfStabilizingAlgorithm (Algorithm
// is the state machine; these are the runtimes' views of it).
type SelfStabilizing struct{ Algorithm }

// WithUnits implements proto.KExclusionAlgorithm.
func (a SelfStabilizing) WithUnits(ell, k int, seed uint64) (proto.Algorithm, error) {
	c := a.Config
	c.Ell, c.K, c.Seed = ell, k, seed
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return SelfStabilizing{Algorithm{Config: c}}, nil
}

// Units implements proto.KExclusionAlgorithm.
func (a SelfStabilizing) Units() (int, int) { return a.Ell, a.K }

// Legitimate implements proto.SelfStabilizingAlgorithm.
func (SelfStabilizing) Legitimate(s proto.System) error { return Legitimate(s) }

// Invariants implements proto.Algorithm: kofl's safety check. Its
// legitimacy predicate is not among them: the simulator evaluates it after
// every step itself (sim.Config.Legitimate), and enforces its closure.
func (a SelfStabilizing) Invariants(crashes bool) []proto.Invariant {
	var out []proto.Invariant
	for _, inv := range a.Algorithm.Invariants(crashes) {
		if inv.Name != "kofl_legitimate" {
			out = append(out, inv)
		}
	}
	return out
}

// Round implements proto.SelfStabilizingAlgorithm: a round is a CToken
// traversal (Root's START), and the CToken's hops measure it.
func (SelfStabilizing) Round() (string, proto.MsgType) { return "traversal", CToken }
