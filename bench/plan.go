package bench

import (
	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/proto"
)

// Plan is a run resolved once (Spec.Resolve): the spec with its defaults
// filled in and validated, and the algorithm it runs, configured — ℓ and
// K, its time-out, its failure protocol — with what the algorithm is. What
// runs the spec reads the plan and never looks the algorithm up by its
// name again (database/sql's Connector is the model: a driver in a fixed
// configuration).
type Plan struct {
	// Spec is the spec, filled and valid.
	Spec Spec
	// Registered is the algorithm as its package registered it (package
	// algo): what the spec names.
	Registered proto.Algorithm
	// Algorithm is the algorithm as the run runs it: the run's ℓ and K,
	// its time-out, its failure protocol when the spec runs one. The run's
	// nodes are built from it.
	Algorithm proto.Algorithm
	// KExclusion is Algorithm's k-exclusion view, nil for an algorithm of
	// another family.
	KExclusion proto.KExclusionAlgorithm
	// SelfStabilizing is Algorithm's self-stabilizing view, nil for an
	// algorithm that is not.
	SelfStabilizing proto.SelfStabilizingAlgorithm
}

// Resolve fills in the defaults of s, validates it and resolves its
// algorithm, once: the plan everything after it reads, or the *FieldError
// naming the first bad field.
func (s Spec) Resolve() (*Plan, error) {
	reg, err := registered(s.Algorithm)
	if err != nil {
		return nil, err
	}
	s.fillWith(reg)
	if err := s.validateWith(reg); err != nil {
		return nil, err
	}
	return newPlan(s, reg)
}

// newPlan returns the plan of s (filled) and the algorithm reg it names.
func newPlan(s Spec, reg proto.Algorithm) (*Plan, error) {
	a, err := configure(s, reg)
	if err != nil {
		return nil, err
	}
	p := &Plan{Spec: s, Registered: reg, Algorithm: a}
	p.KExclusion, _ = a.(proto.KExclusionAlgorithm)
	p.SelfStabilizing, _ = a.(proto.SelfStabilizingAlgorithm)
	return p, nil
}

// MustResolve returns the plan of s, a spec a runtime holds: one that
// Resolve accepted, or the crash-free baseline of one (Baseline), which
// Validate may refuse (a repair pass without crashes). It fills s in but
// does not validate it again, and panics if s names no registered
// algorithm or one that refuses its configuration.
func MustResolve(s Spec) *Plan {
	reg, err := registered(s.Algorithm)
	if err != nil {
		panic("bench: " + err.Error())
	}
	s.fillWith(reg)
	p, err := newPlan(s, reg)
	if err != nil {
		panic("bench: " + err.Error())
	}
	return p
}

// registered returns the algorithm registered as name, or the *FieldError
// of the spec's Algorithm.
func registered(name string) (proto.Algorithm, error) {
	a, ok := algo.Lookup(name)
	if !ok {
		_, err := Algorithm(name)
		return nil, fieldErr("Algorithm", "%w", err)
	}
	return a, nil
}

// configure returns the algorithm a run of s (filled, valid) runs: reg
// with the run's ℓ and K, its time-out, and its failure protocol when the
// spec runs one.
func configure(s Spec, reg proto.Algorithm) (proto.Algorithm, error) {
	a := reg
	if k, ok := kexclusion(a); ok {
		ell, kmax := s.unitsWith(reg)
		c, err := k.WithUnits(ell, kmax, s.Seed)
		if err != nil {
			return nil, fieldErr("KMax", "ℓ = %d, K = %d: %w", ell, kmax, err)
		}
		a = c
	}
	if t, ok := a.(proto.TimeoutAlgorithm); ok && s.Timeout != 0 {
		c, err := t.WithTimeout(s.Timeout)
		if err != nil {
			return nil, fieldErr("Timeout", "%w", err)
		}
		a = c
	}
	if ft, ok := a.(proto.FaultTolerantAlgorithm); ok && s.FT {
		protocol := s.Protocol
		if protocol == ProtocolOCBench {
			protocol = ""
		}
		a = ft.WithFailures(proto.Failures{CSEstimate: s.CSEstimate, Protocol: string(protocol)})
	}
	return a, nil
}

// fill fills in the defaults of the zero fields of s.
func (s *Spec) fill() { s.fillWith(lookup(s.Algorithm)) }

// baseline returns the plan of the crash-free baseline of a run of p: the
// same algorithm, without the fault plan (baselineOf).
func (p *Plan) baseline() *Plan {
	b := *p
	b.Spec = baselineOf(p.Spec)
	return &b
}
