package bench

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/safety"
	"github.com/ocbench/ocbench/sim"
	"github.com/ocbench/ocbench/trace"
)

// A self-stabilizing run split into parts (MPI in virtual time) cannot
// evaluate its legitimacy predicate in any one part: it reads every node
// and every message in flight, in delivery order, after every step. So the
// parts log their steps (sim.Config.Mirrored: each step's input, the keys
// and delivery times of the messages it sent), and the part that hosts
// node 0 keeps a mirror: its own copy of every node, from the same initial
// configuration, which it steps again with the logged inputs, window by
// window, in the run's order of steps (the merged logs sorted by Mark).
// The nodes are pure state machines, so the mirror's nodes go through the
// very states of the parts' nodes, and the mirror holds the whole system
// after every step of the run: it evaluates the predicate and the checks
// after each step exactly as the simulator does (sim.checkStab: the
// stabilization time, the events, messages and asynchronous rounds until
// it, the closure check's stride), counts the entries after
// stabilization, and writes the trace lines that are the whole run's (the
// faults, the messages they inject, "legitimate"). The controller, which
// every part runs alike, reads whether the run is legitimate only at
// window starts (the watchdog's tick, the wait for legitimacy at the end):
// a runtime gives every part the mirror's verdict at the boundaries before
// them (Part.legit, setLegit).

// mirror is the copy of a whole self-stabilizing run that the part
// hosting node 0 keeps (see above).
type mirror struct {
	spec   Spec
	nodes  []proto.Node
	down   []bool
	legit  func(proto.System) error
	ell    int
	kexcl  bool
	fly    map[uint64]flight
	order  []uint64 // ForEachInFlight's scratch
	out    proto.Output
	steps  int64
	events [proto.MaxEvents]int64
	sent   [proto.MaxMsgTypes]int64
	rounds sim.Rounds
	stab   sim.Stab
	units  int
	// entriesStable counts the workload's entries after stabilization.
	entriesStable int64
	lastClosure   int64
	skipped       bool
	err           *sim.Violation
	types         []proto.MessageType
	// initFault: the run starts with a fault (an arbitrary or adversarial
	// initial configuration), which the first replay records after the
	// injected messages.
	initFault bool
	started   bool
	// rng is the transient stream past the corruption times: the draws of
	// the corruption events (--transient during), which the mirror makes
	// again on the whole run.
	rng *rand.Rand
	// The mirror's trace: the whole run's lines, with their segments.
	trace *bufio.Writer
	buf   bytes.Buffer
	segs  []sim.Segment
}

// flight is a message in flight in the mirror.
type flight struct {
	T   float64
	Msg proto.Message
}

// newMirror returns the mirror of a run of plan (self-stabilizing), from
// the initial configuration every part makes; with traced it keeps the
// run's own trace lines.
func newMirror(plan *Plan, ell int, traced bool) *mirror {
	spec, algo := plan.Spec, plan.Algorithm
	m := &mirror{spec: spec, nodes: algo.NewNodes(spec.Nodes), down: make([]bool, spec.Nodes), ell: ell,
		kexcl: algo.Family() == proto.KExclusion, fly: map[uint64]flight{}, types: algo.MessageTypes(),
		legit: plan.SelfStabilizing.Legitimate}
	if spec.Transient.Mode == "during" {
		m.rng = plan.transientRand()
	}
	if spec.Transient.Initial() {
		// The parts' draws: the transient stream's first (corruptionTimes
		// draws nothing for these plans).
		plan.Spec.Transient.Configuration(plan.Algorithm, plan.Spec.Seed, m.nodes, plan.transientRand())
		m.initFault = true
	}
	for i, n := range m.nodes {
		v := n.View()
		m.down[i] = !v.Up
		if v.InCS {
			m.units += v.Units
		}
	}
	if traced {
		m.trace = bufio.NewWriterSize(&m.buf, 1<<16)
	}
	return m
}

// Nodes implements proto.System.
func (m *mirror) Nodes() []proto.Node { return m.nodes }

// Down implements proto.System.
func (m *mirror) Down(id proto.NodeID) bool { return m.down[id] }

