package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/sim"
)

// A run split into parts goes window by window: every part runs its
// window from the same start; at the boundary every part gives the others
// its messages for their nodes and its report, every part adds up the
// same reports into the same snapshot and its controller observes it,
// which gives the next window's start. At the end the parts' results make
// the record. RunParts is that loop, the only one: a runtime brings an
// Exchange, the few collective operations that carry a boundary between
// its processes, and nothing else of the protocol. Local is the exchange
// of one process (RunSplit); rank's MPI exchange carries the boundaries
// between the ranks of an MPI job. The simulator is the case of one part
// (Part.Drive), which skips the boundaries where nothing happens.

// Exchange carries a split run's boundaries between the processes that
// host its parts: part j of every run is hosted by process j mod n (n,
// the number of processes, at most the number of parts of each run). Every
// process calls the same methods in the same order (they are collective),
// and every method returns only once every process has called it.
type Exchange interface {
	// Processes returns the number of processes and this one's index.
	Processes() (n, me int)
	// Swap is a window boundary: it gives process q the parcels out[q]
	// (out[me] is empty), adds up vec over the processes (the first nsum
	// elements summed, the others their minimum, alike in every process),
	// and returns the parcels the others gave this process, in any order,
	// and the total. Once per boundary. out is the caller's again when
	// Swap returns; the parcels' messages and logs are the receiver's.
	Swap(out [][]Parcel, vec []int64, nsum int) (in []Parcel, total []int64, err error)
	// Reduce adds up vec over the processes as Swap does, without parcels
	// (the verdict of a self-stabilizing run's mirror, at the boundaries
	// before a controller call).
	Reduce(vec []int64, nsum int) ([]int64, error)
	// AllGather returns every process's b, in process order (the world
	// view a targeted crash needs, at the boundary before it).
	AllGather(b []byte) ([][]byte, error)
	// Gather returns every process's endings to process 0, in any order
	// (nil to the others), once, at the end.
	Gather(mine []Ending) ([]Ending, error)
}

// Parcel is what one process's parts of a run give another process at a
// boundary: messages for the nodes its parts host, and a self-stabilizing
// run's log for the part that keeps the run's mirror (the one that hosts
// node 0).
type Parcel struct {
	// Run is the run's index: 2k for the run of spec k, 2k+1 for its
	// crash-free baseline.
	Run  int
	Msgs []sim.Remote
	Log  []sim.LogEntry
}

// Ending is what one part gives at the end of a run, for its record.
type Ending struct {
	Run, Part int // Parcel.Run, and the part's index
	Result    *Result
	// Trace and Segments are the part's trace (a traced run), and
	// MirrorTrace and MirrorSegments the mirror's (the part that keeps it).
	Trace          []byte
	Segments       []sim.Segment
	MirrorTrace    []byte
	MirrorSegments []sim.Segment
}

// Local is the exchange of one process (RunSplit): every part of every run
// is this process's, so a boundary carries nothing between processes.
type Local struct{}

// Processes returns 1 and 0.
func (Local) Processes() (int, int) { return 1, 0 }

// Swap returns no parcels and vec.
func (Local) Swap(_ [][]Parcel, vec []int64, _ int) ([]Parcel, []int64, error) { return nil, vec, nil }

// Reduce returns vec.
func (Local) Reduce(vec []int64, _ int) ([]int64, error) { return vec, nil }

// AllGather returns b alone.
func (Local) AllGather(b []byte) ([][]byte, error) { return [][]byte{b}, nil }

// Gather returns mine.
func (Local) Gather(mine []Ending) ([]Ending, error) { return mine, nil }

// split is one run of RunParts: this process's parts of it.
type split struct {
	plan   *Plan
	spec   Spec
	owner  []int   // the part of each node
	parts  []*Part // this process's parts, by index (nil: another's)
	local  []int   // the indices of this process's parts
	keeper int     // the part that keeps a mirrored run's mirror
	next   float64 // the start of the next window (+Inf: over)
	traces []*bytes.Buffer
	logs   []sim.LogEntry // the window's logs, at the keeper's process
	rep    snapshot       // this process's parts' reports added up
	snap   snapshot
}

