package bench

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/ocbench/ocbench/internal/hugepage"

	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/internal/floatsort"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/safety"
	"github.com/ocbench/ocbench/sim"
	"github.com/ocbench/ocbench/workload"
)

// WindowWidth is the width of a run's windows, in δ: the controller (the
// workload's sequential order, the fault plan, the watchdog, the budget,
// the end of the run) observes the run at window boundaries only, and a
// runtime whose parts exchange messages once per window (MPI in virtual
// time) needs every message to take at least this long: MinVirtualDelay.
const WindowWidth = 0.5

// MinVirtualDelay is the smallest delay floor, in δ, with which a run can
// be split into parts (MPI in virtual time): the window width. The
// default delay floor (DefaultMinDelay) is this.
const MinVirtualDelay = WindowWidth

// DefaultMinDelay is the default smallest message delay, in δ: delays are
// uniform in [0.5δ, δ], so that every runtime replays the same run.
const DefaultMinDelay = MinVirtualDelay

// snapshot is the state of a whole run at a window boundary, added up over
// its parts: what the controller observes.
type snapshot struct {
	// Next is the time of the run's earliest event (+Inf: none).
	Next float64
	// InFlight counts the messages in flight, InCS the nodes in the
	// critical section, Holders the nodes holding a token and Tokens the
	// tokens in flight.
	InFlight, InCS, Holders, Tokens int64
	// Issued, Served and Abandoned count the requests; Busy the nodes
	// with a request not yet over (issued, and the CS not left); QuotaLeft
	// the live nodes with requests still to issue (per-node quotas).
	Issued, Served, Abandoned, Busy, QuotaLeft int64
	// Steps counts the steps so far.
	Steps int64
	// At a watchdog tick: WaitingSince is when the request that has
	// waited longest was issued (+Inf: none waits), and Waiting the
	// smallest node whose request has waited a whole period (proto.Nil:
	// none).
	Waiting      proto.NodeID
	WaitingSince float64
	// Storm is a part's message-storm report ("" if none); Halted counts
	// the parts whose run stopped (a violation its steps found).
	Storm  string
	Halted int64
	// For a targeted crash due next: the live nodes that qualify
	// (IsTarget), in id order, and the destination of the token in flight
	// that arrives first (proto.Nil: none).
	Candidates []proto.NodeID
	TokenDest  proto.NodeID
	tokenAt    sim.Mark
	// Reissues are the hosting parts' answers for the re-issues the
	// controller decides next (InventedCS: a transient fault's critical
	// section over).
	Reissues []reissueAnswer
	// For a corruption event due next (a split run): every message in
	// flight, and the hosted nodes' workload (nodeWorkload).
	Flight []sim.Remote
	Nodes  []nodeWorkload
}

// nodeWorkload is what a corruption event of a split run needs of a node's
// workload from the part that hosts it (InventedCS.scrambled).
type nodeWorkload struct {
	Node                   proto.NodeID
	FaultCS, InCS, Waiting bool
	Tag                    uint32
}

// reissueAnswer is whether node Node's request waits, and its tag, for a
// re-issue the controller decides (InventedCS).
type reissueAnswer struct {
	Node    proto.NodeID
	Waiting bool
	Tag     uint32
}

// Part is one part of a run: the run's nodes it hosts, on a simulator,
// and the run's controller, which every part runs alike. A run is one
// part (Config.Owned nil) in the simulator, and one per rank of an MPI
// job in virtual time; the parts advance window by window (Window) and
// exchange their messages and reports at every boundary, so that every
// part sees the same snapshot there.
type Part struct {
	spec   Spec
	res    *Plan // the run resolved: spec and its algorithm
	s      *sim.Sim
	nodes  []proto.Node
	drv    *workload.Driver
	owned  []bool
	width  float64
	until  float64
	settle float64
	// ctl is the run's controller, observing the snapshot at boundaries.
	ctl      *Controller
	tally    *sim.Counts // the simulator's (s.Stats.Counts)
	victims  []int       // the power of each crash's victim (-1: another part knows it)
	snap     snapshot
	limit    budget
	over     string // the budget spent
	stuck    string
	nextTick float64 // the time of the watchdog's next tick
	stays    []workload.Stay
	open     []int // index in stays of each hosted node's open stay (-1)
	tags     []uint32
	world    bool // the next controller call is a targeted crash
	pmax     int

	repair        *repairPass
	tr            *transient
	entriesStable int64
	report        func(done bool)
	lastReported  int64
	ell           int
	selfStab      bool
	sequential    bool // the workload is sequential (observe, at every boundary)
	// mirrored: a part of a split self-stabilizing run (sim.Config.Mirrored);
	// mir is its mirror, in the part that hosts node 0; legitNow is the
	// mirror's verdict at the last boundary that gave it (setLegit), and
	// needLegit says the next window starts with a controller call, which
	// may read it.
	mirrored bool
	family   proto.Family // the algorithm's
	// corr are the times of the corruption events (--transient during),
	// corrDone how many have struck.
	corr      []float64
	corrDone  int
	mir       *mirror
	legitNow  bool
	needLegit bool
}

