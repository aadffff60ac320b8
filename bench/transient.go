package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/ocbench/ocbench/internal/stream"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/sim"
	"github.com/ocbench/ocbench/workload"
)

// InventedCS keeps a workload whole across transient faults, on any
// runtime (a workload.Host): a critical section a fault invents (a node in the
// critical section that the workload did not put there, or an entry for a
// request it did not make) ends after the CS time, and a request of the
// workload that a fault wiped out is issued again.
type InventedCS struct {
	host    workload.Host
	drv     *workload.Driver
	nodes   []proto.Node
	cs      float64 // seconds
	faultCS []bool  // a fault's critical section is under way at the node
	// invented counts the critical sections faults invented.
	invented int64
	// A split run (bench.Part) shares the re-issues the controller
	// decides, after a fault's critical section, by the workload of the
	// part that hosts the node: ctlDue lists them (when, and which node);
	// shared, if not nil, returns the hosting part's answer (Waiting, the
	// request's tag), which every part then follows alike.
	ctlDue []reissue
	shared func(id proto.NodeID) (bool, uint32)
	// info, if not nil, returns the hosting part's workload of a node
	// that a corruption event scrambled (a split run).
	info func(id proto.NodeID) nodeWorkload
}

// reissue is a re-issue of node Node's request, due at At, that the
// controller decides.
type reissue struct {
	At   float64
	Node proto.NodeID
}

// NewInventedCS returns the keeper of the workload drv of the nodes on
// host, whose critical sections last cs seconds.
func NewInventedCS(host workload.Host, drv *workload.Driver, nodes []proto.Node, cs float64) *InventedCS {
	return &InventedCS{host: host, drv: drv, nodes: nodes, cs: cs, faultCS: make([]bool, len(nodes))}
}

// Invented returns the number of critical sections faults invented.
func (t *InventedCS) Invented() int64 { return t.invented }

// Sweep ends the critical sections that faults invented at the nodes ids
// (after an arbitrary initial configuration: every node a runtime hosts).
func (t *InventedCS) Sweep(ids []proto.NodeID) {
	for _, id := range ids {
		t.scrambled(id, true)
	}
}

// Scrambled is called after node id's state was scrambled.
func (t *InventedCS) Scrambled(id proto.NodeID) { t.scrambled(id, true) }

// scrambled is Scrambled; ctl says the controller calls it (every part of
// a split run alike).
func (t *InventedCS) scrambled(id proto.NodeID, ctl bool) {
	v := t.nodes[id].View()
	x := nodeWorkload{Node: id, FaultCS: t.faultCS[id], InCS: t.drv.InCS(id), Waiting: t.drv.Waiting(id), Tag: t.drv.RequestTag(id)}
	if ctl && t.info != nil {
		x = t.info(id)
	}
	switch {
	case x.FaultCS:
		// an exit is already on its way, and a re-issue after it
	case v.InCS && !x.InCS:
		t.endFaultCS(id, ctl)
	case x.Waiting:
		t.host.Input(0, id, proto.EnterCS, x.Tag)
	}
}

// endFaultCS makes node id leave the critical section a fault put it in,
// after the CS time, and then re-issues the workload's request if one
// waits; ctl says the controller calls it.
func (t *InventedCS) endFaultCS(id proto.NodeID, ctl bool) {
	t.faultCS[id] = true
	t.host.Input(t.cs, id, proto.ExitCS, 0)
	at := t.host.Now() + t.cs
	if ctl {
		t.ctlDue = append(t.ctlDue, reissue{at, id})
	}
	t.host.After(t.cs, func() {
		t.faultCS[id] = false
		waiting, tag := t.drv.Waiting(id), t.drv.RequestTag(id)
		if ctl {
			t.ctlDue = slices.DeleteFunc(t.ctlDue, func(r reissue) bool { return r.At == at && r.Node == id })
			if t.shared != nil {
				waiting, tag = t.shared(id)
			}
		}
		if waiting {
			t.host.Input(0, id, proto.EnterCS, tag)
		}
	})
}

// dueAt returns the nodes whose re-issue, decided by the controller, is
// due at time at.
func (t *InventedCS) dueAt(at float64) []proto.NodeID {
	var out []proto.NodeID
	for _, r := range t.ctlDue {
		if r.At == at {
			out = append(out, r.Node)
		}
	}
	return out
}

// Entered reports whether node id's entry for tag is a fault's (a request
// the workload did not make): it then ends it, and the runtime must not
// tell the workload.
func (t *InventedCS) Entered(id proto.NodeID, tag uint32) bool {
	if tag != 0 && t.drv.Waiting(id) && t.drv.RequestTag(id) == tag {
		return false
	}
	t.invented++
	if !t.faultCS[id] {
		t.endFaultCS(id, false)
	}
	return true
}