// RunParts runs plans (Splittable) at once, each with its crash-free
// baseline beside it (NeedsBaseline), as parts hosted by the processes of
// ex: node i of the run of plan k by part owners[k][i]. Every process
// calls it with the same plans and owners; process 0 gets the records, in
// the order of plans, the others nil. All runs advance window by window
// together: one Swap per boundary, whatever their number.
func RunParts(ex Exchange, plans []*Plan, owners [][]int) ([]*results.Run, error) {
	n, me := ex.Processes()
	switch {
	case len(plans) == 0:
		return nil, errors.New("split: no spec to run")
	case len(owners) != len(plans):
		return nil, fmt.Errorf("split: %d placements for %d specs", len(owners), len(plans))
	}
	if n == 1 && !slices.ContainsFunc(owners, func(o []int) bool { return slices.ContainsFunc(o, func(j int) bool { return j != 0 }) }) {
		for _, p := range plans {
			if err := Splittable(p.Spec); err != nil {
				return nil, err
			}
		}
		return runAlone(ex, plans)
	}
	runs := make([]*split, 2*len(plans))
	add := func(r int, plan *Plan, owner []int) error {
		spec := plan.Spec
		if len(owner) != spec.Nodes {
			return fmt.Errorf("split: %d owners for %d nodes", len(owner), spec.Nodes)
		}
		np := slices.Max(owner) + 1
		if slices.Min(owner) < 0 || np < n {
			return fmt.Errorf("split: parts 0 to %d for %d processes", np-1, n)
		}
		x := &split{plan: plan, spec: spec, owner: owner, parts: make([]*Part, np), traces: make([]*bytes.Buffer, np), keeper: owner[0]}
		for j := me; j < np; j += n {
			owned := make([]bool, spec.Nodes)
			for i, o := range owner {
				owned[i] = o == j
			}
			var tw io.Writer // nil, not a nil *bytes.Buffer, without a trace
			if spec.Trace != nil {
				x.traces[j] = &bytes.Buffer{}
				tw = x.traces[j]
			}
			p := newPart(plan, owned, tw)
			if p.mirrored && j == x.keeper {
				p.mir = newMirror(plan, p.ell, tw != nil)
			}
			x.parts[j] = p
			x.local = append(x.local, j)
		}
		runs[r] = x
		return nil
	}
	for k, p := range plans {
		if err := Splittable(p.Spec); err != nil {
			return nil, err
		}
		if err := add(2*k, p, owners[k]); err != nil {
			return nil, err
		}
		if NeedsBaseline(p.Spec) {
			if err := add(2*k+1, p.Baseline(), owners[k]); err != nil {
				return nil, err
			}
		}
	}
	d := &driver{ex: ex, n: n, me: me, runs: runs, out: make([][]Parcel, n)}
	if err := d.loop(); err != nil {
		return nil, err
	}
	return d.end()
}

// runAlone is RunParts for one process whose runs are each one part: it
// has no boundary to carry, so each run goes in the simulator (Part.Drive,
// which skips the idle boundaries), and its crash-free baseline after it
// when the simulator's runs one (Run). Process 0 still gathers the parts'
// endings (the exchange's measure of the job).
func runAlone(ex Exchange, plans []*Plan) ([]*results.Run, error) {
	var mine []Ending
	type done struct{ o, bo *outcome }
	outs := make([]done, len(plans))
	var pr Progress // the runs before the current one
	report := plans[0].Spec.Progress
	for k, plan := range plans {
		pr.Runs++
		pr.Requests += plan.Spec.Requests
		pr.FailuresPlanned += plan.Spec.Faults.Crashes
		var progress func(p *Part, done bool)
		if report != nil {
			progress = func(p *Part, done bool) {
				now := pr
				now.Served, now.Issued = pr.Served+p.snap.Served, pr.Issued+p.snap.Issued
				now.Failures += p.tally.Crashes
				now.Virtual = max(pr.Virtual, p.s.Now())
				if done {
					pr.Served, pr.Issued, pr.Failures, pr.Virtual = now.Served, now.Issued, now.Failures, now.Virtual
				}
				now.Done = done && k == len(plans)-1
				report(now)
			}
		}
		res, o := simulated(plan, progress)
		mine = append(mine, Ending{Run: 2 * k, Result: res})
		var v *sim.Violation
		if NeedsBaseline(plan.Spec) && o.stats.Crashes > 0 && (o.err == nil || errors.As(o.err, &v)) {
			bres, bo := simulated(plan.Baseline(), nil)
			mine = append(mine, Ending{Run: 2*k + 1, Result: bres})
			outs[k].bo = bo
		}
		outs[k].o = o
	}
	if _, err := ex.Gather(mine); err != nil {
		return nil, fmt.Errorf("split: gathering the parts' results: %w", err)
	}
	recs := make([]*results.Run, len(plans))
	for k, plan := range plans {
		var err error
		if recs[k], err = assemble(plan, outs[k].o, outs[k].bo); err != nil {
			return nil, err
		}
	}
	return recs, nil
}

