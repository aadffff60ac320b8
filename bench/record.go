package bench

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/internal/floatsort"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/sim"
	"github.com/ocbench/ocbench/workload"
)

// Outcome is what a runtime observed of one run, whatever the runtime:
// Record, the one record builder, makes the run's record of it. A runtime
// then adds only what it alone measures (the simulator: virtual time,
// victim powers, stabilization; the MPI runtime: placement, real delays,
// frames, CPU time).
type Outcome struct {
	// Runtime names the runtime ("sim", "mpi"), on Ranks processes;
	// Checks names what was checked during the run.
	Runtime string
	Ranks   int
	Checks  string
	// Issued and Served count the run's critical-section requests.
	Issued, Served int64
	// Counts are what the run counted (the ranks' sum under MPI).
	// Counts.Suspicions are the failure detector's as the runtime judges
	// them, read only for a run with a failure protocol.
	Counts sim.Counts
	// PerRequest is the normal messages of each issued request, in serial
	// order.
	PerRequest []float64
	// FalseSuspicions and FirstFalseSuspicion are the failure detector's,
	// as the runtime judges them (FalseSuspicions -1: not judged); read
	// only for a run with a failure protocol.
	FalseSuspicions     int64
	FirstFalseSuspicion string
	// Safety lists the safety violations found, in the order found.
	Safety []Finding
	// Stopped: the run ended at its first safety violation (the
	// simulator's invariant checks), so what it had not served was cut
	// short, not lost.
	Stopped bool
	// Stuck describes a run that stalled (the watchdog) or spent its
	// budget: a liveness violation.
	Stuck string
	// Breach describes the first consequence of messages delayed beyond δ
	// on purpose (--delay-violations); it heads the description.
	Breach string
}

// Finding is one kind of safety violation found in a run: Count of them,
// the first described by Why ("" if another finding describes it).
type Finding struct {
	Count int
	Why   string
}

// Record returns the record of a run of spec (filled: Normalized) from what
// the runtime observed. The verdict, the same in every runtime: every safety
// finding counts, and the first described heads the violation; unless the
// run stopped at a safety violation, a stall is one liveness violation and
// so are requests of nodes that stayed up and were never served (the
// requests lost), described if nothing else is.
func Record(spec Spec, o *Outcome) *results.Run { return recordOf(MustResolve(spec), o) }

// recordOf is Record of a run of plan.
func recordOf(plan *Plan, o *Outcome) *results.Run {
	spec := plan.Spec
	r := newRecord(plan, o.Runtime, o.Ranks, o.Checks, o.Issued, o.Served)
	if spec.FT {
		r.FalseSuspicions, r.FirstFalseSuspicion = o.FalseSuspicions, o.FirstFalseSuspicion
	}
	fill(&o.Counts, r, plan, o.PerRequest)
	for _, f := range o.Safety {
		r.SafetyViolations += f.Count
		if r.Violation == "" {
			r.Violation = f.Why
		}
	}
	lost := o.Issued - o.Served - o.Counts.Abandoned
	if !o.Stopped {
		switch {
		case o.Stuck != "":
			r.LivenessViolations++
			r.RequestsLost = lost
			if r.Violation == "" {
				r.Violation = o.Stuck
			}
		case lost > 0:
			r.LivenessViolations++
			r.RequestsLost = lost
			if r.Violation == "" {
				r.Violation = fmt.Sprintf("%d of %d requests of nodes that stayed up were never served (seed %d)", lost, o.Issued, spec.Seed)
			}
		}
	}
	if o.Breach != "" && (r.Violation == "" || r.LivenessViolations > 0) {
		why := o.Breach
		if r.Violation != "" {
			why += "; " + r.Violation
		}
		r.Violation = why
	}
	return r
}

// newRecord is NewRecord of a run of plan.
func newRecord(plan *Plan, runtime string, ranks int, checks string, issued, served int64) *results.Run {
	s := plan.Spec
	r := newRun(plan, checks, issued, served)
	r.Runtime, r.Ranks = runtime, ranks
	r.DeltaSeconds, r.CSTime, r.MinDelay, r.FIFO, r.FaultTolerant = s.Delta, s.CSTime, s.MinDelay, s.FIFO, s.FT
	if s.FT {
		r.Protocol = string(s.Protocol) // filled: ProtocolOCBench unless paper
	}
	if s.Workload == "poisson" {
		r.ThinkTime = s.Think
	}
	return r
}

// newRun returns the record of a simulated run of spec, with the fields
// every run has.
func newRun(plan *Plan, checks string, issued, served int64) *results.Run {
	spec := plan.Spec
	r := &results.Run{
		Algorithm: spec.Algorithm, Nodes: spec.Nodes, Ranks: 1, Runtime: "sim", Seed: spec.Seed,
		Workload: string(spec.Workload), Checks: checks,
		Requests: results.Requests{RequestsIssued: issued, RequestsServed: served,
			MessagesByType: map[string]int64{}, MessagesByCause: map[string]int64{}},
	}
	algo := plan.Algorithm // with the run's ℓ and K: a k-exclusion algorithm's quorums and cost depend on them
	if q, ok := algo.(proto.QuorumAlgorithm); ok {
		r.QuorumSize = q.QuorumSize(spec.Nodes)
	}
	if c, ok := algo.(proto.CostAlgorithm); ok {
		cost := c.StatedCost(spec.Nodes)
		r.StatedCost, r.StatedCostLow, r.StatedCostHigh = cost.Text, cost.Low, cost.High
		r.StatedCostSource, r.StatedCostKind = cost.Source, cost.Kind.String()
	}
	if ft, ok := algo.(proto.FaultTolerantAlgorithm); ok && spec.FT {
		m := ft.FaultModel()
		r.FaultModel = m.Text
		r.FaultModelBroken = faults.Outside(m, plan.schedule().faults)
	}
	return r
}

