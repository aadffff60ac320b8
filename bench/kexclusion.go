package bench

import (
	"strconv"

	"github.com/ocbench/ocbench/algo/kexcl"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
)

// DefaultEll is ℓ, the units of a k-exclusion run, when --ell is not
// given; K (--k-max) defaults to ℓ.
const DefaultEll = kexcl.DefaultEll

// MaxEll bounds --ell (the tokens of a k-exclusion run).
const MaxEll = 1 << 16

// kexclusion returns the algorithm's k-exclusion view, if it has one.
func kexclusion(a proto.Algorithm) (proto.KExclusionAlgorithm, bool) {
	k, ok := a.(proto.KExclusionAlgorithm)
	return k, ok
}

// unitsWith returns the ℓ and K of a spec of the k-exclusion algorithm
// reg, defaults filled in.
func (s *Spec) unitsWith(reg proto.Algorithm) (int, int) {
	ell, k := s.Ell, s.KMax
	if ell == 0 {
		ell = DefaultEll
		if k > ell {
			ell = k
		}
	}
	if k == 0 {
		k = ell
		if m, ok := reg.(interface{ MaxK() int }); ok {
			k = min(k, m.MaxK()) // an ℓ-exclusion algorithm: requests of one unit
		}
	}
	return ell, k
}

// validateUnits checks --ell and --k-max against the algorithm reg.
func (s *Spec) validateUnits(reg proto.Algorithm) error {
	a, ok := kexclusion(reg)
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
	ell, k := s.unitsWith(reg)
	if k < 1 || k > ell {
		return fieldErr("KMax", "%d is not in 1..ℓ = %d", s.KMax, ell)
	}
	if _, err := a.WithUnits(ell, k, s.Seed); err != nil {
		return fieldErr("KMax", "ℓ = %d, K = %d: %w", ell, k, err)
	}
	return nil
}

// validateTimeout checks Timeout against the algorithm reg.
func (s *Spec) validateTimeout(reg proto.Algorithm) error {
	if s.Timeout == 0 {
		return nil
	}
	t, ok := reg.(proto.TimeoutAlgorithm)
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
func recordK(r *results.Run, plan *Plan, o *outcome) {
	spec, algo := plan.Spec, plan.Algorithm
	st := o.stab
	total := o.stats.MessagesTotal()
	if k := plan.KExclusion; k != nil {
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
	ss := plan.SelfStabilizing
	if ss == nil || !spec.Transient.On() {
		return
	}
	r.Transient = spec.Transient.String()
	if t, ok := algo.(proto.TimeoutAlgorithm); ok {
		r.Timeout, r.TimeoutUnit = t.Timeout()
	}
	round, hopType := ss.Round()
	var bound float64
	if b, ok := plan.Registered.(proto.BoundedStabilization); ok {
		bound, _ = b.StabilizationBound()
	}
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
	plan := MustResolve(s)
	k := plan.KExclusion
	if k == nil {
		return
	}
	s = plan.Spec
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