// driver is RunParts's loop over its runs.
type driver struct {
	ex      Exchange
	n, me   int
	runs    []*split // nil: a baseline not run
	out     [][]Parcel
	windows int64
	// progressAt is when the progress was last reported.
	progressAt time.Time
}

// loop advances every run window by window until all are over.
func (d *driver) loop() error {
	more, err := d.boundary()
	for err == nil && more {
		for _, x := range d.runs {
			if x != nil && !math.IsInf(x.next, 1) {
				for _, j := range x.local {
					x.parts[j].window(x.next)
				}
			}
		}
		more, err = d.boundary()
	}
	return err
}

// boundary is one window boundary of every run not over: the parts
// report, give their messages and logs, the exchange adds the reports up
// (and gathers the world view of a targeted crash due next), every part
// observes the same snapshot, and a mirrored run's parts get its mirror's
// verdict when the next window starts with a controller call. It reports
// whether a run goes on.
func (d *driver) boundary() (bool, error) {
	first := d.windows == 0
	var live []int
	for r, x := range d.runs {
		if x != nil && (first || !math.IsInf(x.next, 1)) {
			live = append(live, r)
		}
	}
	for q := range d.out {
		clear(d.out[q])
		d.out[q] = d.out[q][:0]
	}
	var sums, mins []int64
	var mine []Parcel // this process's parcels for itself
	world := false
	for _, r := range live {
		x := d.runs[r]
		x.rep = snapshot{Next: math.Inf(1), Waiting: proto.Nil, WaitingSince: math.Inf(1), TokenDest: proto.Nil}
		for _, j := range x.local {
			p := x.parts[j]
			rep := p.ownReport()
			x.rep.Add(&rep)
			world = world || p.needsWorld()
			if msgs := p.takeOutbox(); d.n == 1 {
				mine = append(mine, Parcel{Run: r, Msgs: msgs})
			} else {
				d.post(r, msgs)
			}
			if p.isMirrored() {
				if log := p.takeLog(); len(log) > 0 {
					if q := x.keeper % d.n; q == d.me {
						x.logs = append(x.logs, log...)
					} else {
						d.out[q] = append(d.out[q], Parcel{Run: r, Log: log})
					}
				}
			}
		}
		sums, mins = x.rep.appendVector(sums, mins)
	}
	if d.n > 1 {
		mine = append(mine, d.out[d.me]...)
		d.out[d.me] = d.out[d.me][:0]
	}
	nsum := len(sums)
	in, total, err := d.ex.Swap(d.out, append(sums, mins...), nsum)
	if err != nil {
		return false, err
	}
	d.windows++
	if len(total) != nsum+len(mins) {
		return false, fmt.Errorf("split: the exchange added up %d numbers, not %d", len(total), nsum+len(mins))
	}
	for _, ps := range [][]Parcel{mine, in} {
		for k := range ps {
			if err := d.accept(&ps[k]); err != nil {
				return false, err
			}
		}
	}
	for i, r := range live {
		x := d.runs[r]
		if x.parts[x.keeper] != nil && x.parts[x.keeper].keepsMirror() {
			if err := x.parts[x.keeper].replayLogs(x.logs); err != nil {
				return false, err
			}
			x.logs = nil // the mirror's now
		}
		x.snap, err = fromVector(total[i*reportSums:(i+1)*reportSums], total[nsum+i*reportMins:nsum+(i+1)*reportMins], &x.rep)
		if err != nil {
			return false, err
		}
	}
	if world {
		if err := d.world(live); err != nil {
			return false, err
		}
	}
	more, legit := false, false
	for _, r := range live {
		x := d.runs[r]
		for k, j := range x.local {
			next := x.parts[j].boundaryAt(x.snap)
			if k > 0 && next != x.next && !(math.IsInf(next, 1) && math.IsInf(x.next, 1)) {
				return false, fmt.Errorf("split: part %d starts its next window at %v, part %d at %v", j, next, x.local[0], x.next)
			}
			x.next = next
			legit = legit || x.parts[j].needsLegit()
		}
		more = more || !math.IsInf(x.next, 1)
	}
	if legit {
		if err := d.shareLegit(live); err != nil {
			return false, err
		}
	}
	d.progress(!more)
	return more, nil
}

