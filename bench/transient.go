package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/sim"
)

// TransientModes lists the transient-fault plans; the first is the
// default.
//
//   - none: the run starts from the algorithm's initial configuration and
//     no fault strikes.
//   - initial: an arbitrary initial configuration: every variable of every
//     node drawn from its domain (proto.Corruptible's Scramble), and every
//     link filled with 0..LinkCap arbitrary messages (Junk), all from the
//     seed.
//   - during: the run starts from the initial configuration, and
//     corruption events strike at times drawn from the seed (exponential
//     gaps of mean Every δ): each scrambles the state of 1..max(1, N/4)
//     random nodes, duplicates a random message in flight (a token, a
//     CToken, a pool…), destroys one, or injects 1..3 junk messages on
//     random links, a quarter of the events each.
//   - adversarial: an adversarial initial configuration that the
//     algorithm builds (proto.AdversarialAlgorithm): the one Adversary
//     names, or, if none, the seed's turn among them all (seed mod their
//     number), with what it leaves open drawn from the seed.
var TransientModes = []TransientMode{"none", "initial", "during", "adversarial"}

// TransientPlan is the transient faults of a run of a self-stabilizing
// algorithm (proto.SelfStabilizingAlgorithm).
type TransientPlan struct {
	// Mode is one of TransientModes ("" is none).
	Mode TransientMode
	// Events is the number of corruption events (during); 0 means
	// DefaultCorruptions.
	Events int
	// Every is the mean gap between events, in δ (during); 0 means
	// DefaultCorruptEvery.
	Every float64
	// LinkCap is the capacity of a link: an arbitrary configuration puts
	// 0..LinkCap junk messages on each (initial), an adversarial one at
	// most LinkCap; 0 means DefaultLinkCap.
	LinkCap int
	// Adversary names the adversarial configuration (adversarial); ""
	// takes the seed's turn among them all.
	Adversary string
	// Edits change the initial configuration once it is made (initial,
	// adversarial): what the worst-case climb found (Climb).
	Edits []Edit
}

// adversary returns the name of the adversarial configuration of a run
// with the given seed, of an algorithm whose adversarial configurations
// are names.
func (p TransientPlan) adversary(seed uint64, names []string) string {
	if p.Adversary != "" {
		return p.Adversary
	}
	if len(names) == 0 {
		return ""
	}
	return names[seed%uint64(len(names))]
}

// adversaries returns the names of a's adversarial configurations (none
// if it builds none).
func adversaries(a proto.Algorithm) []string {
	v, ok := a.(proto.AdversarialAlgorithm)
	if !ok {
		return nil
	}
	return v.Adversaries()
}

// Defaults of a TransientPlan's zero fields.
const (
	DefaultCorruptions  = 5
	DefaultCorruptEvery = 50.0
	DefaultLinkCap      = 3
	// MaxLinkCap bounds --link-cap.
	MaxLinkCap = 64
	// MaxEdits bounds the edits of an initial configuration (--edits).
	MaxEdits = 1 << 16
)

// Initial reports whether the plan's faults make the initial
// configuration (initial, adversarial).
func (p TransientPlan) Initial() bool { return p.Mode == "initial" || p.Mode == "adversarial" }

// On reports whether the plan has faults.
func (p TransientPlan) On() bool { return p.Mode != "" && p.Mode != "none" }

// filled returns p with its defaults.
func (p TransientPlan) filled() TransientPlan {
	if p.Mode == "" {
		p.Mode = "none"
	}
	if p.Events == 0 {
		p.Events = DefaultCorruptions
	}
	if p.Every == 0 {
		p.Every = DefaultCorruptEvery
	}
	if p.LinkCap == 0 {
		p.LinkCap = DefaultLinkCap
	}
	return p
}

