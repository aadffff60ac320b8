package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/internal/hugepage"
	"github.com/ocbench/ocbench/internal/stream"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/sim"
	"github.com/ocbench/ocbench/workload"
)

// Controller is a run's controller: its decisions (which crash of the
// fault plan takes which node, whether the sequential workload's next
// request may go, when the workload is over and the run ends Settle
// later, whether the watchdog's tick finds the run stalled), made from
// observations of the whole run. It owns no time: a runtime calls it when
// a decision is due and carries the decision out. Where the observations
// come from is the runtime's realisation:
//
//   - in virtual time (Part: the simulator and MPI in virtual time) at
//     window boundaries, from the snapshot of every part's report, in
//     every part alike;
//   - in wall-clock time (rank.Runtime) on every rank for the fault plan's
//     crashes at their planned times (a targeted crash's world view from
//     every rank's report, on rank 0), and on rank 0 for the sequential
//     turn and the end of the workload, from the ranks' message-count
//     probes and their notes that their workload is over.
type Controller struct {
	target  faults.Target
	plan    []faults.Fault
	next    int // the next crash of plan
	down    []bool
	live    int
	targets *rand.Rand
	until   float64
	settle  float64
	period  float64 // the watchdog's (0: none)
	delta   float64
	seed    uint64
	// neverQuiet: the algorithm's rounds never stop (self-stabilizing),
	// so the sequential turn does not wait for quiet.
	neverQuiet bool
	wall       bool  // ControlOptions.WallClock
	served     int64 // served at the watchdog's previous tick (-1: afresh)
	over       bool  // the workload is over
}

// ControlOptions are what a Controller needs beyond the spec.
type ControlOptions struct {
	// Until is when the workload stops issuing requests (WorkloadEnd).
	Until float64
	// Watch: the run has a watchdog, ticking every WatchPeriod.
	Watch bool
	// NeverQuiet: the run never goes quiet (a self-stabilizing
	// algorithm's rounds): the sequential turn does not wait for quiet.
	NeverQuiet bool
	// WallClock: the run is in wall-clock time (rank.Runtime), which
	// realises the controller's observations otherwise; this is where
	// they differ:
	//   - the controller does not see the crashes of other ranks as they
	//     happen: a targeted crash's victim is chosen from the nodes'
	//     states its ranks report (CrashSeen), on rank 0;
	//   - the sequential turn's quiet is what rank 0's message-count
	//     probes find (Mattern's four-counter test), and the end of the
	//     workload every rank's note that its own is over, each rank
	//     judging Until on its own clock (Ending does not test it again);
	//   - the watchdog watches each rank's own nodes, over WallWatch
	//     periods: a rank descheduled for a while is not a stalled
	//     algorithm.
	WallClock bool
}

// WallWatch is how many watchdog periods (WatchPeriod) a wall-clock run's
// watchdog waits before it calls a run stuck (ControlOptions.WallClock).
const WallWatch = 4

// NewController returns the controller of a run of plan, with the plan's
// fault schedule (faults.FaultPlan.Schedule, drawn once from the seed), settle
// time and watchdog period.
func NewController(plan *Plan, o ControlOptions) *Controller {
	spec := &plan.Spec
	c := &Controller{target: spec.Faults.Target, plan: plan.schedule().faults,
		down: hugepage.Make[bool](spec.Nodes), live: spec.Nodes, targets: faults.TargetRand(spec.Seed),
		until: o.Until, settle: plan.Settle, delta: spec.Delta, seed: spec.Seed,
		neverQuiet: o.NeverQuiet, wall: o.WallClock, served: -1}
	if o.Watch {
		c.period = plan.WatchPeriod
		if o.WallClock {
			c.period *= WallWatch
		}
	}
	return c
}

// Counts returns the counts a runtime starts the run from. In virtual time
// they are empty: a crash is counted as it happens (sim.Counts.Crashed),
// where every part sees it. In wall-clock time (ControlOptions.WallClock)
// a rank does not see the other ranks' crashes as they happen, so every
// crash of the plan is taken to happen at its planned time (sim.Planned):
// a crash happens at its planned time, and the messages are attributed as
// if counted as it happened; the crashes skipped at run time are dropped
// from the ranks' sum at the end (DropSkipped).
func (c *Controller) Counts() sim.Counts {
	if !c.wall {
		return sim.Counts{}
	}
	times := make([]float64, len(c.plan))
	for k, f := range c.plan {
		times[k] = f.At
	}
	return sim.Planned(times)
}