// post puts run r's messages in the parcels for the processes that host
// their destinations.
func (d *driver) post(r int, msgs []sim.Remote) {
	x := d.runs[r]
	var by [][]sim.Remote
	for k := range msgs {
		q := x.owner[msgs[k].Msg.To] % d.n
		if by == nil {
			by = make([][]sim.Remote, d.n)
		}
		by[q] = append(by[q], msgs[k])
	}
	for q, ms := range by {
		if len(ms) > 0 {
			d.out[q] = append(d.out[q], Parcel{Run: r, Msgs: ms})
		}
	}
}

// accept gives a parcel's messages to the parts that host their
// destinations, and its log to the keeper of the run's mirror.
func (d *driver) accept(pc *Parcel) error {
	if pc.Run < 0 || pc.Run >= len(d.runs) || d.runs[pc.Run] == nil {
		return fmt.Errorf("split: a parcel for run %d, which this job does not run", pc.Run)
	}
	x := d.runs[pc.Run]
	for k := range pc.Msgs {
		m := &pc.Msgs[k]
		if to := int(m.Msg.To); to < 0 || to >= len(x.owner) || x.parts[x.owner[to]] == nil {
			return fmt.Errorf("split: a message for node %d, which process %d does not host", m.Msg.To, d.me)
		}
		x.parts[x.owner[m.Msg.To]].s.Accept(m)
	}
	if len(pc.Log) > 0 {
		if x.parts[x.keeper] == nil || !x.parts[x.keeper].keepsMirror() {
			return fmt.Errorf("split: a log of run %d for process %d, which does not keep its mirror", pc.Run, d.me)
		}
		x.logs = append(x.logs, pc.Log...)
	}
	return nil
}

// world adds every process's world view (candidates of a targeted crash,
// the token in flight, a transient fault's workloads) of the live runs to
// their snapshots.
func (d *driver) world(live []int) error {
	var buf []byte
	for _, r := range live {
		buf = appendWorld(buf, &d.runs[r].rep)
	}
	all, err := d.ex.AllGather(buf)
	if err != nil {
		return err
	}
	if len(all) != d.n {
		return fmt.Errorf("split: the world view of %d processes, not %d", len(all), d.n)
	}
	for q, b := range all {
		for _, r := range live {
			x := d.runs[r]
			var w snapshot
			if b, err = readWorld(b, x.spec.Nodes, &w); err != nil {
				return fmt.Errorf("split: process %d's world view: %w", q, err)
			}
			x.snap.AddWorld(&w)
		}
		if len(b) != 0 {
			return fmt.Errorf("split: process %d's world view has %d bytes too many", q, len(b))
		}
	}
	return nil
}

// shareLegit gives every part of the mirrored runs the verdict of their
// mirror: whether the run is legitimate.
func (d *driver) shareLegit(live []int) error {
	vec := make([]int64, len(d.runs))
	for _, r := range live {
		if x := d.runs[r]; x.parts[x.keeper] != nil && x.parts[x.keeper].legit() {
			vec[r] = 1
		}
	}
	res, err := d.ex.Reduce(vec, len(vec))
	if err != nil {
		return fmt.Errorf("split: sharing the legitimacy verdict: %w", err)
	}
	if len(res) != len(vec) {
		return fmt.Errorf("split: the exchange added up %d numbers, not %d", len(res), len(vec))
	}
	for _, r := range live {
		x := d.runs[r]
		for _, j := range x.local {
			x.parts[j].setLegit(res[r] > 0)
		}
	}
	return nil
}