// newPart returns the part of the run of plan that hosts the nodes owned
// says (nil: all of them), writing the trace of its nodes' steps to trace
// (nil: none; with owned, indexed for MergeTraces).
func newPart(plan *Plan, owned []bool, trace io.Writer) *Part {
	spec, algo, sc := plan.Spec, plan.Algorithm, plan.schedule()
	delta := spec.Delta
	nodes, array := newArray(algo, spec.Nodes)
	p := &Part{spec: spec, res: plan, nodes: nodes, owned: owned, width: plan.Width,
		settle: plan.Settle}
	p.pmax, _ = hypercube.Log2(spec.Nodes)
	p.family = algo.Family()
	selfStab := plan.SelfStabilizing != nil
	p.selfStab = selfStab
	corruptions, until := sc.corruptions, sc.until
	p.until = until
	p.ctl = NewController(plan, ControlOptions{Until: until, Watch: spec.FT || selfStab, NeverQuiet: selfStab})
	var junk []proto.Message
	if spec.Transient.On() {
		p.tr = &transient{InventedCS: &InventedCS{nodes: p.nodes, cs: spec.CSTime * delta, faultCS: make([]bool, spec.Nodes)},
			rng: plan.transientRand()}
		if spec.Transient.Initial() {
			junk = spec.Transient.Configuration(plan.Algorithm, spec.Seed, p.nodes, p.tr.rng)
		}
	}
	p.mirrored = selfStab && owned != nil
	var legit func(proto.System) error
	if selfStab && !p.mirrored {
		legit = plan.SelfStabilizing.Legitimate
	}
	if k := plan.KExclusion; k != nil {
		p.ell, _ = k.Units()
	}
	p.limit = sc.limit
	p.open = hugepage.Make[int](spec.Nodes)
	if owned == nil {
		p.stays = make([]workload.Stay, 0, capHint(spec.Requests))
	}
	for i := range p.open {
		p.open[i] = -1
	}
	var fatherOf func(proto.Node) (proto.NodeID, bool)
	if spec.TraceTree {
		fatherOf = func(n proto.Node) (proto.NodeID, bool) {
			t, ok := proto.TreeOf(n)
			return t.Father, ok
		}
	}
	p.s = sim.New(sim.Config{
		Delta: delta, MinDelay: spec.MinDelay, FIFO: spec.FIFO, Seed: spec.Seed,
		Check: plan.check, Family: p.family, Types: algo.MessageTypes(),
		Invariants: plan.invariants, Trace: trace,
		Crashes: spec.Faults.Crashes > 0, LateFraction: spec.LateFraction, LateFactor: spec.LateFactor,
		KeepGoing: spec.LateFraction > 0, Units: p.ell, Legitimate: legit,
		// The legitimacy predicate reads each link in delivery order.
		OrderedInFlight: selfStab, Mirrored: p.mirrored,
		Owned: owned, TraceIndex: owned != nil && trace != nil, MaxSteps: p.limit.steps,
		FatherOf: fatherOf, Array: array, Pending: pendingEvents(spec, owned),
	}, p.nodes, sim.Hooks{
		Request:     p.requested,
		Enter:       p.entered,
		FailureSend: func(m *proto.Message) { p.tally.Failure(m, p.s.Now()) },
		Crash:       p.crashed,
		Recover:     func(id proto.NodeID) { p.drv.Recovered(id) },
	})
	p.tally = &p.s.Stats.Counts
	p.drv = workload.New(p.s, workload.Config{Kind: spec.Workload, Seed: spec.Seed, Nodes: spec.Nodes, Requests: spec.Requests,
		Until: until, CSTime: spec.CSTime * delta, Think: spec.Think * delta, NeverQuiet: selfStab,
		Hosted: p.hosted(), PerNode: spec.Workload != "sequential", NodeTags: true, Down: p.ctl.Down})
	p.drv.OnExit = func(id proto.NodeID, _ uint32) { p.exited(id, false) }
	if spec.Progress != nil && owned == nil {
		p.report = func(done bool) {
			spec.Progress(Progress{Served: p.snap.Served, Issued: p.snap.Issued, Requests: spec.Requests,
				Failures: p.tally.Crashes, FailuresPlanned: p.ctl.Crashes(), Virtual: p.s.Now(), Done: done})
		}
	}
	if p.tr != nil {
		p.tr.s, p.tr.host, p.tr.drv = p.s, p.s, p.drv
		if owned != nil {
			p.tr.shared = p.reissue
			p.tr.info = p.nodeInfo
		}
		for _, m := range junk {
			p.s.Inject(m)
		}
		if spec.Transient.Initial() {
			p.s.Fault()
			all := make([]proto.NodeID, spec.Nodes)
			for i := range all {
				all[i] = proto.NodeID(i)
			}
			p.tr.Sweep(all)
		}
		var next func(k int)
		next = func(k int) {
			if k < len(corruptions) {
				p.s.At(corruptions[k], func() {
					next(k + 1)
					p.corrDone = k + 1
					if owned != nil {
						p.corruptSplit()
					} else {
						p.tr.corrupt()
					}
				})
			}
		}
		next(0)
		p.corr = corruptions
	}
	for k := range p.ctl.Crashes() {
		p.s.At(p.ctl.Fault(k).At, func() { p.crash(k) })
	}
	p.s.At(until, func() {}) // a boundary at the workload's end
	if period := p.ctl.Period(); period > 0 {
		p.nextTick = period
		p.s.At(period, p.tick)
	}
	p.sequential = spec.Workload == "sequential"
	if p.sequential {
		p.drv.Hold() // the first request starts at the first boundary
	} else {
		p.drv.Start()
	}
	return p
}

