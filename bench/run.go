package bench

import (
	"errors"
	"io"
	"time"

	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/sim"
	"github.com/ocbench/ocbench/workload"
)

// Spec is one experiment.
type Spec struct {
	Algorithm string
	Nodes     int
	// Requests is the number of CS requests; with crashes, the workload also
	// goes on until the fault plan is over, so it is a minimum.
	Requests int64
	Workload workload.Kind
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
	Faults faults.FaultPlan
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
	Transient faults.TransientPlan
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

// outcome is what a run leaves for the record: its parts' counts added
// up.
type outcome struct {
	// plan is the run's.
	plan *Plan
	err  error
	// stats are the run's counts, its crashes, the attribution of
	// failure-cause messages to them and the recoveries included.
	stats          sim.Stats
	now            float64
	until          float64
	issued, served int64
	stays          []workload.Stay
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
	plan.budgetOf = budgetOf
	o := simulate(plan)
	var bo *outcome
	var v *sim.Violation
	if NeedsBaseline(plan.Spec) && o.stats.Crashes > 0 && (o.err == nil || errors.As(o.err, &v)) {
		base := plan.Baseline()
		base.budgetOf = baselineBudget
		bo = simulate(base)
	}
	r, err := assemble(plan, o, bo)
	if err != nil {
		return nil, err
	}
	r.WallSeconds = time.Since(start).Seconds()
	return r, nil
}

// budgeter returns the budget of a run of spec whose workload issues
// requests until the time until (budgetFor; tests give smaller ones).
type budgeter func(spec Spec, until float64) budget
