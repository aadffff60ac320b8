package bench

import (
	"fmt"
	"slices"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
)

// Tally is what a runtime counts in one run, the same way in the simulator
// and on the ranks of an MPI job (each rank counts its own nodes' sends and
// steps; rank 0 adds the ranks' tallies with Add). Fill writes it into the
// run's record, so that both runtimes' records say the same thing in the
// same words. Add merges tallies by the rule in each field's `merge` tag
// (results.AddCounts); the `record` tag names the field of the record
// (JSON) that Fill writes from it, or "-" for the attribution's own
// bookkeeping (TestCountsReachRecord).
type Tally struct {
	// Sent counts the messages sent by type and cause: Sent[type][cause].
	Sent [][]int64 `merge:"sum" record:"messages_total"`
	// Events counts the algorithm's events (proto.Event, named by the
	// algorithm).
	Events []int64 `merge:"sum" record:"events"`
	// Waits are the waits of the served requests, from enter_cs to the
	// entry, in δ.
	Waits []float64 `merge:"append" record:"wait_delta"`
	// Sync are the synchronization delays (SyncDelay), in δ.
	Sync []float64 `merge:"append" record:"sync_delay_delta"`
	// Crashes is the number of crashes injected; PerFailure counts the
	// failure-cause messages attributed to each crash (sent after it and
	// before the next), ByType the same by message type, and PreCrash the
	// failure-cause messages sent before the first crash. FirstEntry is,
	// per crash, the time from the crash to the first entry into the
	// critical section anywhere, in seconds (-1: none).
	//
	// CrashTimes and the three methods Crashed, Failure and Entered are the
	// one rule of crash attribution, which every runtime applies (see
	// Failure).
	Crashes    int       `merge:"max" record:"failures"`
	PerFailure []float64 `merge:"sum" record:"overhead_samples"`
	ByType     []int64   `merge:"sum" record:"overhead_by_type"`
	PreCrash   int64     `merge:"sum" record:"failure_messages_before_first_crash"`
	FirstEntry []float64 `merge:"custom" record:"recovery_samples"` // the earliest on any rank: Add
	CrashTimes []float64 `json:"-" merge:"same" record:"-"`
	// SlotByType is ByType per crash, kept only by a tally of planned
	// crashes (NewPlannedTally), so that DropSkipped can take a skipped
	// first crash's messages out of ByType.
	SlotByType [][]int64 `json:",omitempty" merge:"sum" record:"-"`
	// Recoveries is the number of crashed nodes that came back;
	// Abandoned the requests of nodes that crashed while they waited.
	Recoveries int   `merge:"sum" record:"recoveries"`
	Abandoned  int64 `merge:"sum" record:"requests_abandoned_by_crash"`
}

// NewTally returns an empty tally of a run, with no crash yet (the
// simulator calls Crashed as crashes happen).
func NewTally() Tally {
	t := Tally{Sent: make([][]int64, proto.MaxMsgTypes), Events: make([]int64, proto.MaxEvents),
		ByType: make([]int64, proto.MaxMsgTypes)}
	for k := range t.Sent {
		t.Sent[k] = make([]int64, proto.NumCauses)
	}
	return t
}

// NewPlannedTally returns the empty tally of one rank of a distributed
// runtime, whose ranks do not see each other's crashes: every crash of the
// plan is taken to happen at its planned time, and rank 0 removes those
// skipped at run time from the sum of the ranks' tallies (DropSkipped).
// Since a crash happens at its planned time, this attributes every message
// as the simulator's Crashed does.
func NewPlannedTally(plan []Fault) Tally {
	t := NewTally()
	for _, f := range plan {
		t.Crashed(f.At)
	}
	t.SlotByType = make([][]int64, len(plan))
	return t
}

// Crashed records a crash at time t (seconds), after every crash recorded
// so far.
func (t *Tally) Crashed(at float64) {
	t.Crashes++
	t.CrashTimes = append(t.CrashTimes, at)
	t.PerFailure = append(t.PerFailure, 0)
	t.FirstEntry = append(t.FirstEntry, -1)
}

// latest returns the index of the latest crash at or before time now, or -1.
func (t *Tally) latest(now float64) int {
	k := len(t.CrashTimes) - 1
	for k >= 0 && t.CrashTimes[k] > now {
		k--
	}
	return k
}

// CrashesBy returns the number of crashes recorded at or before time now.
func (t *Tally) CrashesBy(now float64) int { return t.latest(now) + 1 }

// Failure attributes the failure-cause message m, sent at time now, to the
// latest crash at or before now (PerFailure, ByType), or to PreCrash before
// the first: the classified overhead per failure.
func (t *Tally) Failure(m *proto.Message, now float64) {
	if k := t.latest(now); k >= 0 {
		t.PerFailure[k]++
		t.ByType[m.Type]++
		if t.SlotByType != nil {
			if t.SlotByType[k] == nil {
				t.SlotByType[k] = make([]int64, proto.MaxMsgTypes)
			}
			t.SlotByType[k][m.Type]++
		}
	} else {
		t.PreCrash++
	}
}

// Entered notes an entry into the critical section at time now: the first
// entry after a crash (and after every crash before it that has none yet)
// gives that crash's FirstEntry, the time to recovery.
func (t *Tally) Entered(now float64) {
	for k := t.latest(now); k >= 0 && t.FirstEntry[k] < 0; k-- {
		t.FirstEntry[k] = now - t.CrashTimes[k]
	}
}

