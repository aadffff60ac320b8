package bench

import (
	"github.com/ocbench/ocbench/internal/field"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/sim"
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

// assembleParts returns the record of a run of plan from its parts'
// results, and of its crash-free baseline from base (nil: none run).
// Violations are in the record; the error is a part's own failure.
func assembleParts(plan *Plan, run, base []*Result) (*results.Run, error) {
	o := merge(plan, run)
	var bo *outcome
	if base != nil {
		bo = merge(plan.Baseline(), base)
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
