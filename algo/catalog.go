package algo

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ocbench/ocbench/proto"
)

// The catalogue: what ocbench offers, by name, in the order it lists the
// algorithms, and what each algorithm says it is (the optional interfaces
// of package proto). Every lookup by name outside this package goes
// through these functions or Lookup.

// lookup returns the algorithm registered as name, or nil.
func lookup(name string) proto.Algorithm {
	a, _ := Lookup(name)
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
// first (ReferenceAlgorithm: the open-cube), then the other
// algorithms outside the survey (the general scheme's instances), then the
// survey's (Survey's order).
func Ordered() []string {
	var names, rest []string
	for _, k := range Names() { // sorted
		switch {
		case isReference(lookup(k)):
			names = append(names, k)
		case !slices.Contains(Survey, k):
			rest = append(rest, k)
		}
	}
	names = append(names, rest...)
	for _, k := range Survey {
		if _, ok := Lookup(k); ok {
			names = append(names, k)
		}
	}
	return names
}

// isReference reports whether a is the algorithm ocbench reproduces
// (ReferenceAlgorithm).
func isReference(a proto.Algorithm) bool {
	r, ok := a.(ReferenceAlgorithm)
	return ok && r.Reference()
}

// IsReference reports whether the algorithm called name is the one
// ocbench reproduces (ReferenceAlgorithm): its runs with crashes are
// compared with its paper's figures (results.PaperPerFailure).
func IsReference(name string) bool { return isReference(lookup(name)) }

// FaultTolerant returns the names of the algorithms with a failure protocol
// (proto.FaultTolerantAlgorithm), in Ordered's order: what --algo ft
// runs.
func FaultTolerant() []string {
	var out []string
	for _, k := range Ordered() {
		if _, ok := lookup(k).(proto.FaultTolerantAlgorithm); ok {
			out = append(out, k)
		}
	}
	return out
}

// Get returns the algorithm called name, or an error that lists the
// registered names.
func Get(name string) (proto.Algorithm, error) {
	a, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown algorithm %q (allowed: %s)", name, strings.Join(Ordered(), ", "))
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
// in Ordered's order.
func AnySizeNames() []string {
	var out []string
	for _, k := range Ordered() {
		if AnySize(k) {
			out = append(out, k)
		}
	}
	return out
}

// Enumerable returns the names of the algorithms whose initial
// configurations an explorer enumerates (proto.EnumerableAlgorithm), in
// Ordered's order.
func Enumerable() []string {
	var out []string
	for _, k := range Ordered() {
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
	for _, n := range Ordered() {
		if IsKExclusion(n) {
			if out != "" {
				out += ", "
			}
			out += n
		}
	}
	return out
}

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
	_, ok := lookup(name).(proto.KExclusionAlgorithm)
	return ok
}

// IsSelfStabilizing reports whether the algorithm called name is
// self-stabilizing (--transient applies to it).
func IsSelfStabilizing(name string) bool {
	_, ok := lookup(name).(proto.SelfStabilizingAlgorithm)
	return ok
}

// Adversaries returns the names of the adversarial configurations of the
// algorithm called name (none if it builds none).
func Adversaries(name string) []string { return AdversariesOf(lookup(name)) }

// AdversariesOf returns the names of a's adversarial configurations
// (proto.AdversarialAlgorithm), none if it builds none.
func AdversariesOf(a proto.Algorithm) []string {
	v, ok := a.(proto.AdversarialAlgorithm)
	if !ok {
		return nil
	}
	return v.Adversaries()
}

// The optional interfaces that only the catalogue and the command read.

// ReferenceAlgorithm is implemented by the algorithm ocbench reproduces
// (the open-cube): Reference reports true. Lists of algorithms name it
// first, and its runs with crashes are compared with its paper's iPSC/2
// figures (results.PaperPerFailure).
type ReferenceAlgorithm interface {
	Reference() bool
}

// ProtocolAlgorithm is implemented by a fault-tolerant algorithm that
// offers variants of its failure protocol: Protocols names them
// (Failures.Protocol; "" is the algorithm's own and is not listed), and
// DescribeProtocol states in one line the variant name ("" for its own)
// with a critical-section estimate of csEstimate δ, for a run's header.
type ProtocolAlgorithm interface {
	Protocols() []string
	DescribeProtocol(name string, csEstimate float64) string
}

// DetectorAlgorithm is implemented by a fault-tolerant algorithm whose
// failure protocol suspects a node through a failure detector: a
// suspicion of a live node is then an error (none must happen without
// crashes). DetectsFailures reports true. A fault-tolerant algorithm
// without it presumes a failure when a request's time-out expires, and
// such a false suspicion is a cost of its time-outs, not an error.
type DetectorAlgorithm interface {
	DetectsFailures() bool
}
