package bench

import (
	"fmt"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/sim"
)

// fill writes the counts t into r, the record of a run of plan made by
// newRecord (requests issued and served set): messages by type and cause,
// messages per request (perRequest: the normal messages of each issued
// request, in serial order), steps, drops, the longest delay, waits, and
// with the failure protocol its events, suspicions and detection traffic,
// and with crashes the overhead per failure and the time to recovery.
// Message types are named by the plan's algorithm.
func fill(t *sim.Counts, r *results.Run, plan *Plan, perRequest []float64) {
	spec, algo := plan.Spec, plan.Algorithm
	types := algo.MessageTypes()
	name := func(k int) string {
		if k < len(types) {
			return types[k].Name
		}
		return fmt.Sprintf("msgtype(%d)", k)
	}
	r.Steps, r.MessagesDropped = t.Steps, t.Dropped
	r.MaxDelayDelta = t.MaxDelay / spec.Delta
	if spec.FT {
		r.Suspicions = t.Suspicions
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
		r.TokensRegenerated = t.Event(events, "tokens_regenerated")
		r.StaleTokensDiscarded = t.Event(events, "stale_tokens_discarded")
		r.SearchesStarted = t.Event(events, "searches_started")
		if r.SearchesStarted > 0 {
			r.SearchPhasesMean = float64(t.Event(events, "search_phases")) / float64(r.SearchesStarted)
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

// Event returns the count in c of the event that the spec's algorithm
// calls name (0 if it has none of that name): the record's fields that are
// events of the failure protocol read them by name.
func Event(c *sim.Counts, spec Spec, name string) int64 {
	return c.Event(MustResolve(spec).Algorithm.Events(), name)
}