// Validate returns a *FieldError naming the first bad field, for a run of
// the algorithm reg.
func (p TransientPlan) Validate(reg proto.Algorithm) error {
	algo := reg.Name()
	ok := p.Mode == ""
	for _, m := range TransientModes {
		ok = ok || m == p.Mode
	}
	if !ok {
		return fieldErr("Transient.Mode", "unknown plan %q (allowed: %s)", p.Mode, Join(TransientModes))
	}
	if _, ok := reg.(proto.SelfStabilizingAlgorithm); p.On() && !ok {
		return fieldErr("Transient.Mode", "%s is not self-stabilizing: transient faults would leave it broken for good (self-stabilizing: %s)", algo, selfStabilizingNames())
	}
	if p.Events < 0 || p.Events > MaxCrashes {
		return fieldErr("Transient.Events", "%d is not in 1..%d", p.Events, MaxCrashes)
	}
	if p.Every != 0 {
		if err := inRange("Transient.Every", p.Every, 0, MaxTime, true, "δ"); err != nil {
			return err
		}
	}
	if p.Mode == "adversarial" && len(adversaries(reg)) == 0 {
		return fieldErr("Transient.Mode", "%s builds no adversarial configuration", algo)
	}
	if p.Adversary != "" {
		if p.Mode != "adversarial" {
			return fieldErr("Transient.Adversary", "it applies only to the adversarial plan")
		}
		if !slices.Contains(adversaries(reg), p.Adversary) {
			return fieldErr("Transient.Adversary", "unknown configuration %q (allowed: %s)", p.Adversary, strings.Join(adversaries(reg), ", "))
		}
	}
	if len(p.Edits) > 0 && !p.Initial() {
		return fieldErr("Transient.Edits", "edits change an initial configuration: they apply only to the initial and adversarial plans")
	}
	if len(p.Edits) > MaxEdits {
		return fieldErr("Transient.Edits", "%d edits, at most %d", len(p.Edits), MaxEdits)
	}
	if p.LinkCap < 0 || p.LinkCap > MaxLinkCap {
		return fieldErr("Transient.LinkCap", "%d is not in 1..%d", p.LinkCap, MaxLinkCap)
	}
	return nil
}

// String describes the plan for a run's record.
func (p TransientPlan) String() string {
	p = p.filled()
	switch p.Mode {
	case "initial":
		return fmt.Sprintf("arbitrary initial configuration, 0..%d junk messages per link", p.LinkCap)
	case "adversarial":
		if p.Adversary == "" {
			return fmt.Sprintf("adversarial initial configuration, each seed's turn among them all, up to %d messages per link", p.LinkCap)
		}
		return fmt.Sprintf("adversarial initial configuration %s, up to %d messages per link", p.Adversary, p.LinkCap)
	case "during":
		return fmt.Sprintf("%d corruption events, exponential gaps of mean %gδ", p.Events, p.Every)
	}
	return "none"
}

