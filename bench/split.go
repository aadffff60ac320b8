package bench

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ocbench/ocbench/internal/field"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/sim"
	"github.com/ocbench/ocbench/workload"
)

// takeOutbox returns the messages this part's nodes sent to nodes other
// parts host since the last call, and empties the outbox.
func (p *Part) takeOutbox() []sim.Remote {
	out := p.s.Outbox
	p.s.Outbox = nil
	return out
}

// hosts reports whether this part hosts node id.
func (p *Part) hosts(id proto.NodeID) bool { return p.owned == nil || p.owned[id] }

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

// merge adds up the results of a run's parts into its outcome.
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

// assembleParts returns the record of a run of plan from its parts'
// results, and of its crash-free baseline from base (nil: none run).
// Violations are in the record; the error is a part's own failure.
func assembleParts(plan *Plan, run, base []*Result) (*results.Run, error) {
	o := merge(plan, run)
	var bo *outcome
	if base != nil {
		bo = merge(plan.baseline(), base)
	}
	return assemble(plan, o, bo)
}

// Filled returns spec with its defaults filled in, and an error naming
// its first bad field.
func Filled(spec Spec) (Spec, error) {
	spec.fill()
	return spec, spec.Validate()
}

// RunSplit runs spec as parts in one process, node i hosted by part
// owner[i], through the in-memory exchange (Local): the parts exchange
// their messages and reports at every boundary as a distributed runtime's
// do, and the record is the simulator's (the test that splitting a run does
// not change it).
func RunSplit(spec Spec, owner []int) (*results.Run, error) {
	plan, err := spec.Resolve()
	if err != nil {
		return nil, err
	}
	recs, err := RunParts(Local{}, []*Plan{plan}, [][]int{owner})
	if err != nil {
		return nil, err
	}
	return recs[0], nil
}

// Splittable returns nil if a run of spec (filled) can be split into parts
// (MPI in virtual time), or an error naming the field that cannot: the
// parts see the whole run only at window boundaries.
func Splittable(spec Spec) error {
	switch {
	case spec.MinDelay < MinVirtualDelay:
		return field.Errorf("MinDelay", "%s is below %s: the parts of a run in virtual time exchange messages once per window of %sδ, so no message may take less", field.Num(spec.MinDelay), field.Num(MinVirtualDelay), field.Num(WindowWidth))
	case spec.Workload == "each":
		return field.Errorf("Workload", "each is computed in one process; run it without mpirun")
	case spec.Check == CheckFull:
		return field.Errorf("Check", "full checks read every node after every step, which only the simulator can; the parts check the critical sections and tokens at every window boundary")
	case spec.LateFraction > 0:
		return field.Errorf("LateFraction", "messages delayed beyond δ on purpose are counted by the simulator's checks after every step; run them in the simulator")
	case spec.Repair:
		return field.Errorf("Repair", "the repair pass reads every node; run it in the simulator")
	}
	return nil
}
