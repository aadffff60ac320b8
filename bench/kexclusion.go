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
	if k := plan.KExclusion; k != nil {
		r.Ell, r.KMax = k.Units()
		r.KDistribution = kDistribution(k, o.tags)
		total := r.MessagesTotal
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
			run.Replay = replay(spec, plan.Registered)
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