// hosted lists the nodes the part hosts.
func (p *Part) hosted() []proto.NodeID {
	out := hugepage.MakeCap[proto.NodeID](len(p.nodes))
	for i := range p.nodes {
		if p.owned == nil || p.owned[i] {
			out = append(out, proto.NodeID(i))
		}
	}
	return out
}

// failures returns the crashes injected so far: the controller's count,
// the same in every part of a split run.
func (p *Part) failures() int { return p.tally.Crashes }

// requested books a request when its EnterCS input is stepped.
func (p *Part) requested(id proto.NodeID, tag uint32) {
	if p.drv.Requested(id, tag) {
		p.tags = append(p.tags, tag)
	}
}

func (p *Part) entered(id proto.NodeID, tag uint32) {
	if p.repair != nil {
		p.repair.entered(id)
		return
	}
	if p.tr != nil && p.tr.Entered(id, tag) {
		return
	}
	if p.mirrored {
		p.s.LogEntered() // the mirror counts it
	} else if p.ell > 0 && p.s.Stab().Legit {
		p.entriesStable++
	}
	now := p.s.Now()
	p.tally.Entered(now)
	p.open[id] = len(p.stays)
	p.stays = append(p.stays, workload.Stay{Node: id, Issued: p.drv.IssuedAt(id), Enter: now, Key: p.s.CurrentKey(), Units: p.s.NodeUnits(id)})
	p.drv.Entered(id, tag)
}

// exited closes node id's stay (OnExit).
func (p *Part) exited(id proto.NodeID, crashed bool) {
	if k := p.open[id]; k >= 0 {
		p.stays[k].Out, p.stays[k].Crashed = p.s.Now(), crashed
		p.open[id] = -1
	}
}

func (p *Part) crashed(id proto.NodeID) {
	p.exited(id, true)
	p.drv.Crashed(id)
}

// crash is the controller's call that injects crash k of the plan.
func (p *Part) crash(k int) {
	victim := p.ctl.Crash(k, p.snap.Candidates, p.snap.TokenDest)
	if victim == proto.Nil {
		return
	}
	f := p.ctl.Fault(k)
	power := -1
	if p.owned == nil || p.owned[victim] {
		t, _ := proto.TreeOf(p.nodes[victim])
		power = hypercube.PowerWith(int(victim), int(t.Father), p.pmax)
	}
	p.victims = append(p.victims, power)
	p.tally.Crashed(p.s.Now())
	p.s.Input(0, victim, proto.Crash, 0)
	if f.Up >= 0 {
		p.s.After(f.Up-f.At, func() {
			p.tally.Recoveries++
			p.ctl.Recovered(victim)
			p.s.Input(0, victim, proto.Recover, 0)
		})
	}
	if p.report != nil {
		p.report(false)
	}
}

// tick is the watchdog's call: the controller's Tick on the snapshot.
func (p *Part) tick() {
	if p.ctl.Over() || p.stopped() {
		return
	}
	period := p.ctl.Period()
	p.nextTick = p.s.Now() + period
	o := p.observation()
	if why := p.ctl.Tick(&o, p.s.Now(), !p.selfStab || p.stab().Legit); why != "" {
		p.stuck = why
		p.s.Stop()
		return
	}
	p.s.After(period, p.tick)
}

// observation is the controller's workload.Observation of the snapshot.
func (p *Part) observation() workload.Observation {
	sn, d := &p.snap, p.drv
	more := d.SequentialMore() // sequential: the controller's count
	if d.PerNode() {
		more = sn.QuotaLeft > 0
	}
	return workload.Observation{Issued: sn.Issued, Served: sn.Served, Abandoned: sn.Abandoned, Busy: sn.Busy,
		Quiet: sn.InFlight == 0 && sn.InCS == 0, Pending: p.sequential && d.Pending(), More: more,
		WaitingSince: sn.WaitingSince, Waiting: sn.Waiting}
}

// stopped reports whether the run is over: stopped, or a violation.
func (p *Part) stopped() bool { return p.s.Stopped() }

