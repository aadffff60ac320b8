package bench

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/ocbench/ocbench/internal/floatsort"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/sim"
)

// Spec is one experiment.
type Spec struct {
	Algorithm string
	Nodes     int
	// Requests is the number of CS requests; with crashes, the workload also
	// goes on until the fault plan is over, so it is a minimum.
	Requests int64
	Workload WorkloadKind
	Seed     uint64
	// Delta is δ in seconds (virtual time in the simulator).
	Delta float64
	// CSTime is how long a node stays in the critical section, in δ
	// (DefaultCSTime is the command's default; zero is allowed).
	CSTime float64
	// Think is the mean think time of the poisson workload, in δ (0: N·CSTime).
	Think float64
	// MinDelay is the smallest message delay, in δ; delays are uniform in
	// [MinDelay·δ, δ].
	MinDelay float64
	FIFO     bool
	// Check selects the invariants checked after every step.
	Check Check
	// Trace, if not nil, receives the event trace.
	Trace io.Writer
	// TraceTree adds the father relation to the trace (trace.Father
	// lines), for the algorithms of the general token-and-tree scheme;
	// `ocbench view` draws the tree from them.
	TraceTree bool

	// Faults is the fault plan (no crashes if Faults.Crashes is 0).
	Faults FaultPlan
	// FT runs the algorithm's failure protocol (proto.FaultTolerantAlgorithm)
	// even without crashes.
	FT bool
	// CSEstimate is the root's estimate e of a CS, in δ (0: CSTime).
	CSEstimate float64
	// LateFraction of the messages are delayed beyond δ, up to LateFactor·δ.
	LateFraction float64
	LateFactor   float64
	// Repair makes every live node request once more after the workload
	// (one at a time), and then requires the father relation to be an
	// open-cube (tests use it).
	Repair bool
	// NoBaseline skips the crash-free run that the differential overhead
	// needs.
	NoBaseline bool
	// Protocol is the open-cube failure protocol: ProtocolOCBench (the
	// default) or ProtocolPaper (§5 as written).
	Protocol Protocol
	// Ell and KMax are ℓ, the units of a k-exclusion algorithm's resource,
	// and K, the most a request asks for (proto.KExclusionAlgorithm); 0
	// means DefaultEll, and K = ℓ. Other algorithms take neither.
	Ell, KMax int
	// Transient is the transient-fault plan of a self-stabilizing
	// algorithm (proto.SelfStabilizingAlgorithm).
	Transient TransientPlan
	// Timeout is the algorithm's time-out, for an algorithm that takes one
	// as a parameter (proto.TimeoutAlgorithm: kofl's Root, in δ per ring
	// node); 0 means the algorithm's own.
	Timeout float64
	// Progress, if not nil, is called now and then during the run (every
	// ProgressEvery served requests, at every crash, and once at the end),
	// never per event; it must be cheap and must not touch the run.
	Progress func(Progress)
}

// Progress is how far a run has got, for a progress display.
type Progress struct {
	// Served and Issued count critical-section requests so far; Requests is
	// the spec's number (a minimum when crashes are injected).
	Served, Issued, Requests int64
	// Failures injected so far, of FailuresPlanned.
	Failures, FailuresPlanned int
	// Virtual is the simulated time, in seconds.
	Virtual float64
	// Done is set on the last call of a run.
	Done bool
	// Runs is how many runs the call covers: an MPI job runs several at
	// once and reports their sums (0 means 1).
	Runs int
}

// ProgressEvery is how many served requests pass between two Progress calls.
const ProgressEvery = 512

// Defaults for Spec fields left zero.
const (
	DefaultDelta  = 1e-3
	DefaultCSTime = 1.0
)

// FullCheckMaxNodes is the largest N for which the automatic check level
// runs the O(N) structural invariants after every step.
const FullCheckMaxNodes = 256

// Streams of the seeded generators: each part of a run draws from its own
// stream, so that adding crashes to a run does not change its workload.
const (
	streamWorkload = 1
	streamFaults   = 3
	streamTargets  = 4
)

// outcome is what a run leaves for the record: its parts' counts added
// up.
type outcome struct {
	err error
	// stats are the run's counts, its crashes, the attribution of
	// failure-cause messages to them and the recoveries included.
	stats          sim.Stats
	now            float64
	until          float64
	issued, served int64
	stays          []Stay
	tags           []uint32 // the requests issued
	falses         int64
	firstFalse     string
	victimPower    []int // the power of each crash's victim when it crashed
	shape          error
	stuck          string
	stab           sim.Stab
	// openCubeAtEnd: the father relation was an open-cube when the run
	// ended (without a repair pass, anomalies may be left unrepaired: §5).
	openCubeAtEnd bool
	// entriesStable counts the entries into the critical section after
	// stabilization (k-exclusion); invented the critical sections the
	// transient faults invented.
	entriesStable int64
	invented      int64
}

