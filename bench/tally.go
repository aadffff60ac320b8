package bench

import (
	"fmt"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
)

// Tally is what a runtime counts in one run, the same way in the simulator
// and on the ranks of an MPI job (each rank counts its own nodes' sends and
// steps; rank 0 adds the ranks' tallies with Add). Fill writes it into the
// run's record, so that both runtimes' records say the same thing in the
// same words.
type Tally struct {
	// Sent counts the messages sent by type and cause: Sent[type][cause].
	Sent [][]int64
	// Events counts the algorithm's events (proto.Event, named by the
	// algorithm).
	Events []int64
	// Waits are the waits of the served requests, from enter_cs to the
	// entry, in δ.
	Waits []float64
	// Sync are the synchronization delays (SyncDelay), in δ.
	Sync []float64
	// Crashes is the number of crashes injected; PerFailure counts the
	// failure-cause messages attributed to each crash (sent after it and
	// before the next), ByType the same by message type, and PreCrash the
	// failure-cause messages sent before the first crash. FirstEntry is,
	// per crash, the time from the crash to the first entry into the
	// critical section anywhere, in seconds (-1: none).
	Crashes    int
	PerFailure []float64
	ByType     []int64
	PreCrash   int64
	FirstEntry []float64
	// Recoveries is the number of crashed nodes that came back;
	// Abandoned the requests of nodes that crashed while they waited.
	Recoveries int
	Abandoned  int64
}

// NewTally returns an empty tally of a run with the given number of
// planned crashes.
func NewTally(crashes int) Tally {
	t := Tally{Sent: make([][]int64, proto.MaxMsgTypes), Events: make([]int64, proto.MaxEvents),
		PerFailure: make([]float64, crashes), ByType: make([]int64, proto.MaxMsgTypes), FirstEntry: make([]float64, crashes)}
	for k := range t.Sent {
		t.Sent[k] = make([]int64, proto.NumCauses)
	}
	for k := range t.FirstEntry {
		t.FirstEntry[k] = -1
	}
	return t
}

// Add adds another rank's tally of the same run to t: counts add up, waits
// join, and a crash's first entry is the earliest on any rank.
func (t *Tally) Add(o *Tally) {
	for k, row := range o.Sent {
		for c, v := range row {
			t.Sent[k][c] += v
		}
	}
	for k, v := range o.Events {
		t.Events[k] += v
	}
	t.Waits = append(t.Waits, o.Waits...)
	t.Crashes = max(t.Crashes, o.Crashes)
	for k, v := range o.PerFailure {
		t.PerFailure[k] += v
	}
	for k, v := range o.ByType {
		t.ByType[k] += v
	}
	t.PreCrash += o.PreCrash
	for k, v := range o.FirstEntry {
		if v >= 0 && (t.FirstEntry[k] < 0 || v < t.FirstEntry[k]) {
			t.FirstEntry[k] = v
		}
	}
	t.Recoveries += o.Recoveries
	t.Abandoned += o.Abandoned
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
	types := RunAlgorithm(spec).MessageTypes()
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
	r.ResponseDelta = results.Summarize(t.Waits)
	if r.ResponseDelta.Count > 0 {
		r.ResponseDelta.Mean += spec.CSTime
		r.ResponseDelta.Median += spec.CSTime
		r.ResponseDelta.P99 += spec.CSTime
		r.ResponseDelta.Max += spec.CSTime
	}
	r.SyncDelayDelta = results.Summarize(t.Sync)
	if spec.FT {
		r.Events = map[string]int64{}
		for e, name := range RunAlgorithm(spec).Events() {
			r.Events[name] = t.Events[e]
		}
		r.TokensRegenerated = t.Event(spec, "tokens_regenerated")
		r.StaleTokensDiscarded = t.Event(spec, "stale_tokens_discarded")
		r.SearchesStarted = t.Event(spec, "searches_started")
		if r.SearchesStarted > 0 {
			r.SearchPhasesMean = float64(t.Event(spec, "search_phases")) / float64(r.SearchesStarted)
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
	for e, n := range RunAlgorithm(spec).Events() {
		if n == name {
			return t.Events[e]
		}
	}
	return 0
}
