// Package bench defines ocbench's experiments: the algorithms that can be
// run, the workloads (who asks for the critical section, when, for how long),
// and what is measured; it runs an experiment on a runtime and returns a
// results.Run.
package bench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/proto"
)

// lookup returns the registered algorithm called name (package algo), or
// nil.
func lookup(name string) proto.Algorithm {
	a, _ := algo.Lookup(name)
	return a
}

// Survey names the survey's 21 algorithms (Velazquez 1993): Table 2's
// permission-based ones, Table 1's token-based ones, Table 3's k-exclusion
// ones; what --algo survey runs (docs/survey-coverage.md).
var Survey = []string{
	"lamport", "ricart-agrawala", "carvalho-roucairol", "raynal", "maekawa", "sanders", "agrawal-el-abbadi", "singhal",
	"suzuki-kasami", "ricart-agrawala-token", "singhal-token", "mizuno-neilsen-rao", "neilsen-mizuno", "helary-plouzeau-raynal",
	"raymond", "naimi-trehel", "mishra-srimani", "nishio",
	"raymond-kex", "srimani-reddy", "kakugawa",
}

// AlgorithmNames returns the algorithm names: the reference algorithm
// first (proto.ReferenceAlgorithm: the open-cube), then the other
// algorithms outside the survey (the general scheme's instances), then the
// survey's (Survey's order).
func AlgorithmNames() []string {
	var names, rest []string
	for _, k := range algo.Names() { // sorted
		switch {
		case isReference(lookup(k)):
			names = append(names, k)
		case !slices.Contains(Survey, k):
			rest = append(rest, k)
		}
	}
	names = append(names, rest...)
	for _, k := range Survey {
		if _, ok := algo.Lookup(k); ok {
			names = append(names, k)
		}
	}
	return names
}

// isReference reports whether a is the algorithm ocbench reproduces
// (proto.ReferenceAlgorithm).
func isReference(a proto.Algorithm) bool {
	r, ok := a.(proto.ReferenceAlgorithm)
	return ok && r.Reference()
}

// IsReference reports whether the algorithm called name is the one
// ocbench reproduces (proto.ReferenceAlgorithm): its runs with crashes are
// compared with its paper's figures (results.PaperPerFailure).
func IsReference(name string) bool { return isReference(lookup(name)) }

// FaultTolerant returns the names of the algorithms with a failure protocol
// (proto.FaultTolerantAlgorithm), in AlgorithmNames' order: what --algo ft
// runs.
func FaultTolerant() []string {
	var out []string
	for _, k := range AlgorithmNames() {
		if _, ok := lookup(k).(proto.FaultTolerantAlgorithm); ok {
			out = append(out, k)
		}
	}
	return out
}

// Algorithm returns the algorithm called name.
func Algorithm(name string) (proto.Algorithm, error) {
	a, ok := algo.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown algorithm %q (allowed: %s)", name, strings.Join(AlgorithmNames(), ", "))
	}
	return a, nil
}

// NeedsFIFO reports whether the algorithm called name assumes FIFO
// channels (proto.FIFOAlgorithm): its runs deliver in sending order between
// each pair of nodes whatever the spec says.
func NeedsFIFO(name string) bool {
	f, ok := lookup(name).(proto.FIFOAlgorithm)
	return ok && f.NeedsFIFO()
}

// AnySize reports whether the algorithm called name runs on any N ≥ 2
// (proto.AnySizeAlgorithm), not only on powers of two.
func AnySize(name string) bool {
	a, ok := lookup(name).(proto.AnySizeAlgorithm)
	return ok && a.AnySize()
}

// AnySizeNames returns the names of the algorithms that run on any N ≥ 2,
// in AlgorithmNames' order.
func AnySizeNames() []string {
	var out []string
	for _, k := range AlgorithmNames() {
		if AnySize(k) {
			out = append(out, k)
		}
	}
	return out
}

// Enumerable returns the names of the algorithms whose initial
// configurations an explorer enumerates (proto.EnumerableAlgorithm), in
// AlgorithmNames' order.
func Enumerable() []string {
	var out []string
	for _, k := range AlgorithmNames() {
		if _, ok := lookup(k).(proto.EnumerableAlgorithm); ok {
			out = append(out, k)
		}
	}
	return out
}

// DefaultTimeout returns the time-out of the algorithm called name and its
// unit, for an algorithm that takes one as a parameter
// (proto.TimeoutAlgorithm); 0 and "" for any other.
func DefaultTimeout(name string) (float64, string) {
	t, ok := lookup(name).(proto.TimeoutAlgorithm)
	if !ok {
		return 0, ""
	}
	return t.Timeout()
}

// KExclusionNames lists the k-exclusion algorithms, comma-separated: what
// --algo kexclusion runs.
func KExclusionNames() string {
	var out string
	for _, n := range AlgorithmNames() {
		if IsKExclusion(n) {
			if out != "" {
				out += ", "
			}
			out += n
		}
	}
	return out
}

// kexclusionNames is KExclusionNames, for the messages of Validate.
func kexclusionNames() string { return KExclusionNames() }

// StabilizationBound is the paper's bound on the stabilization time of
// the algorithm called name, in rounds, and the rounds' name
// (proto.BoundedStabilization; kofl: 5 CToken traversals, 5n hops); 0 and
// "" if none is stated.
func StabilizationBound(name string) (float64, string) {
	if b, ok := lookup(name).(proto.BoundedStabilization); ok {
		return b.StabilizationBound()
	}
	return 0, ""
}

// IsKExclusion reports whether the algorithm called name is a k-exclusion
// algorithm (--ell and --k-max apply to it).
func IsKExclusion(name string) bool {
	_, ok := kexclusion(lookup(name))
	return ok
}

// IsSelfStabilizing reports whether the algorithm called name is
// self-stabilizing (--transient applies to it).
func IsSelfStabilizing(name string) bool {
	_, ok := lookup(name).(proto.SelfStabilizingAlgorithm)
	return ok
}

// Units returns the ℓ and K of a run of a k-exclusion algorithm, defaults
// filled in, and 0, 0 for any other algorithm.
func Units(s Spec) (ell, kmax int) {
	reg := lookup(s.Algorithm)
	if _, ok := kexclusion(reg); !ok {
		return 0, 0
	}
	return s.unitsWith(reg)
}

// Adversaries returns the names of the adversarial configurations of the
// algorithm called name (none if it builds none).
func Adversaries(name string) []string {
	a, ok := lookup(name).(proto.AdversarialAlgorithm)
	if !ok {
		return nil
	}
	return a.Adversaries()
}

// InitialCosts returns c(i) for every node i of the algorithm called name
// at N = n: the messages of one lone request of node i from the initial
// configuration (initialCosts).
func InitialCosts(name string, n int) ([]int, error) {
	algo, err := Algorithm(name)
	if err != nil {
		return nil, err
	}
	return initialCosts(algo, n)
}