// repairPass makes every live node request the CS once, one after the other,
// once the workload is over; then the father relation must be an open-cube:
// the paper repairs a structure bent by a recovery when the recovered node's
// descendants next request (§5, anomaly).
type repairPass struct {
	s    *sim.Sim
	n, i int
	cs   float64
	// wait: the pass has not started, or a request of the pass is under
	// way; a quiet system does not move the pass on meanwhile (else the
	// workload's last requests going quiet would skip node 0).
	wait  bool
	done  bool
	shape error
}

func (r *repairPass) next() {
	for r.i < r.n && r.s.Down(proto.NodeID(r.i)) {
		r.i++
	}
	if r.i >= r.n {
		r.done = true
		r.shape = r.s.CheckAtEnd()
		r.s.Stop()
		return
	}
	r.wait = true
	r.s.Input(0, proto.NodeID(r.i), proto.EnterCS, 0)
}

func (r *repairPass) entered(id proto.NodeID) {
	r.s.Input(r.cs, id, proto.ExitCS, 0)
	r.s.After(r.cs, func() {
		// The exit ran just before (same time, scheduled first). If it
		// sent nothing, no later step will report the quiet: do it here.
		r.wait = false
		if r.s.InFlight() == 0 {
			r.quiet()
		}
	})
}

func (r *repairPass) quiet() {
	if !r.wait && !r.done {
		r.i++
		r.wait = true // until the next request is issued
		r.s.After(0, r.next)
	}
}

// Run runs the experiment in the simulator. Every run has a budget of steps
// and virtual time (budgetFor); a run that spends it is a liveness
// violation. A violation, of the run or of its crash-free baseline (which
// then gives no differential overhead), is in the record with the command
// that replays it.
func Run(spec Spec) (*results.Run, error) { return runWithin(spec, budgetFor, budgetFor) }

// runWithin is Run with the budgets of the run and of its baseline given.
func runWithin(spec Spec, budgetOf, baselineBudget budgeter) (*results.Run, error) {
	plan, err := spec.Resolve()
	if err != nil {
		return nil, err
	}
	if plan.Spec.Workload == "each" {
		return runEach(plan)
	}
	start := time.Now()
	o := simulate(plan, budgetOf)
	var bo *outcome
	var v *sim.Violation
	if NeedsBaseline(plan.Spec) && o.stats.Crashes > 0 && (o.err == nil || errors.As(o.err, &v)) {
		bo = simulateUntil(plan.baseline(), o.until, baselineBudget)
	}
	r, err := assemble(plan, o, bo)
	if err != nil {
		return nil, err
	}
	r.WallSeconds = time.Since(start).Seconds()
	return r, nil
}

// baseline puts into r, the record of the crash run o of spec, the
// differential overhead against its crash-free baseline bo (base: its
// spec), run with the same workload until the same time. A baseline that
// ends with a violation (safety, liveness, or a budget spent) fails the
// run: r gets the violation, prefixed "baseline: ", and no differential
// (dividing by a partial baseline would give a wrong figure, silently).
func baseline(base *Plan, o, bo *outcome, r *results.Run) {
	if br := record(base, bo); br.Violation != "" {
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
	diff := float64(o.stats.MessagesTotal()-bo.stats.MessagesTotal()) / float64(o.stats.Crashes)
	r.OverheadDifferential = results.Estimated([]float64{diff})
	r.BaselineMessages = bo.stats.MessagesTotal()
}

func simulate(plan *Plan, budgetOf budgeter) *outcome { return simulateUntil(plan, -1, budgetOf) }

// budgeter returns the budget of a run of spec whose workload issues
// requests until the time until (budgetFor; tests give smaller ones).
type budgeter func(spec Spec, until float64) budget

// simulateUntil runs one simulation within the budget budgetOf gives it;
// with until ≥ 0, the workload issues requests until that time (a
// crash-free baseline of a crash run).
func simulateUntil(plan *Plan, until float64, budgetOf budgeter) *outcome {
	spec := plan.Spec
	p := newPart(plan, until, nil, budgetOf, spec.Trace)
	err := p.Drive()
	o := merge(plan, []*Result{p.Result(err)})
	o.stab = p.s.Stab()
	if p.repair != nil && o.err == nil && o.stuck == "" {
		if !p.repair.done {
			o.stuck = fmt.Sprintf("the repair pass after the run did not complete (node %d, seed %d)", p.repair.i, spec.Seed)
		} else {
			o.shape = p.repair.shape
		}
	}
	return o
}

// record turns an outcome of the simulator into the run's record (Record,
// and what only the simulator measures).
func record(plan *Plan, o *outcome) *results.Run {
	spec := plan.Spec
	st := &o.stats
	t := st.Counts
	t.Waits = slices.Clone(t.Waits)
	floatsort.Sort(t.Waits) // Summarize sums them in this order, the same in every runtime
	for _, x := range SyncDelaysOf(o.stays) {
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
		r.FaultModelBroken = spec.Faults.Outside(m, spec.Seed, spec.Nodes, spec.Delta)
	}
	return r
}

// simCheck returns the simulator's check level for c.
func simCheck(c Check) sim.Check {
	if c == CheckFull {
		return sim.CheckFull
	}
	return sim.CheckCounts
}