// ForEachInFlight implements proto.System: the messages in flight in
// delivery order (time, then key), as the simulator's OrderedInFlight.
func (m *mirror) ForEachInFlight(f func(*proto.Message)) {
	m.order = m.order[:0]
	for k := range m.fly {
		m.order = append(m.order, k)
	}
	slices.SortFunc(m.order, func(a, b uint64) int {
		ta, tb := m.fly[a].T, m.fly[b].T
		switch {
		case ta < tb:
			return -1
		case ta > tb:
			return 1
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	})
	for _, k := range m.order {
		x := m.fly[k]
		f(&x.Msg)
	}
}

// segment starts a segment of the mirror's trace at mark.
func (m *mirror) segment(at sim.Mark) {
	m.segs = append(m.segs, sim.Segment{Mark: at, Off: int64(m.buf.Len() + m.trace.Buffered())})
}

func (m *mirror) typeName(t proto.MsgType) string {
	if int(t) < len(m.types) {
		return m.types[t].Name
	}
	return fmt.Sprintf("msgtype(%d)", t)
}

func (m *mirror) fail(at sim.Mark, format string, args ...any) {
	if m.err == nil {
		m.err = &sim.Violation{Seed: m.spec.Seed, Step: m.steps, Time: at.T, What: fmt.Sprintf(format, args...)}
	}
}

// replay replays one window of the run: every part's log of it (their
// entries in any order of parts).
func (m *mirror) replay(logs []sim.LogEntry) error {
	if !m.started {
		m.started = true
		// The initial configuration's messages, in the order the
		// controller injected them (its keys), and its fault: before
		// every step.
		var inj []sim.LogEntry
		for _, e := range logs {
			if e.Kind == sim.LogInject {
				inj = append(inj, e)
			}
		}
		slices.SortFunc(inj, func(a, b sim.LogEntry) int { return cmpMark(a.Mark, b.Mark) })
		if m.trace != nil && (len(inj) > 0 || m.initFault) {
			m.segment(sim.Mark{T: math.Inf(-1)})
		}
		for _, e := range inj {
			m.inject(e)
		}
		if m.initFault {
			m.fault(0)
		}
		logs = slices.DeleteFunc(logs, func(e sim.LogEntry) bool { return e.Kind == sim.LogInject })
	}
	slices.SortStableFunc(logs, func(a, b sim.LogEntry) int { return cmpMark(a.Mark, b.Mark) })
	used := make([]bool, len(logs))
	for k := range logs {
		var err error
		switch {
		case used[k]:
		case logs[k].Kind == sim.LogFault:
			err = m.corrupt(&logs[k], logs[k+1:], used[k+1:])
		case logs[k].Kind == sim.LogInject:
			err = fmt.Errorf("a message injected from node %d that no corruption event explains", logs[k].Node)
		default:
			err = m.apply(&logs[k])
		}
		if err != nil {
			return fmt.Errorf("bench: replaying seed %d's step at t=%.6fs (key %d) in the mirror: %w", m.spec.Seed, logs[k].T, logs[k].Key, err)
		}
	}
	return nil
}

// orderedKeys returns the keys of the messages in flight in delivery
// order.
func (m *mirror) orderedKeys() []uint64 {
	var keys []uint64
	m.ForEachInFlight(func(*proto.Message) {})
	keys = append(keys, m.order...)
	return keys
}

// corrupt replays a corruption event (LogFault) as the simulator's
// transient.corrupt makes it, with the same draws, on the whole run; the
// messages it injects are the next LogInject entries of rest at its time,
// which the parts that host their senders logged (their keys and delivery
// times), and it marks them used.
func (m *mirror) corrupt(e *sim.LogEntry, rest []sim.LogEntry, used []bool) error {
	if m.rng == nil {
		return fmt.Errorf("a corruption event in a run without them")
	}
	n := len(m.nodes)
	if m.trace != nil {
		m.segment(e.Mark)
	}
	fly := m.orderedKeys()
	kind := m.rng.IntN(4)
	if (kind == 1 || kind == 2) && len(fly) == 0 {
		kind = 0
	}
	injects := 0
	switch kind {
	case 0:
		for _, i := range m.rng.Perm(n)[:1+m.rng.IntN(max(1, n/4))] {
			nd := m.nodes[i]
			before := nd.View()
			nd.(proto.Corruptible).Scramble(m.rng)
			after := nd.View()
			if before.InCS {
				m.units -= before.Units
			}
			if after.InCS {
				m.units += after.Units
			}
			if m.trace != nil {
				trace.WriteEvent(m.trace, e.T, proto.NodeID(i), trace.Corrupt)
			}
		}
	case 1:
		m.rng.IntN(len(fly))
		injects = 1
	case 2:
		key := fly[m.rng.IntN(len(fly))]
		x := m.fly[key]
		delete(m.fly, key)
		if m.trace != nil {
			trace.WriteMessage(m.trace, e.T, x.Msg.To, trace.Destroy, m.typeName(x.Msg.Type), &x.Msg, key)
		}
	case 3:
		injects = 1 + m.rng.IntN(3)
		for range injects {
			m.nodes[m.rng.IntN(n)].(proto.Corruptible).Junk(m.rng)
		}
	}
	for j := range rest {
		if injects == 0 {
			break
		}
		if !used[j] && rest[j].Kind == sim.LogInject && rest[j].T == e.T {
			m.inject(rest[j])
			used[j] = true
			injects--
		}
	}
	if injects > 0 {
		return fmt.Errorf("a corruption event injected %d messages that no part logged", injects)
	}
	m.fault(e.T)
	return nil
}

func cmpMark(a, b sim.Mark) int {
	switch {
	case a.Before(b):
		return -1
	case b.Before(a):
		return 1
	}
	return 0
}

// inject puts a message a fault injected in flight.
func (m *mirror) inject(e sim.LogEntry) {
	p := e.Posts[0]
	m.fly[p.Key] = flight{T: p.T, Msg: e.Msg}
	m.rounds.Post(p.T)
	if m.trace != nil {
		trace.WriteMessage(m.trace, e.T, e.Msg.From, trace.Send, m.typeName(e.Msg.Type), &e.Msg, p.Key)
	}
}

// fault records a transient fault at time now (sim.Fault).
func (m *mirror) fault(now float64) {
	st := &m.stab
	st.Faults++
	st.Legit = false
	st.LastFault, st.LastFaultStep = now, m.steps
	st.EventsAtFault, st.SentAtFault = m.events, m.sent
	st.RoundsAtFault = m.rounds.Begun()
	if m.trace != nil {
		trace.WriteEvent(m.trace, now, proto.Nil, trace.Fault)
	}
}

// apply replays one logged event.
func (m *mirror) apply(e *sim.LogEntry) error {
	if e.Kind == sim.LogDrop {
		if _, ok := m.fly[e.MsgKey]; !ok {
			return fmt.Errorf("message %d dropped, not in flight", e.MsgKey)
		}
		delete(m.fly, e.MsgKey)
		return nil
	}
	if e.Node < 0 || int(e.Node) >= len(m.nodes) {
		return fmt.Errorf("a step of node %d of %d", e.Node, len(m.nodes))
	}
	n := m.nodes[e.Node]
	before := n.View()
	m.out.Reset()
	switch {
	case e.Kind == sim.LogStart:
		st, ok := n.(proto.Starter)
		if !ok {
			return fmt.Errorf("node %d has no Start step", e.Node)
		}
		st.Start(&m.out)
	case e.In == proto.Receive:
		x, ok := m.fly[e.MsgKey]
		if !ok {
			return fmt.Errorf("message %d received, not in flight", e.MsgKey)
		}
		delete(m.fly, e.MsgKey)
		proto.Step(n, proto.Input{Kind: proto.Receive, Msg: x.Msg}, &m.out)
	default:
		proto.Step(n, proto.Input{Kind: e.In, Tag: e.Tag, Timer: e.Timer}, &m.out)
	}
	m.steps++
	after := n.View()
	m.down[e.Node] = !after.Up
	if before.InCS {
		m.units -= before.Units
	}
	if after.InCS {
		m.units += after.Units
	}
	for k, c := range m.out.Events {
		m.events[k] += int64(c)
	}
	m.rounds.Step(e.T)
	if len(m.out.Msgs) != len(e.Posts) {
		return fmt.Errorf("node %d sent %d messages in the mirror, %d in its part", e.Node, len(m.out.Msgs), len(e.Posts))
	}
	for k, msg := range m.out.Msgs {
		p := e.Posts[k]
		m.fly[p.Key] = flight{T: p.T, Msg: msg}
		m.sent[msg.Type]++
		m.rounds.Post(p.T)
	}
	if m.check(e) && e.Entered && m.ell > 0 {
		m.entriesStable++
	}
	return nil
}

// check is the simulator's checks after a step (sim.checkStab and
// checkUnits): it reports whether the run is legitimate after it.
func (m *mirror) check(e *sim.LogEntry) bool {
	m.skipped = false
	st := &m.stab
	if st.Legit {
		if k := len(m.nodes) + len(m.fly); k >= sim.ClosureSmall && m.steps-m.lastClosure < int64(k) {
			m.skipped = true
			return m.checkUnits(e)
		}
	}
	m.lastClosure = m.steps
	err := m.legit(m)
	switch {
	case err == nil && !st.Legit:
		st.Legit = true
		st.At, st.AtStep = e.T, m.steps
		st.EventsAt, st.SentAt = m.events, m.sent
		st.RoundsAt = m.rounds.Begun()
		if m.trace != nil {
			m.segment(e.Mark)
			trace.WriteEvent(m.trace, e.T, proto.Nil, trace.Legitimate)
		}
	case err != nil && st.Legit:
		m.fail(e.Mark, "closure: legitimate since step %d (t=%.6fs) and no fault since, not now: %v", st.AtStep, st.At, err)
		return false
	case err != nil:
		st.Why = err.Error()
	}
	return st.Legit && m.checkUnits(e)
}

func (m *mirror) checkUnits(e *sim.LogEntry) bool {
	if rule := (safety.KExclusion{Ell: m.ell}); m.kexcl && rule.Broken(m.units) {
		m.fail(e.Mark, "%s (after node %d's step)", rule.What(m.units), e.Node)
		return false
	}
	return true
}

// end is the last closure check (sim.lastClosureCheck), at the end of the
// run, and flushes the mirror's trace.
func (m *mirror) end(at float64) error {
	if m.skipped && m.err == nil && m.stab.Legit {
		m.skipped = false
		if err := m.legit(m); err != nil {
			m.fail(sim.Mark{T: at}, "closure: legitimate since step %d (t=%.6fs) and no fault since, not at the end of the run: %v", m.stab.AtStep, m.stab.At, err)
		}
	}
	if m.trace == nil {
		return nil
	}
	if err := m.trace.Flush(); err != nil {
		return fmt.Errorf("bench: the mirror's trace: %w", err)
	}
	return nil
}

// Encoding of a part's log, for a runtime that carries it to the part
// that keeps the mirror: per entry its kind, mark, node, input, timer,
// message key, whether it counts as an entry, and its posts; an injected
// message follows as AppendRemotes writes it.

// AppendLog appends log to buf, for the job of digest.
func AppendLog(buf []byte, log []sim.LogEntry, digest uint32) []byte {
	le := binary.LittleEndian
	for k := range log {
		e := &log[k]
		buf = append(buf, e.Kind, byte(e.In), b2u8(e.Entered), e.Timer.Kind)
		buf = le.AppendUint64(buf, math.Float64bits(e.T))
		buf = le.AppendUint64(buf, e.Key)
		buf = le.AppendUint32(buf, uint32(e.Node))
		buf = le.AppendUint32(buf, e.Tag)
		buf = le.AppendUint32(buf, e.Timer.Seq)
		buf = le.AppendUint32(buf, uint32(e.Timer.Arg))
		buf = le.AppendUint64(buf, math.Float64bits(e.Timer.After))
		buf = le.AppendUint64(buf, e.MsgKey)
		buf = le.AppendUint32(buf, uint32(len(e.Posts)))
		for _, p := range e.Posts {
			buf = le.AppendUint64(buf, p.Key)
			buf = le.AppendUint64(buf, math.Float64bits(p.T))
		}
		if e.Kind == sim.LogInject {
			buf = AppendRemotes(buf, []sim.Remote{{T: e.Posts[0].T, Sent: e.T, Key: e.Posts[0].Key, Msg: e.Msg}}, digest)
		}
	}
	return buf
}

func b2u8(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// ReadLog reads what AppendLog wrote for a run of n nodes of the job of
// digest, appending the entries to log.
func ReadLog(buf []byte, n int, digest uint32, log []sim.LogEntry) ([]sim.LogEntry, error) {
	r := &boundaryReader{b: buf}
	for len(r.b) > 0 && r.err == nil {
		h := r.take(4)
		if r.err != nil {
			break
		}
		e := sim.LogEntry{Kind: h[0], In: proto.InputKind(h[1]), Entered: h[2] != 0}
		e.Timer.Kind = h[3]
		e.T = r.f64()
		e.Key = r.u64()
		e.Node = r.node(n, true)
		e.Tag = r.u32()
		e.Timer.Seq = r.u32()
		e.Timer.Arg = proto.NodeID(int32(r.u32()))
		e.Timer.After = r.f64()
		e.MsgKey = r.u64()
		np := int(r.u32())
		if r.err == nil && (np > len(r.b)/16 || e.Kind > sim.LogInject || e.Kind == sim.LogInject && np != 1) {
			r.err = fmt.Errorf("%w: a log entry of kind %d with %d posts in %d bytes", ErrBoundary, e.Kind, np, len(r.b))
		}
		for ; np > 0 && r.err == nil; np-- {
			e.Posts = append(e.Posts, sim.Post{Key: r.u64(), T: r.f64()})
		}
		if r.err == nil && e.Kind == sim.LogInject {
			var msgs []sim.Remote
			msgs, r.b, r.err = ReadRemotes(r.b, n, digest)
			if r.err == nil && len(msgs) != 1 {
				r.err = fmt.Errorf("%w: %d injected messages in one entry", ErrBoundary, len(msgs))
			}
			if r.err == nil {
				e.Msg = msgs[0].Msg
			}
		}
		log = append(log, e)
	}
	return log, r.err
}