// transient injects a simulated run's transient faults (the during plan's
// corruption events need the simulator's view of the links) and keeps its
// workload whole across them.
type transient struct {
	*InventedCS
	s   *sim.Sim
	rng *rand.Rand
}

// ArbitraryConfiguration makes the arbitrary initial configuration of a
// run of plan with the initial transient plan: it scrambles every node (all of them,
// whichever a runtime hosts: every rank of an MPI job draws the same) and
// returns the junk messages for the links, 0..LinkCap out of each node,
// node by node. The draws are the transient stream's, from the seed.
func ArbitraryConfiguration(plan *Plan, nodes []proto.Node) []proto.Message {
	return plan.Spec.Transient.Configuration(plan.Algorithm, plan.Spec.Seed, nodes, rand.New(rand.NewPCG(plan.Spec.Seed, stream.Transient)))
}

// corrupt is one corruption event of a during plan.
func (t *transient) corrupt() {
	n := len(t.nodes)
	kind := t.rng.IntN(4)
	if kind == 1 || kind == 2 {
		if t.s.InFlight() == 0 {
			kind = 0
		}
	}
	switch kind {
	case 0: // scramble some nodes
		for _, i := range t.rng.Perm(n)[:1+t.rng.IntN(max(1, n/4))] {
			id := proto.NodeID(i)
			t.s.Corrupt(id, func() { t.nodes[id].(proto.Corruptible).Scramble(t.rng) })
			t.Scrambled(id)
		}
	case 1: // duplicate a message in flight
		t.s.Inject(t.s.InFlightAt(t.rng.IntN(t.s.InFlight())))
	case 2: // destroy one
		t.s.Destroy(t.rng.IntN(t.s.InFlight()))
	case 3: // junk
		for range 1 + t.rng.IntN(3) {
			t.s.Inject(t.nodes[t.rng.IntN(n)].(proto.Corruptible).Junk(t.rng))
		}
	}
	t.s.Fault()
}

// corruptSplit is a corruption event of a split run (a part of it): the
// draws of corrupt, on the whole run's messages in flight and the hosting
// parts' workloads (the snapshot's world view), every part alike; each
// part changes what it holds (its nodes, the messages in flight to them,
// the messages injected from them), and the part that keeps the mirror
// logs the event for it (LogFault), which replays it on the whole run.
func (p *Part) corruptSplit() {
	t, s := p.tr, p.s
	n := len(t.nodes)
	flight := slices.Clone(p.snap.Flight)
	slices.SortFunc(flight, func(a, b sim.Remote) int { return cmpMark(sim.Mark{T: a.T, Key: a.Key}, sim.Mark{T: b.T, Key: b.Key}) })
	if p.mir != nil {
		s.Log = append(s.Log, sim.LogEntry{Mark: sim.Mark{T: s.Now(), Key: s.CurrentKey()}, Kind: sim.LogFault})
	}
	kind := t.rng.IntN(4)
	if (kind == 1 || kind == 2) && len(flight) == 0 {
		kind = 0
	}
	switch kind {
	case 0:
		for _, i := range t.rng.Perm(n)[:1+t.rng.IntN(max(1, n/4))] {
			id := proto.NodeID(i)
			s.Corrupt(id, func() { t.nodes[id].(proto.Corruptible).Scramble(t.rng) })
			t.scrambled(id, true)
		}
	case 1:
		s.Inject(flight[t.rng.IntN(len(flight))].Msg)
	case 2:
		if m := flight[t.rng.IntN(len(flight))]; p.hosts(m.Msg.To) {
			s.DestroyKey(m.Key)
		}
	case 3:
		for range 1 + t.rng.IntN(3) {
			s.Inject(t.nodes[t.rng.IntN(n)].(proto.Corruptible).Junk(t.rng))
		}
	}
	s.Fault()
}

// MaxStabilizationRounds bounds the wait for legitimacy at the end of a
// run of a self-stabilizing algorithm, in rounds of N·δ after the last
// fault: a run not legitimate by then is a liveness violation.
const MaxStabilizationRounds = 200

// awaitLegitimate stops the run once the legitimacy predicate holds,
// looking every N·δ; past MaxStabilizationRounds·N·δ after the last fault
// it stops it anyway and sets *stuck to why.
func awaitLegitimate(s *sim.Sim, stab func() sim.Stab, spec Spec, stuck *string) {
	round := float64(spec.Nodes) * spec.Delta
	var look func()
	look = func() {
		st := stab()
		switch {
		case st.Legit:
			s.Stop()
		case s.Now()-st.LastFault > MaxStabilizationRounds*round:
			*stuck = fmt.Sprintf("not legitimate %d·N·δ after the last fault (t=%.6fs): %s (seed %d)", MaxStabilizationRounds, st.LastFault, st.Why, spec.Seed)
			s.Stop()
		default:
			s.After(round, look)
		}
	}
	look()
}
