package bench

import (
	"strconv"
	"strings"

	"github.com/ocbench/ocbench/algo/kexcl"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
)

// DefaultEll is ℓ, the units of a k-exclusion run, when --ell is not
// given; K (--k-max) defaults to ℓ.
const DefaultEll = kexcl.DefaultEll

// MaxEll bounds --ell (the tokens of a k-exclusion run).
const MaxEll = 1 << 16

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

// kexclusion returns the algorithm's k-exclusion view, if it has one.
func kexclusion(a proto.Algorithm) (proto.KExclusionAlgorithm, bool) {
	k, ok := a.(proto.KExclusionAlgorithm)
	return k, ok
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
	if !IsKExclusion(s.Algorithm) {
		return 0, 0
	}
	return s.units()
}

// units returns the ℓ and K of a k-exclusion spec, defaults filled in.
func (s *Spec) units() (int, int) {
	ell, k := s.Ell, s.KMax
	if ell == 0 {
		ell = DefaultEll
		if k > ell {
			ell = k
		}
	}
	if k == 0 {
		k = ell
		if m, ok := lookup(s.Algorithm).(interface{ MaxK() int }); ok {
			k = min(k, m.MaxK()) // an ℓ-exclusion algorithm: requests of one unit
		}
	}
	return ell, k
}

// validateUnits checks --ell and --k-max against the algorithm.
func (s *Spec) validateUnits() error {
	a, ok := kexclusion(lookup(s.Algorithm))
	if !ok {
		switch {
		case s.Ell != 0:
			return fieldErr("Ell", "only k-exclusion algorithms (%s) have units; %s has none", kexclusionNames(), s.Algorithm)
		case s.KMax != 0:
			return fieldErr("KMax", "only k-exclusion algorithms (%s) take requests of k units; %s has none", kexclusionNames(), s.Algorithm)
		}
		return nil
	}
	if s.Ell < 0 || s.Ell > MaxEll {
		return fieldErr("Ell", "%d is not in 1..%d", s.Ell, MaxEll)
	}
	ell, k := s.units()
	if k < 1 || k > ell {
		return fieldErr("KMax", "%d is not in 1..ℓ = %d", s.KMax, ell)
	}
	if _, err := a.WithUnits(ell, k, s.Seed); err != nil {
		return fieldErr("KMax", "ℓ = %d, K = %d: %w", ell, k, err)
	}
	return nil
}

func kexclusionNames() string { return KExclusionNames() }

// validateTimeout checks Timeout against the algorithm.
func (s *Spec) validateTimeout() error {
	if s.Timeout == 0 {
		return nil
	}
	t, ok := lookup(s.Algorithm).(proto.TimeoutAlgorithm)
	if !ok {
		return fieldErr("Timeout", "%s has no time-out to set (algorithms with one: %s)", s.Algorithm, namesWhere(func(a proto.Algorithm) bool {
			_, ok := a.(proto.TimeoutAlgorithm)
			return ok
		}))
	}
	if _, err := t.WithTimeout(s.Timeout); err != nil {
		return fieldErr("Timeout", "%w", err)
	}
	return nil
}