// progress reports, at process 0, the progress of the runs (their
// baselines aside) to the first spec's Progress: requests served and
// issued as the last boundary saw them, failures injected, the latest
// virtual time; done on the last call.
func (d *driver) progress(done bool) {
	report := d.runs[0].spec.Progress
	if report == nil || d.me != 0 || !done && time.Since(d.progressAt) < 200*time.Millisecond {
		return
	}
	d.progressAt = time.Now()
	pr := Progress{Done: done}
	for r := 0; r < len(d.runs); r += 2 {
		x := d.runs[r]
		p := x.parts[x.local[0]]
		pr.Runs++
		pr.Served += x.snap.Served
		pr.Issued += x.snap.Issued
		pr.Requests += x.spec.Requests
		pr.Failures += p.failures()
		pr.FailuresPlanned += x.spec.Faults.Crashes
		pr.Virtual = max(pr.Virtual, p.s.Now())
	}
	report(pr)
}

// end ends every part, gathers their endings to process 0, which merges
// the traces and assembles the records.
func (d *driver) end() ([]*results.Run, error) {
	var mine []Ending
	for r, x := range d.runs {
		if x == nil {
			continue
		}
		for _, j := range x.local {
			p := x.parts[j]
			e := Ending{Run: r, Part: j, Result: p.Result(p.end())}
			if x.traces[j] != nil {
				e.Trace, e.Segments = x.traces[j].Bytes(), p.s.Segments
				e.MirrorTrace, e.MirrorSegments = p.mirrorTrace()
			}
			mine = append(mine, e)
		}
	}
	all, err := d.ex.Gather(mine)
	if err != nil {
		return nil, fmt.Errorf("split: gathering the parts' results: %w", err)
	}
	if d.me != 0 {
		return nil, nil
	}
	byRun := make([][]*Ending, len(d.runs))
	for r, x := range d.runs {
		if x != nil {
			byRun[r] = make([]*Ending, len(x.parts))
		}
	}
	for k := range all {
		e := &all[k]
		if e.Run < 0 || e.Run >= len(byRun) || byRun[e.Run] == nil || e.Part < 0 || e.Part >= len(byRun[e.Run]) || byRun[e.Run][e.Part] != nil || e.Result == nil {
			return nil, fmt.Errorf("split: an unexpected result of part %d of run %d", e.Part, e.Run)
		}
		byRun[e.Run][e.Part] = e
	}
	resultsOf := func(r int) ([]*Result, error) {
		out := make([]*Result, len(byRun[r]))
		for j, e := range byRun[r] {
			if e == nil {
				return nil, fmt.Errorf("split: no result of part %d of run %d", j, r)
			}
			out[j] = e.Result
		}
		return out, nil
	}
	recs := make([]*results.Run, len(d.runs)/2)
	for k := range recs {
		x := d.runs[2*k]
		if x.spec.Trace != nil {
			var bufs [][]byte
			var segs [][]sim.Segment
			for _, e := range byRun[2*k] {
				bufs, segs = append(bufs, e.Trace), append(segs, e.Segments)
			}
			for _, e := range byRun[2*k] {
				if e.MirrorSegments != nil {
					// Last: at a step's mark, its lines come first.
					bufs, segs = append(bufs, e.MirrorTrace), append(segs, e.MirrorSegments)
				}
			}
			if err := sim.MergeTraces(x.spec.Trace, bufs, segs); err != nil {
				return nil, err
			}
		}
		run, err := resultsOf(2 * k)
		if err != nil {
			return nil, err
		}
		var base []*Result
		if d.runs[2*k+1] != nil {
			if base, err = resultsOf(2*k + 1); err != nil {
				return nil, err
			}
		}
		if recs[k], err = assembleParts(x.plan, run, base); err != nil {
			return nil, err
		}
	}
	return recs, nil
}