// capHint is the capacity to give a slice that gets an element per
// request of a run of requests: at most 2^20, an estimate that spares
// the copies of growing a slice one append at a time.
func capHint(requests int64) int { return int(min(requests, 1<<20)) }

// ownReport returns this part's report at a boundary (before it accepts the
// messages of the others): what snapshot adds up.
func (p *Part) ownReport() snapshot {
	var r snapshot
	p.reportTo(&r)
	return r
}

// reportTo writes this part's report at a boundary into *r, reusing the
// array of r.Candidates. It writes every field, one by one: a snapshot
// literal assigned to *r costs as much again as the rest of a boundary
// (TestReportTo checks that no field is left out).
func (p *Part) reportTo(r *snapshot) {
	s := p.s
	r.Next, r.Waiting, r.WaitingSince, r.TokenDest, r.tokenAt = s.Next(), proto.Nil, math.Inf(1), proto.Nil, sim.Mark{}
	r.Storm, r.Candidates, r.Halted = s.Stats.Storm, r.Candidates[:0], 0
	r.Reissues, r.Flight, r.Nodes = nil, nil, nil // set below only in a split self-stabilizing run
	if p.stopped() {
		r.Halted = 1
	}
	r.InFlight, r.InCS, r.Holders, r.Tokens = s.Counts()
	r.Issued, r.Served, r.Abandoned = p.drv.Issued(), p.drv.Served(), p.drv.Abandoned()
	r.QuotaLeft, r.Busy = p.drv.QuotaLeft(), p.drv.Busy()
	r.Steps = s.Stats.Steps
	if period := p.ctl.Period(); period > 0 && p.nextTick == s.NextControl() {
		r.WaitingSince, r.Waiting = p.drv.WaitingAt(p.nextTick - period) // for the watchdog's tick
	}
	for k := range s.Outbox {
		m := &s.Outbox[k]
		r.Next = min(r.Next, m.T)
		r.InFlight++
		if s.IsToken(m.Msg.Type) {
			r.Tokens++
		}
	}
	p.world = p.ctl.TargetedDue(s.NextControl())
	if p.owned != nil && p.tr != nil {
		due := p.tr.dueAt(s.NextControl())
		for _, id := range due {
			if p.owned[id] {
				r.Reissues = append(r.Reissues, reissueAnswer{Node: id, Waiting: p.drv.Waiting(id), Tag: p.drv.RequestTag(id)})
			}
		}
		p.world = p.world || len(due) > 0
		if p.corrDone < len(p.corr) && p.corr[p.corrDone] == s.NextControl() {
			r.Flight = s.InFlightRemotes()
			for _, id := range p.hosted() {
				r.Nodes = append(r.Nodes, nodeWorkload{Node: id, FaultCS: p.tr.faultCS[id], InCS: p.drv.InCS(id), Waiting: p.drv.Waiting(id), Tag: p.drv.RequestTag(id)})
			}
			p.world = true
		}
	}
	if p.world {
		for _, id := range p.hosted() {
			if faults.IsTarget(p.spec.Faults.Target, int(id), p.nodes[id], p.tally.Crashes, p.pmax) {
				r.Candidates = append(r.Candidates, id)
			}
		}
		if at, to, ok := s.FirstToken(); ok {
			r.tokenAt, r.TokenDest = at, to
		}
	}
}

// Add adds another part's report to r.
func (r *snapshot) Add(o *snapshot) {
	r.Next = min(r.Next, o.Next)
	r.InFlight += o.InFlight
	r.InCS += o.InCS
	r.Holders += o.Holders
	r.Tokens += o.Tokens
	r.Issued += o.Issued
	r.Served += o.Served
	r.Abandoned += o.Abandoned
	r.QuotaLeft += o.QuotaLeft
	r.Busy += o.Busy
	r.Steps += o.Steps
	r.WaitingSince = min(r.WaitingSince, o.WaitingSince)
	if o.Waiting != proto.Nil && (r.Waiting == proto.Nil || o.Waiting < r.Waiting) {
		r.Waiting = o.Waiting
	}
	if r.Storm == "" {
		r.Storm = o.Storm
	}
	r.Halted += o.Halted
	r.AddWorld(o)
}

// AddWorld adds another part's world view (appendWorld) to r.
func (r *snapshot) AddWorld(o *snapshot) {
	r.Candidates = append(r.Candidates, o.Candidates...)
	r.Reissues = append(r.Reissues, o.Reissues...)
	r.Flight = append(r.Flight, o.Flight...)
	r.Nodes = append(r.Nodes, o.Nodes...)
	if o.TokenDest != proto.Nil && (r.TokenDest == proto.Nil || o.tokenAt.Before(r.tokenAt)) {
		r.TokenDest, r.tokenAt = o.TokenDest, o.tokenAt
	}
}

// boundaryAt gives the part the run's snapshot at the boundary (its
// parts' reports added up, Candidates in any order), and the controller
// observes it. It returns the start of the next window (+Inf: the run is
// over).
func (p *Part) boundaryAt(snap snapshot) float64 {
	p.snap = snap
	return p.boundary()
}

