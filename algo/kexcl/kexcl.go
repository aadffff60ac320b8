// Package kexcl holds what ocbench's k-exclusion algorithms share (the
// proto.KExclusion family: algo/kofl, algo/raymondkex, algo/srimanireddy):
// how a request's k units are derived from its serial, how a node says how
// many units it uses, and the check that at most ℓ units are in use. It is
// not an algorithm.
//
// The convention: a resource has ℓ units (tokens); a request asks for k of
// them, 1 ≤ k ≤ K ≤ ℓ. The runtimes issue requests by serial only
// (proto.Input.Tag), so k is a function of the serial: NeedOf. An
// ℓ-exclusion algorithm (Raymond's, Srimani–Reddy's) serves requests of one
// unit: K = 1, and at most ℓ nodes are in the critical section together.
package kexcl

import (
	"fmt"

	"github.com/ocbench/ocbench/proto"
)

// DefaultEll is ℓ, the units of the resource, of a k-exclusion algorithm's
// run that does not set it (and of the registered algorithms).
const DefaultEll = 3

// NeedOf returns the k of the request with serial tag, 1 ≤ k ≤ K (K < 1
// counts as 1): need(tag) clamped to 1..K if need is set, else 1 + (a mix
// of seed and tag) mod K, the same for every runtime and every node.
func NeedOf(seed uint64, kmax int, need func(tag uint32) int, tag uint32) int {
	kmax = max(1, kmax)
	if need != nil {
		return max(1, min(kmax, need(tag)))
	}
	x := seed ^ uint64(tag)*0x9e3779b97f4a7c15
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return 1 + int(x%uint64(kmax))
}

// UnitNode is a k-exclusion node that says how many units it uses: the k
// of its request while it is in the critical section, 0 otherwise.
type UnitNode interface {
	proto.Node
	Units() int
}

// InUse returns the units the nodes of s use (UnitNode.Units; a node that
// is not a UnitNode uses one unit while in the critical section) and the
// number of nodes in the critical section.
func InUse(s proto.System) (units, nodes int) {
	for _, nd := range s.Nodes() {
		if !nd.View().InCS {
			continue
		}
		nodes++
		if u, ok := nd.(UnitNode); ok {
			units += u.Units()
		} else {
			units++
		}
	}
	return units, nodes
}

// AtMost returns an invariant checked after every step: the nodes in the
// critical section use at most ell units in all. O(n).
func AtMost(ell int) proto.Invariant {
	return proto.Invariant{Name: "ell_exclusion", When: proto.EveryStep, Check: func(s proto.System) error {
		if u, k := InUse(s); u > ell {
			return fmt.Errorf("ell_exclusion: %d nodes in the critical section use %d units, ℓ = %d", k, u, ell)
		}
		return nil
	}}
}

// Unit is the configuration of an ℓ-exclusion algorithm (requests of one
// unit), in algo/kofl's convention; algo/raymondkex's, algo/srimanireddy's
// and algo/kakugawa's Config are Units, and share WithUnits and Units.
type Unit struct {
	Ell int // ℓ, the nodes allowed in the critical section together (the units, or tokens), ≥ 1
	// K is the most units a request asks for: 1 (0 means 1), since an
	// ℓ-exclusion algorithm serves requests of one unit.
	K int
	// Seed and Need derive a request's k from its serial (NeedOf), as
	// kofl's; with K = 1 every request asks for one unit.
	Seed uint64
	Need func(tag uint32) int
}

// Check returns an error unless ℓ ≥ 1 and K ≤ 1, beginning with the
// algorithm's name; why says why K = 1.
func (u Unit) Check(name, why string) error {
	switch {
	case u.Ell < 1:
		return fmt.Errorf("%s: ℓ = %d, want ≥ 1", name, u.Ell)
	case u.K > 1:
		return fmt.Errorf("%s: K = %d: %s (K = 1)", name, u.K, why)
	case u.K < 0:
		return fmt.Errorf("%s: K = %d, want 1", name, u.K)
	}
	return nil
}

// NeedOf returns the k of the request with serial tag (NeedOf): 1.
func (u Unit) NeedOf(tag uint32) int { return NeedOf(u.Seed, u.K, u.Need, tag) }

// Units returns ℓ and K (at least 1): proto.KExclusionAlgorithm.Units of
// an algorithm configured by u.
func (u Unit) Units() (int, int) { return u.Ell, max(u.K, 1) }

// WithUnits is proto.KExclusionAlgorithm.WithUnits of an ℓ-exclusion
// algorithm configured by u (algo/raymondkex, algo/srimanireddy,
// algo/kakugawa): u with ℓ units, requests of at most k units and seed,
// made an algorithm by build, which returns its Validate's error too; nil
// and that error if it refuses.
func (u Unit) WithUnits(ell, k int, seed uint64, build func(Unit) (proto.Algorithm, error)) (proto.Algorithm, error) {
	u.Ell, u.K, u.Seed = ell, k, seed
	a, err := build(u)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// Invariants returns the invariants of an ℓ-exclusion algorithm without a
// failure protocol: none with crashes; otherwise AtMost(ell) and own after
// every step, and proto.NoDeadlock when nothing is in flight.
func Invariants(ell int, crashes bool, own ...proto.Invariant) []proto.Invariant {
	if crashes {
		return nil
	}
	return append(append([]proto.Invariant{AtMost(ell)}, own...), proto.NoDeadlock)
}