// DropSkipped removes from a tally made by NewPlannedTally (the ranks'
// sum) the planned crashes that were skipped at run time (their victim was
// down, or too few nodes were up): the failure-cause messages attributed to
// a skipped crash go to the crash before it (or before the first crash),
// as if it had never been planned.
func (t *Tally) DropSkipped(skipped []int) {
	skipped = slices.Compact(slices.Sorted(slices.Values(skipped)))
	for x := len(skipped) - 1; x >= 0; x-- {
		k := skipped[x]
		if k < 0 || k >= len(t.PerFailure) {
			continue
		}
		var types []int64
		if k < len(t.SlotByType) {
			types = t.SlotByType[k]
			t.SlotByType = slices.Delete(t.SlotByType, k, k+1)
		}
		if k > 0 {
			t.PerFailure[k-1] += t.PerFailure[k]
			if types != nil {
				if t.SlotByType[k-1] == nil {
					t.SlotByType[k-1] = make([]int64, proto.MaxMsgTypes)
				}
				for m, c := range types {
					t.SlotByType[k-1][m] += c
				}
			}
		} else {
			t.PreCrash += int64(t.PerFailure[k])
			for m, c := range types {
				t.ByType[m] -= c
			}
		}
		t.PerFailure = slices.Delete(t.PerFailure, k, k+1)
		if k < len(t.FirstEntry) {
			t.FirstEntry = slices.Delete(t.FirstEntry, k, k+1)
		}
		if k < len(t.CrashTimes) {
			t.CrashTimes = slices.Delete(t.CrashTimes, k, k+1)
		}
		t.Crashes--
	}
}

// Add adds another rank's tally of the same run to t, by the rules of
// the fields' merge tags: counts add up, waits join, the crashes are the
// same; and a crash's first entry is the earliest on any rank.
func (t *Tally) Add(o *Tally) {
	results.AddCounts(t, o)
	for k, v := range o.FirstEntry {
		for k >= len(t.FirstEntry) {
			t.FirstEntry = append(t.FirstEntry, -1)
		}
		if v >= 0 && (t.FirstEntry[k] < 0 || v < t.FirstEntry[k]) {
			t.FirstEntry[k] = v
		}
	}
}

// Fill writes the tally into r, the record of a run of spec made by
// NewRecord (requests issued and served set): messages by type and cause,
// messages per request (perRequest: the normal messages of each issued
// request, in serial order), waits, and with the failure protocol its
// events and detection traffic, and with crashes the overhead per failure
// and the time to recovery. Suspicions must be set before (they are judged
// differently by each runtime); a runtime adds what only it measures.
// Message types are named by the spec's algorithm.
func (t *Tally) Fill(r *results.Run, spec Spec, perRequest []float64) {
	t.fill(r, MustResolve(spec), perRequest)
}

// fill is Fill of a run of plan.
func (t *Tally) fill(r *results.Run, plan *Plan, perRequest []float64) {
	spec, algo := plan.Spec, plan.Algorithm
	types := algo.MessageTypes()
	name := func(k int) string {
		if k < len(types) {
			return types[k].Name
		}
		return fmt.Sprintf("msgtype(%d)", k)
	}
	for k, row := range t.Sent {
		for c, v := range row {
			if v > 0 {
				r.MessagesByType[name(k)] += v
				r.MessagesByCause[proto.Cause(c).String()] += v
				r.MessagesTotal += v
			}
		}
	}
	r.MsgsPerRequest = results.Summarize(perRequest)
	r.WaitDelta = results.Summarize(t.Waits)
	r.ResponseDelta = r.WaitDelta // the same samples: summarized once
	if r.ResponseDelta.Count > 0 {
		r.ResponseDelta.Mean += spec.CSTime
		r.ResponseDelta.Median += spec.CSTime
		r.ResponseDelta.P99 += spec.CSTime
		r.ResponseDelta.Max += spec.CSTime
	}
	r.SyncDelayDelta = results.Summarize(t.Sync)
	if spec.FT {
		r.Events = map[string]int64{}
		events := algo.Events()
		for e, name := range events {
			r.Events[name] = t.Events[e]
		}
		r.TokensRegenerated = t.event(events, "tokens_regenerated")
		r.StaleTokensDiscarded = t.event(events, "stale_tokens_discarded")
		r.SearchesStarted = t.event(events, "searches_started")
		if r.SearchesStarted > 0 {
			r.SearchPhasesMean = float64(t.event(events, "search_phases")) / float64(r.SearchesStarted)
		}
		r.SetDetectionPerRequest()
	}
	if spec.Faults.Crashes > 0 {
		r.FaultPlan = spec.Faults.String()
		r.Failures = t.Crashes
		r.Recoveries = t.Recoveries
		r.OverheadPerFailure = results.Estimated(t.PerFailure)
		r.OverheadSamples = t.PerFailure
		r.OverheadByType = map[string]int64{}
		for k, v := range t.ByType {
			if v > 0 {
				r.OverheadByType[name(k)] = v
			}
		}
		r.FailureMessagesBeforeFirstCrash = t.PreCrash
		var rec []float64
		for _, x := range t.FirstEntry {
			if x >= 0 {
				rec = append(rec, x/spec.Delta)
			}
		}
		r.RecoveryDelta = results.Summarize(rec)
		r.RecoverySamples = rec
		r.RequestsAbandoned = t.Abandoned
	}
}

// Event returns the count of the event that the spec's algorithm calls
// name (0 if it has none of that name): the record's fields that are
// events of the failure protocol read them by name.
func (t *Tally) Event(spec Spec, name string) int64 {
	return t.event(MustResolve(spec).Algorithm.Events(), name)
}

// event returns the count of the event called name among events, the
// algorithm's (0 if none has that name).
func (t *Tally) event(events []string, name string) int64 {
	for e, n := range events {
		if n == name {
			return t.Events[e]
		}
	}
	return 0
}