// boundary is boundaryAt on the snapshot in p.snap.
func (p *Part) boundary() float64 {
	snap := &p.snap
	if len(snap.Candidates) > 1 {
		slices.Sort(snap.Candidates)
	}
	if snap.Halted > 0 {
		p.s.Stop() // another part's violation ends the run everywhere
	}
	p.observe()
	if p.stopped() {
		return math.Inf(1)
	}
	next := min(snap.Next, p.s.NextControl(), p.s.ControlInputs())
	p.needLegit = p.mirrored && p.s.NextControl() == next
	return next
}

// reissue is the hosting part's answer for node id's re-issue, from the
// snapshot (InventedCS.shared).
func (p *Part) reissue(id proto.NodeID) (bool, uint32) {
	for _, r := range p.snap.Reissues {
		if r.Node == id {
			return r.Waiting, r.Tag
		}
	}
	return false, 0
}

// nodeInfo is the hosting part's node id's workload, from the snapshot
// (InventedCS.info).
func (p *Part) nodeInfo(id proto.NodeID) nodeWorkload {
	for _, x := range p.snap.Nodes {
		if x.Node == id {
			return x
		}
	}
	return nodeWorkload{Node: id}
}

// stab is the run's stabilization as the controller sees it: the
// simulator's, or in a split run the mirror's (whose verdict the other
// parts get by setLegit; they know when the faults struck, not why the
// predicate fails).
func (p *Part) stab() sim.Stab {
	if p.mir != nil {
		return p.mir.stab
	}
	st := p.s.Stab()
	if p.mirrored {
		st.Legit = p.legitNow
	}
	return st
}

// isMirrored reports whether the part logs its steps for a mirror (a split
// run of a self-stabilizing algorithm): RunParts then carries every
// part's log (takeLog) to the part that keeps the mirror (keepsMirror),
// which replays it (replayLogs) at each boundary before boundaryAt; and when
// needsLegit says so, it gives every part the mirror's verdict (legit,
// setLegit) before the next window.
func (p *Part) isMirrored() bool { return p.mirrored }

// keepsMirror reports whether this part keeps the run's mirror.
func (p *Part) keepsMirror() bool { return p.mir != nil }

// takeLog returns the part's log since the last call (sim.Config.Mirrored)
// and empties it.
func (p *Part) takeLog() []sim.LogEntry {
	out := p.s.Log
	p.s.Log = nil
	return out
}

// replayLogs replays one window of the run in the mirror: every part's log
// of it, this part's included, in any order.
func (p *Part) replayLogs(logs []sim.LogEntry) error { return p.mir.replay(logs) }

// needsLegit reports whether the next window starts with a controller
// call (valid after boundaryAt): a mirrored run's parts need the mirror's
// verdict before it.
func (p *Part) needsLegit() bool { return p.needLegit }

// legit returns the mirror's verdict: whether the run is legitimate.
func (p *Part) legit() bool { return p.mir != nil && p.mir.stab.Legit }

// setLegit gives the part the mirror's verdict.
func (p *Part) setLegit(legit bool) { p.legitNow = legit }

// mirrorTrace returns the trace lines of the whole run that the mirror
// wrote (faults, the messages they inject, legitimacy) and their
// segments, for sim.MergeTraces beside the parts' traces (last: at equal
// marks its lines follow a step's), after End.
func (p *Part) mirrorTrace() ([]byte, []sim.Segment) {
	if p.mir == nil || p.mir.trace == nil {
		return nil, nil
	}
	return p.mir.buf.Bytes(), p.mir.segs
}

// observe is the controller at a boundary.
func (p *Part) observe() {
	s, sn, now := p.s, &p.snap, p.s.Now()
	if p.over == "" && (sn.Steps >= p.limit.steps || now > p.limit.virtual || s.Stats.OverBudget) {
		what := fmt.Sprintf("%d steps", sn.Steps)
		if now > p.limit.virtual {
			what = fmt.Sprintf("a virtual time of %.6gs", now)
		}
		p.over = fmt.Sprintf("the run reached %s, the end of its budget (%d steps and %.6gs of virtual time: %d× what its workload and fault plan need), at t=%.6fs",
			what, p.limit.steps, p.limit.virtual, budgetSlack, now)
		s.Stop()
		return
	}
	if sn.Storm != "" && p.stuck == "" {
		p.stuck = fmt.Sprintf("%s (seed %d)", sn.Storm, p.spec.Seed)
		s.Stop()
		return
	}
	if p.owned != nil {
		p.checkBoundary()
		if p.stopped() {
			return
		}
	}
	if p.report != nil && sn.Served-p.lastReported >= ProgressEvery {
		p.lastReported = sn.Served
		p.report(false)
	}
	o := p.observation()
	if p.repair != nil {
		if o.Quiet {
			p.repair.quiet()
		}
		return
	}
	if p.ctl.Turn(&o) {
		p.drv.Release()
	}
	if p.ctl.WorkloadOver(&o, now) {
		p.finish()
	}
}