func selfStabilizingNames() string {
	var out []string
	for _, n := range algo.Ordered() {
		if algo.IsSelfStabilizing(n) {
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}

// streamTransient is the seeded stream of the transient faults.
const streamTransient = 5

// corruptionTimes returns the times of the corruption events of a during
// plan, in seconds (none for other plans); they are the first draws of the
// transient stream.
func (p TransientPlan) corruptionTimes(rng *rand.Rand, delta float64) []float64 {
	if p.Mode != "during" {
		return nil
	}
	var out []float64
	t := 0.0
	for range p.Events {
		t += rng.ExpFloat64() * p.Every
		out = append(out, t*delta)
	}
	return out
}

// InventedCS keeps a workload whole across transient faults, on any
// runtime (a Host): a critical section a fault invents (a node in the
// critical section that the workload did not put there, or an entry for a
// request it did not make) ends after the CS time, and a request of the
// workload that a fault wiped out is issued again.
type InventedCS struct {
	host    Host
	drv     *Workload
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
func NewInventedCS(host Host, drv *Workload, nodes []proto.Node, cs float64) *InventedCS {
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
	x := nodeWorkload{Node: id, FaultCS: t.faultCS[id], InCS: t.drv.InCS(id), Waiting: t.drv.Waiting(id), Tag: t.drv.nd[id].reqTag}
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
		waiting, tag := t.drv.Waiting(id), t.drv.nd[id].reqTag
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
	if tag != 0 && t.drv.Waiting(id) && t.drv.nd[id].reqTag == tag {
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
// run of s with the initial plan: it scrambles every node (all of them,
// whichever a runtime hosts: every rank of an MPI job draws the same) and
// returns the junk messages for the links, 0..LinkCap out of each node,
// node by node. The draws are the transient stream's, from the seed.
func ArbitraryConfiguration(s Spec, nodes []proto.Node) []proto.Message {
	plan := MustResolve(s)
	return initialConfiguration(plan, nodes, rand.New(rand.NewPCG(plan.Spec.Seed, streamTransient)))
}

// initialConfiguration makes the initial configuration of a run of plan
// with the initial or the adversarial plan, drawing from rng, and returns
// the messages for the links.
func initialConfiguration(plan *Plan, nodes []proto.Node, rng *rand.Rand) []proto.Message {
	s := &plan.Spec
	var junk []proto.Message
	if s.Transient.Mode != "adversarial" {
		junk = arbitrary(nodes, rng, s.Transient.LinkCap)
	} else {
		algo := plan.Algorithm
		var err error
		junk, err = algo.(proto.AdversarialAlgorithm).Adversary(s.Transient.adversary(s.Seed, adversaries(algo)), nodes, rng, s.Transient.LinkCap)
		if err != nil {
			panic(err) // Validate checked the name
		}
	}
	return applyEdits(nodes, junk, s.Transient.Edits, s.Transient.LinkCap)
}

func arbitrary(nodes []proto.Node, rng *rand.Rand, linkCap int) []proto.Message {
	for _, nd := range nodes {
		nd.(proto.Corruptible).Scramble(rng)
	}
	var junk []proto.Message
	for _, nd := range nodes {
		c := nd.(proto.Corruptible)
		for range rng.IntN(linkCap + 1) {
			junk = append(junk, c.Junk(rng))
		}
	}
	return junk
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

// Edit changes one part of an initial configuration (the initial and
// adversarial plans) after it is made: the state of node Node re-drawn
// (Scramble), or, with Link, the messages on the link out of node Node
// re-drawn (0..LinkCap of them, by Junk); the draws come from a stream of
// the edit's own Seed. A list of edits written "n3@17,l5@99" (node 3 from
// seed 17, then the link out of node 5 from seed 99) is what the
// worst-case climb (Climb) varies, and what replays the configuration it
// found.
type Edit struct {
	Link bool
	Node int
	Seed uint64
}

// String writes the edit as "n3@17" or "l3@17".
func (e Edit) String() string {
	k := "n"
	if e.Link {
		k = "l"
	}
	return fmt.Sprintf("%s%d@%d", k, e.Node, e.Seed)
}

// FormatEdits writes edits as a comma-separated list (ParseEdits).
func FormatEdits(edits []Edit) string {
	out := make([]string, len(edits))
	for k, e := range edits {
		out[k] = e.String()
	}
	return strings.Join(out, ",")
}

// ParseEdits reads a list of edits written by FormatEdits ("" is none).
func ParseEdits(s string) ([]Edit, error) {
	if s == "" {
		return nil, nil
	}
	var out []Edit
	for _, f := range strings.Split(s, ",") {
		node, seed, ok := strings.Cut(f, "@")
		if !ok || len(node) < 2 || (node[0] != 'n' && node[0] != 'l') {
			return nil, fmt.Errorf("edit %q: want nK@S (node K's state from seed S) or lK@S (the link out of node K)", f)
		}
		k, err := strconv.Atoi(node[1:])
		if err != nil || k < 0 {
			return nil, fmt.Errorf("edit %q: %q is not a node", f, node[1:])
		}
		sd, err := strconv.ParseUint(seed, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("edit %q: %q is not a seed in 0..2^64−1", f, seed)
		}
		out = append(out, Edit{Link: node[0] == 'l', Node: k, Seed: sd})
	}
	return out, nil
}

// streamEdit is the seeded stream of an edit's draws.
const streamEdit = 7

// applyEdits applies edits to the nodes and to junk, the messages of the
// links node by node (as arbitrary makes them), and returns the new junk.
func applyEdits(nodes []proto.Node, junk []proto.Message, edits []Edit, linkCap int) []proto.Message {
	for _, e := range edits {
		stream := rand.NewPCG(e.Seed, streamEdit)
		rng := rand.New(stream)
		c := nodes[e.Node].(proto.Corruptible)
		if !e.Link {
			c.Scramble(rng)
			continue
		}
		var out []proto.Message
		done := false
		for i := 0; i <= len(junk); i++ {
			if !done && (i == len(junk) || int(junk[i].From) >= e.Node) {
				for range rng.IntN(linkCap + 1) {
					out = append(out, c.Junk(rng))
				}
				done = true
			}
			if i < len(junk) && int(junk[i].From) != e.Node {
				out = append(out, junk[i])
			}
		}
		junk = out
	}
	return junk
}