// assemble returns the record of the run o of spec and its baseline bo (nil:
// none run).
func assemble(plan *Plan, o, bo *outcome) (*results.Run, error) {
	spec := plan.Spec
	var v *sim.Violation
	if o.err != nil && !errors.As(o.err, &v) {
		return nil, fmt.Errorf("simulating seed %d: %w", spec.Seed, o.err)
	}
	r := record(plan, o)
	if bo != nil && spec.Faults.Crashes > 0 && !spec.NoBaseline && o.stats.Crashes > 0 {
		if bo.err != nil && !errors.As(bo.err, &v) {
			return nil, fmt.Errorf("simulating the crash-free baseline of seed %d: %w", spec.Seed, bo.err)
		}
		baseline(o, bo, r)
	}
	if r.Violation != "" {
		r.Violation += "; replay: " + replay(spec, plan.Registered)
	}
	return r, nil
}

// record turns an outcome of the simulator into the run's record (Record,
// and what only the simulator measures).
func record(plan *Plan, o *outcome) *results.Run {
	spec := plan.Spec
	st := &o.stats
	t := st.Counts
	t.Waits = slices.Clone(t.Waits)
	floatsort.Sort(t.Waits) // Summarize sums them in this order, the same in every runtime
	for _, x := range workload.SyncDelaysOf(o.stays) {
		t.Sync = append(t.Sync, x/spec.Delta)
	}
	tags := slices.Sorted(slices.Values(o.tags))
	perReq := make([]float64, 0, len(tags))
	for _, tag := range tags {
		var c uint32
		if int(tag) < len(st.PerTag) {
			c = st.PerTag[tag]
		}
		perReq = append(perReq, float64(c))
	}
	out := &Outcome{Runtime: "sim", Ranks: 1, Checks: spec.Check.String(), Issued: o.issued, Served: o.served,
		Counts: t, PerRequest: perReq, FalseSuspicions: o.falses, FirstFalseSuspicion: o.firstFalse, Stuck: o.stuck}
	if spec.LateFraction > 0 {
		out.Safety = append(out.Safety, Finding{Count: int(st.OverlappingCS + st.DuplicateTokens)})
	}
	var v *sim.Violation
	if errors.As(o.err, &v) {
		out.Safety = append(out.Safety, Finding{Count: 1, Why: v.Error()})
		out.Stopped = true
	}
	if o.shape != nil {
		out.Safety = append(out.Safety, Finding{Count: 1, Why: "at the end of the run: " + o.shape.Error()})
	}
	if st.FirstBreach != "" {
		out.Breach = fmt.Sprintf("with %d messages delayed beyond δ on purpose, %s (seed %d)", st.Late, st.FirstBreach, spec.Seed)
	}
	r := recordOf(plan, out)
	r.VirtualSeconds = o.now
	recordK(r, plan, o)
	if spec.Faults.Crashes > 0 {
		r.VictimPowers = o.victimPower
		r.OverheadByVictimPower, r.OverheadStratified = results.ByPower(t.PerFailure, o.victimPower, spec.Nodes)
		r.OpenCubeAtEnd = o.openCubeAtEnd || (spec.Repair && o.shape == nil)
	}
	if spec.LateFraction > 0 {
		r.LateMessages = st.Late
		r.OverlappingCS = st.OverlappingCS
		r.DuplicateTokens = st.DuplicateTokens
	}
	return r
}

// baseline puts into r, the record of the crash run o, the differential
// overhead against its crash-free baseline bo, run with the same workload
// until the same time. A baseline that
// ends with a violation (safety, liveness, or a budget spent) fails the
// run: r gets the violation, prefixed "baseline: ", and no differential
// (dividing by a partial baseline would give a wrong figure, silently).
func baseline(o, bo *outcome, r *results.Run) {
	br := record(bo.plan, bo)
	if br.Violation != "" {
		r.SafetyViolations += br.SafetyViolations
		r.LivenessViolations += br.LivenessViolations
		if br.SafetyViolations+br.LivenessViolations == 0 {
			r.LivenessViolations++ // a violation always counts
		}
		why := "baseline: " + br.Violation
		if r.Violation != "" {
			why = r.Violation + "; " + why
		}
		r.Violation = why
		return
	}
	diff := float64(r.MessagesTotal-br.MessagesTotal) / float64(o.stats.Crashes)
	r.OverheadDifferential = results.Estimated([]float64{diff})
	r.BaselineMessages = br.MessagesTotal
}