// checkBoundary checks the whole run's critical sections and tokens at a
// boundary: what a part's steps cannot see.
func (p *Part) checkBoundary() {
	sn := &p.snap
	if p.spec.LateFraction > 0 {
		return
	}
	fam := p.family
	if mutex := (safety.Mutex{}); fam != proto.KExclusion && mutex.Broken(int(sn.InCS)) {
		p.s.Fail("%s at t=%.6fs", mutex.What(int(sn.InCS)), p.s.Now())
		return
	}
	token := safety.Token{} // without crashes: with crashes, a token's life needs the nodes' generations
	if t := int(sn.Holders + sn.Tokens); fam == proto.TokenBased && p.spec.Faults.Crashes == 0 && token.Broken(t) {
		p.s.Fail("%s at t=%.6fs", token.What(t, int(sn.Holders), int(sn.Tokens)), p.s.Now())
	}
}

// finish is the controller once the workload is over.
func (p *Part) finish() {
	s := p.s
	if p.spec.Repair && p.spec.Faults.Crashes > 0 {
		p.repair = &repairPass{s: s, n: p.spec.Nodes, cs: p.spec.CSTime * p.spec.Delta, wait: true}
		s.After(p.settle, p.repair.next)
		return
	}
	if p.selfStab {
		// The run never goes quiet (a self-stabilizing algorithm's rounds
		// go on for ever): stop once legitimate.
		s.After(p.settle, func() { awaitLegitimate(s, p.stab, p.spec, &p.stuck) })
		return
	}
	// Let the last messages land (a lent token going back), then stop:
	// stale timers of the failure protocol may still be pending.
	s.After(p.settle, s.Stop)
}

// simulate runs one simulation of plan, within its budget.
func simulate(plan *Plan) *outcome {
	_, o := simulated(plan, nil)
	return o
}

// simulated runs one simulation of plan, within its budget, reporting
// its progress to report (nil: the spec's Progress), and returns the
// part's result and the run's outcome.
func simulated(plan *Plan, report func(p *Part, done bool)) (*Result, *outcome) {
	spec := plan.Spec
	p := newPart(plan, nil, spec.Trace)
	if report != nil {
		p.report = func(done bool) { report(p, done) }
	}
	err := p.Drive()
	res := p.Result(err)
	o := merge(plan, []*Result{res})
	o.stab = p.s.Stab()
	if p.repair != nil && o.err == nil && o.stuck == "" {
		if !p.repair.done {
			o.stuck = fmt.Sprintf("the repair pass after the run did not complete (node %d, seed %d)", p.repair.i, spec.Seed)
		} else {
			o.shape = p.repair.shape
		}
	}
	return res, o
}

// Drive runs a run of one part (the simulator) to its end: at every
// boundary, boundaryAt(ownReport()), the report written in place, but at an
// idle one, where that would change nothing (sim.Windows goes on).
func (p *Part) Drive() error {
	p.reportTo(&p.snap)
	next := p.boundary()
	idle := p.idle
	for !math.IsInf(next, 1) {
		p.s.Windows(next, p.width, idle)
		p.reportTo(&p.snap)
		next = p.boundary()
	}
	return p.end()
}

// idle reports whether the boundary at the end of the window just run, in
// a run of one part, is one that boundaryAt would leave as it is, as far as
// the controller's rules go: observe would find nothing to do (each case
// below answers one of its rules, conservatively; a message storm stops
// the simulator, which sim.Windows sees). The simulator adds its
// own condition (sim.Windows): the next window does not start with a
// controller call, the only reader of the snapshot between boundaries. A
// sequential run skips most of its boundaries so: those of the windows a
// request's messages cross.
func (p *Part) idle() bool {
	d, now := p.drv, p.s.Now()
	switch {
	case p.owned != nil || p.repair != nil || now > p.limit.virtual || p.s.Stats.Steps >= p.limit.steps:
		return false
	case p.report != nil && d.Served()-p.lastReported >= ProgressEvery:
		return false // a progress report
	case p.sequential && d.Pending() && d.Busy() == 0:
		return false // the next request may be due
	case p.ctl.Ending(&workload.Observation{Issued: d.Issued(), Served: d.Served(), Abandoned: d.Abandoned()}, now):
		return false // the workload may be over
	}
	if verifyIdle {
		p.checkIdle(p.s.Next()) // where sim.Windows starts the next window
	}
	return true
}

// verifyIdle, set by tests, makes Drive check every boundary it skips: it
// runs boundaryAt there all the same, which must change nothing.
var verifyIdle bool

