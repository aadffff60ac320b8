package bench

import (
	"fmt"

	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/sim"
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