// DropSkipped removes from t, the sum of a wall-clock run's ranks' counts
// (each started from Counts), the planned crashes that were skipped at run
// time (their numbers in the plan: the victim was down, or too few nodes
// were up), as if they had never been planned (sim.Counts.DropSkipped).
func (c *Controller) DropSkipped(t *sim.Counts, skipped []int) {
	if c.wall {
		t.DropSkipped(skipped)
	}
}

// Crashes returns the number of crashes in the fault plan.
func (c *Controller) Crashes() int { return len(c.plan) }

// Fault returns crash k of the plan: when it is due, its victim (-1: a
// targeted crash, whose victim Crash chooses) and its recovery.
func (c *Controller) Fault(k int) faults.Fault { return c.plan[k] }

// TargetedDue reports whether the plan's next crash is a targeted one due
// at time at: its victim needs the world view (the candidates and the
// token in flight).
func (c *Controller) TargetedDue(at float64) bool {
	return c.next < len(c.plan) && c.plan[c.next].Node < 0 && c.plan[c.next].At == at
}

// Crash decides crash k of the plan, due now: it returns the victim, or
// proto.Nil if the crash is skipped (its victim down, or for a targeted
// crash no victim by ChooseVictim's rule from the candidates and the
// destination of the token in flight), and takes the victim down.
func (c *Controller) Crash(k int, cands []proto.NodeID, tokenDest proto.NodeID) proto.NodeID {
	c.next = k + 1
	v := proto.NodeID(c.plan[k].Node)
	if v < 0 {
		if v = faults.ChooseVictim(c.target, cands, c.down, c.live, tokenDest, c.targets); v == proto.Nil {
			return proto.Nil
		}
	}
	if c.down[v] {
		return proto.Nil
	}
	c.down[v] = true
	c.live--
	return v
}

// CrashSeen is Crash where the controller does not see crashes as they
// happen (ControlOptions.WallClock): down says which nodes are down now, as
// the world view reports them.
func (c *Controller) CrashSeen(k int, cands []proto.NodeID, tokenDest proto.NodeID, down []bool) proto.NodeID {
	copy(c.down, down)
	c.live = 0
	for _, d := range c.down {
		if !d {
			c.live++
		}
	}
	return c.Crash(k, cands, tokenDest)
}

// Recovered brings node id, which a crash took down, back up.
func (c *Controller) Recovered(id proto.NodeID) {
	c.down[id] = false
	c.live++
}

// Down reports whether node id is down, as far as the controller knows.
func (c *Controller) Down(id proto.NodeID) bool { return c.down[id] }

// Turn reports whether the sequential workload's next request may go: it
// waits for its turn, no node is busy, and the run is quiet (or never
// goes quiet).
func (c *Controller) Turn(o *workload.Observation) bool {
	return o.Pending && o.Busy == 0 && (o.Quiet || c.neverQuiet)
}

// Ending reports whether the workload may be over at time now: not over
// yet, past Until (in wall-clock time, judged by the ranks), and every
// issued request served or abandoned (whether requests are still to be
// issued, WorkloadOver decides).
func (c *Controller) Ending(o *workload.Observation, now float64) bool {
	return !c.over && o.Served+o.Abandoned == o.Issued && (now >= c.until || c.wall)
}

// WorkloadOver decides, at time now, whether the workload is over (once):
// Ending, and no request is still to be issued. The run then ends Settle
// later.
func (c *Controller) WorkloadOver(o *workload.Observation, now float64) bool {
	if !c.Ending(o, now) || o.More {
		return false
	}
	c.over = true
	return true
}

// Over reports whether the workload is over (WorkloadOver).
func (c *Controller) Over() bool { return c.over }

// Settle is how long the run goes on once the workload is over.
func (c *Controller) Settle() float64 { return c.settle }

// Period is the watchdog's period (0: the run has no watchdog).
func (c *Controller) Period() float64 { return c.period }