// checkIdle runs the boundary that idle said Drive may skip, where
// sim.Windows starts the next window at next, and panics if it did
// anything. The boundary may also start it in the past, at an input the
// controller scheduled in the window just run (sim.ControlInputs): that
// window is empty, ends now, and its boundary sees this one's state.
func (p *Part) checkIdle(next float64) {
	type state struct {
		over, stuck     string
		done, pending   bool
		stopped         bool
		reported        int64
		control, inputs float64
	}
	now := func() state {
		return state{p.over, p.stuck, p.ctl.Over(), p.drv.Pending(), p.stopped(), p.lastReported, p.s.NextControl(), p.s.ControlInputs()}
	}
	before := now()
	p.reportTo(&p.snap)
	if got := p.boundary(); got != next && got > p.s.Now() || now() != before {
		panic(fmt.Sprintf("bench: a boundary Drive skipped at t=%.9gs (seed %d) was not idle: next window at %v, not %v; state %+v, not %+v",
			p.s.Now(), p.spec.Seed, got, next, now(), before))
	}
}

// window runs the part's next window from start (boundaryAt's result).
func (p *Part) window(start float64) { p.s.Window(start, p.width) }

// end ends the part's run (sim.End).
func (p *Part) end() error {
	if p.report != nil {
		p.report(true)
	}
	err := p.s.End()
	if p.mir != nil {
		if e := p.mir.end(p.s.Now()); err == nil {
			err = e
		}
	}
	return err
}

// Result is what one part of a run counted, for the record: assembleParts
// adds up the parts' results, by the rule in each field's `merge` tag
// (results.SumCounts; the custom ones by hand, in merge). Every field is
// exported, for a runtime that sends it to the process that assembles the
// record (encoding/gob).
type Result struct {
	Stats          sim.Stats       `merge:"custom"` // Stats.Add; the controller's crashes and recoveries, once
	Now, Until     float64         `merge:"same"`
	Issued, Served int64           `merge:"sum"`
	Stays          []workload.Stay `merge:"custom"` // the stays in the critical section that ended
	Tags           []uint32        `merge:"append"` // the requests booked
	Victims        []int           `merge:"custom"` // the power of each crash's victim (-1: another part's)
	Notes          []sim.Note      `merge:"custom"` // sim.MergeNotes
	Stuck          string          `merge:"first"`
	// Violation is the part's invariant violation, if any.
	Violation *sim.Violation `merge:"first"`
	// Err is the part's other error ("" if none); the last one is the
	// run's.
	Err string `merge:"custom"`
	// Views are the hosted nodes' views at the end (a run with crashes of
	// an algorithm with end-of-run invariants: proto.AtEnd).
	Views []FrozenNode `merge:"append"`
	// EntriesStable counts the entries after stabilization (k-exclusion).
	EntriesStable int64 `merge:"sum"`
	// Invented counts the critical sections transient faults invented at
	// the hosted nodes.
	Invented int64 `merge:"sum"`
	// Stab is the run's stabilization, from the part that keeps the
	// mirror of a split self-stabilizing run (nil from the others, and
	// from the simulator, whose outcome reads its own).
	Stab *sim.Stab `merge:"custom"`
}

// FrozenNode is a node's view at the end of a run, which the end-of-run
// invariants read (proto.AtEnd): a proto.Node that does nothing.
type FrozenNode struct {
	ID proto.NodeID
	V  proto.View
	T  proto.TreeView
}

// Step does nothing: a frozen node takes no more steps.
func (f *FrozenNode) Step(proto.Input, *proto.Output) {}

// View returns the node's view at the end.
func (f *FrozenNode) View() proto.View { return f.V }

// Waiting calls f for no one.
func (f *FrozenNode) Waiting(func(proto.NodeID)) {}

// Tree returns the node's token-tree state (proto.TreeNode).
func (f *FrozenNode) Tree() proto.TreeView { return f.T }

// frozen is the system of frozen nodes that the end-of-run invariants read.
type frozen []proto.Node

func (s frozen) Nodes() []proto.Node                  { return s }
func (s frozen) ForEachInFlight(func(*proto.Message)) {}
func (s frozen) Down(id proto.NodeID) bool            { return !s[id].View().Up }