// namesWhere returns the names of the registered algorithms for which
// keep is true, comma-separated.
func namesWhere(keep func(proto.Algorithm) bool) string {
	var out []string
	for _, n := range AlgorithmNames() {
		if keep(lookup(n)) {
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}

// Timeout returns the time-out of a run of s and its unit, for an
// algorithm that takes one as a parameter (proto.TimeoutAlgorithm); 0 and
// "" for any other.
func Timeout(s Spec) (float64, string) {
	t, ok := RunAlgorithm(s).(proto.TimeoutAlgorithm)
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

// kDistribution counts the requests of the given tags by their k.
func kDistribution(a proto.KExclusionAlgorithm, tags []uint32) map[string]int64 {
	d := map[string]int64{}
	for _, tag := range tags {
		d[strconv.Itoa(a.NeedOf(tag))]++
	}
	return d
}

// recordK writes what a k-exclusion run and a self-stabilizing one
// measured into r: ℓ, K and the k distribution, the messages per entry
// after stabilization, and the stabilization time.
func recordK(r *results.Run, spec Spec, o *outcome) {
	algo := RunAlgorithm(spec)
	st := o.stab
	total := o.stats.MessagesTotal()
	if k, ok := kexclusion(algo); ok {
		r.Ell, r.KMax = k.Units()
		r.KDistribution = kDistribution(k, o.tags)
		// Messages serve no one request: count them per entry.
		r.MsgsPerRequest = results.Summary{}
		if r.RequestsServed > 0 {
			r.MsgsPerRequest = results.Summary{Count: int(r.RequestsServed), Mean: float64(total) / float64(r.RequestsServed)}
		}
		if st.Legit {
			var before int64
			for _, c := range st.SentAt {
				before += c
			}
			r.EntriesStable, r.MessagesStable = o.entriesStable, total-before
			if r.EntriesStable > 0 {
				r.MsgsPerEntry = float64(r.MessagesStable) / float64(r.EntriesStable)
			}
		}
	}
	ss, ok := algo.(proto.SelfStabilizingAlgorithm)
	if !ok || !spec.Transient.On() {
		return
	}
	r.Transient = spec.Transient.String()
	r.Timeout, r.TimeoutUnit = Timeout(spec)
	round, hopType := ss.Round()
	bound, _ := StabilizationBound(spec.Algorithm)
	stab := &results.Stabilization{Round: round, Bound: bound}
	stab.AsyncBound = stab.Bound * float64(spec.Nodes)
	run := results.StabRun{Seed: spec.Seed, Faults: st.Faults, Stabilized: st.Legit}
	if st.Legit {
		for e, name := range algo.Events() {
			if name == round {
				run.Rounds = float64(st.EventsAt[e] - st.EventsAtFault[e])
			}
		}
		run.HopRounds = float64(st.SentAt[hopType]-st.SentAtFault[hopType]) / float64(spec.Nodes)
		run.Delta = (st.At - st.LastFault) / spec.Delta
		run.AsyncRounds = float64(st.Rounds())
		if stab.Bound > 0 && run.Rounds > stab.Bound {
			run.Replay = Replay(spec)
		}
	}
	stab.InventedCS = o.invented
	stab.Injected, stab.Destroyed = o.stats.Injected, o.stats.Destroyed
	stab.Runs = []results.StabRun{run}
	stab.Summarize()
	r.Stabilization = stab
}

// FillKExclusion writes into r, the record of a run of s on a runtime
// other than the simulator, what it says of a k-exclusion algorithm: ℓ, K,
// the k distribution of the requests of serials tags, the messages per
// served request (they serve no one request; msgs_per_entry is the same,
// over the whole run), and the transient plan.
// The stabilization time is the simulator's alone (the legitimacy
// predicate reads the whole system).
func FillKExclusion(r *results.Run, s Spec, tags []uint32) {
	k, ok := kexclusion(RunAlgorithm(s))
	if !ok {
		return
	}
	s.fill()
	r.Ell, r.KMax = k.Units()
	r.KDistribution = map[string]int64{}
	for _, tag := range tags {
		r.KDistribution[strconv.Itoa(k.NeedOf(tag))]++
	}
	r.MsgsPerRequest = results.Summary{}
	if r.RequestsServed > 0 {
		r.MsgsPerRequest = results.Summary{Count: int(r.RequestsServed), Mean: float64(r.MessagesTotal) / float64(r.RequestsServed)}
		r.EntriesStable, r.MessagesStable, r.MsgsPerEntry = r.RequestsServed, r.MessagesTotal, r.MsgsPerRequest.Mean
	}
	if s.Transient.On() {
		r.Transient = s.Transient.String()
	}
}