// Tick is the watchdog's tick at time now: the stall rule (stall) on the
// observation, over the period since the previous tick. It returns the
// stall's description, or "". A run that cannot be judged now (judged
// false: a self-stabilizing algorithm not yet stabilized) is judged afresh
// at the next tick.
func (c *Controller) Tick(o *workload.Observation, now float64, judged bool) string {
	if !judged {
		c.served = -1
		return ""
	}
	if why := stall(o.Issued, o.Served, o.Abandoned, c.served, o.WaitingSince, o.Waiting, now, c.period, c.delta, c.seed); why != "" {
		return why
	}
	c.served = o.Served
	return ""
}

// stall is the watchdog's rule, one for every runtime (Controller.Tick: on
// the snapshot of a run in virtual time, on a rank's nodes, workload.Driver.Observe,
// in wall-clock time): a run is stuck if nothing was served
// since the previous tick (served then: lastServed) and a request has
// waited a whole period (the oldest issued at since, +Inf if none waits;
// node waiting among them), or if nothing waits yet the count does not
// close (more entries than requests: a node entered for a request it no
// longer had, and the run would wait for ever for the workload's end). It
// returns why, or "".
func stall(issued, served, abandoned, lastServed int64, since float64, waiting proto.NodeID, now, period, delta float64, seed uint64) string {
	switch {
	case served != lastServed:
		return ""
	case !math.IsInf(since, 1):
		if now-since < period {
			return "" // issued since the last tick
		}
		return fmt.Sprintf("no request served for %.0fδ while %d wait, the oldest for %.0fδ, node %d's among them (t=%.4fs, seed %d)",
			period/delta, issued-served-abandoned, (now-since)/delta, waiting, now, seed)
	case served+abandoned != issued:
		return fmt.Sprintf("no request served for %.0fδ, none waits, yet %d requests were issued, %d served and %d abandoned (t=%.4fs, seed %d)",
			period/delta, issued, served, abandoned, now, seed)
	}
	return ""
}

// schedule is what a run of a plan draws from its seed before it starts,
// and the bounds that follow from it.
type schedule struct {
	// faults are the crashes planned (faults.FaultPlan.plan).
	faults []faults.Fault
	// corruptions are the times of the corruption events of a transient
	// plan during the run (seconds), and transient the transient stream
	// past them: the draws of the initial configuration or of the
	// corruption events.
	corruptions []float64
	transient   rand.PCG
	// until is the time until which the workload issues requests
	// (WorkloadEnd; a crash-free baseline: its run's), and at least Settle
	// past the last corruption event.
	until float64
	// limit is the run's budget (budgetOf at until).
	limit budget
}

// lazySchedule computes a plan's schedule once: the fault plan of a large
// run with many crashes costs O(N + crashes), which a plan that is only
// validated, or only builds a record, does not pay.
type lazySchedule struct {
	once sync.Once
	// run is, for a crash-free baseline, its run's schedule: the same
	// transient faults and workload end, without the crashes.
	run *schedule
	s   schedule
}

// Faults returns the crashes the run plans (faults.FaultPlan.Schedule,
// drawn once from the seed; none for a crash-free baseline).
func (p *Plan) Faults() []faults.Fault { return p.schedule().faults }

// Until returns the time, in seconds, until which the run's workload
// issues requests: the end of its fault plan plus Settle (WorkloadEnd), at
// least Settle past its last corruption event; a crash-free baseline's is
// its run's.
func (p *Plan) Until() float64 { return p.schedule().until }

// schedule returns the plan's schedule, computed on the first call.
func (p *Plan) schedule() *schedule {
	l := p.sched
	l.once.Do(func() {
		s, sc := &p.Spec, &l.s
		if l.run != nil {
			*sc = *l.run
			sc.faults = nil
		} else {
			pcg := rand.NewPCG(s.Seed, stream.Transient)
			if s.Transient.On() {
				sc.corruptions = s.Transient.CorruptionTimes(rand.New(pcg), s.Delta)
			}
			sc.transient = *pcg
			sc.faults = s.Faults.Schedule(s.Seed, s.Nodes, s.Delta)
			sc.until = faults.WorkloadEnd(sc.faults, p.Settle)
			if k := len(sc.corruptions); k > 0 {
				sc.until = max(sc.until, sc.corruptions[k-1]+p.Settle)
			}
		}
		sc.limit = p.budgetOf(*s, sc.until)
	})
	return &l.s
}

// transientRand returns the run's transient stream past the corruption
// times: every part, and a split run's mirror, draws the same from it.
func (p *Plan) transientRand() *rand.Rand {
	pcg := p.schedule().transient
	return rand.New(&pcg)
}