// Result returns the part's result, once its run is over (End).
func (p *Part) Result(err error) *Result {
	s := p.s
	r := &Result{Stats: s.Stats, Now: s.Now(), Until: p.until, Issued: p.drv.Issued(), Served: p.drv.Served(),
		Tags: p.tags, Victims: p.victims, Notes: s.Notes, Stuck: p.stuck,
		EntriesStable: p.entriesStable}
	if p.tr != nil {
		r.Invented = p.tr.Invented()
	}
	if p.mir != nil {
		stab := p.mir.stab
		r.Stab, r.EntriesStable = &stab, p.mir.entriesStable
		if r.Violation == nil && p.mir.err != nil && err == nil {
			err = p.mir.err
		}
	}
	st := &r.Stats
	st.PerTag = slices.Clone(st.PerTag)
	st.Abandoned = p.drv.Abandoned()
	st.Waits = make([]float64, len(p.drv.Waits()))
	for k, w := range p.drv.Waits() {
		st.Waits[k] = w / p.spec.Delta
	}
	// The stays that ended, compacted in place: the part is over. The
	// open ones are found from the nodes (p.open, in one pass), not by
	// looking each stay's node up.
	var open []int
	for _, k := range p.open {
		if k >= 0 {
			open = append(open, k)
		}
	}
	slices.Sort(open)
	r.Stays = p.stays[:0]
	for k, x := range p.stays {
		if len(open) > 0 && open[0] == k {
			open = open[1:]
			continue
		}
		r.Stays = append(r.Stays, x)
	}
	p.stays = nil
	if p.over != "" && r.Stuck == "" {
		r.Stuck = fmt.Sprintf("%s: %d of %d requests served, %d waiting (seed %d)",
			p.over, p.snap.Served, p.snap.Issued, p.snap.Issued-p.snap.Served-p.snap.Abandoned, p.spec.Seed)
	}
	if !errors.As(err, &r.Violation) && err != nil {
		r.Err = err.Error()
	}
	if p.spec.Faults.Crashes > 0 && p.res.atEnd {
		for _, id := range p.hosted() {
			t, _ := proto.TreeOf(p.nodes[id])
			r.Views = append(r.Views, FrozenNode{ID: id, V: p.nodes[id].View(), T: t})
		}
	}
	return r
}

// merge adds up the results of a run's parts into its outcome: the counts,
// the stays in entry order, the failure detector's verdicts, the waits in
// increasing order and the synchronization delays (in δ).
func merge(plan *Plan, parts []*Result) *outcome {
	spec := plan.Spec
	p0 := parts[0]
	sum := results.SumCounts(parts)
	o := &outcome{plan: plan, now: sum.Now, until: sum.Until, stuck: sum.Stuck, stab: sim.Stab{Legit: true},
		issued: sum.Issued, served: sum.Served, tags: sum.Tags,
		entriesStable: sum.EntriesStable, invented: sum.Invented}
	if sum.Violation != nil {
		o.err = sum.Violation
	}
	st := &o.stats
	for _, t := range p0.Stats.CrashTimes {
		st.Crashed(t)
	}
	st.Recoveries = p0.Stats.Recoveries
	o.victimPower = make([]int, len(p0.Victims))
	for k := range o.victimPower {
		o.victimPower[k] = -1
	}
	var notes [][]sim.Note
	for _, r := range parts {
		s := r.Stats
		s.Recoveries = 0 // the controller's: counted once
		st.Add(&s)
		if o.stays == nil {
			o.stays = r.Stays // one part (the simulator): no copy
		} else {
			o.stays = append(o.stays, r.Stays...)
		}
		if r.Stab != nil {
			o.stab = *r.Stab
		}
		for k, v := range r.Victims {
			if k < len(o.victimPower) {
				o.victimPower[k] = max(o.victimPower[k], v)
			}
		}
		notes = append(notes, r.Notes)
		if r.Err != "" {
			o.err = errors.New(r.Err)
		}
	}
	byEntry := func(a, b workload.Stay) int {
		switch {
		case (sim.Mark{T: a.Enter, Key: a.Key}).Before(sim.Mark{T: b.Enter, Key: b.Key}):
			return -1
		case (sim.Mark{T: b.Enter, Key: b.Key}).Before(sim.Mark{T: a.Enter, Key: a.Key}):
			return 1
		}
		return 0
	}
	if !slices.IsSortedFunc(o.stays, byEntry) { // one part's are in run order
		slices.SortStableFunc(o.stays, byEntry)
	}
	o.falses, o.firstFalse = sim.JudgeNotes(spec.Nodes, spec.Delta, sim.MergeNotes(notes...))
	st.Waits = slices.Clone(st.Waits)
	floatsort.Sort(st.Waits) // Summarize sums them in this order, the same in every runtime
	for _, x := range workload.SyncDelaysOf(o.stays) {
		st.Sync = append(st.Sync, x/spec.Delta)
	}
	if o.err == nil && o.stuck == "" && spec.Faults.Crashes > 0 && !spec.Repair {
		o.openCubeAtEnd = true
		if plan.atEnd {
			sys := make(frozen, spec.Nodes)
			for k := range sum.Views {
				sys[sum.Views[k].ID] = &sum.Views[k]
			}
			for _, inv := range plan.invariants {
				if inv.When == proto.AtEnd && inv.Check(sys) != nil {
					o.openCubeAtEnd = false
				}
			}
		}
	}
	return o
}

// pendingEvents is the events a part of spec holds at once, as far as its
// size goes (sim.Config.Pending): a workload that runs per node keeps an
// event per hosted node in the queue (its think time or its request);
// the sequential workload keeps a few, which need no reservation.
func pendingEvents(spec Spec, owned []bool) int {
	if spec.Workload == workload.Sequential {
		return 0
	}
	if owned == nil {
		return spec.Nodes + 64
	}
	hosted := 64
	for _, o := range owned {
		if o {
			hosted++
		}
	}
	return hosted
}
