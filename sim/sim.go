// Package sim is ocbench's deterministic discrete-event runtime: it hosts
// every node of a run in one process, in virtual time, delivers messages after
// seeded delays bounded by δ, fires timers, and checks the safety invariants
// after every step. The same seed gives the same run, event for event.
package sim

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/ocbench/ocbench/internal/eventq"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/trace"
)

// Config configures a simulation.
type Config struct {
	// Delta is δ, the bound on message delay, in seconds of virtual time.
	Delta float64
	// MinDelay is the smallest delay as a fraction of δ; delays are uniform
	// in [MinDelay·δ, δ].
	MinDelay float64
	// FIFO makes every channel deliver in sending order (the papers allow
	// non-FIFO channels, the default).
	FIFO bool
	// Seed seeds the delay distribution.
	Seed uint64
	// Check selects which invariants are checked after every step.
	Check Check
	// Family selects the runtime's own checks: with TokenBased (the zero
	// value), exactly one token (Crashes: at most one live token).
	Family proto.Family
	// Types are the algorithm's message types: they name messages in
	// traces, and the one marked Token is the token.
	Types []proto.MessageType
	// Invariants are the algorithm's own, checked as each one's When says
	// (EveryStep and Quiet with CheckFull; AtEnd by CheckAtEnd).
	Invariants []proto.Invariant
	// Trace, if not nil, receives one JSON object per line per event.
	Trace io.Writer
	// Crashes relaxes the token invariant from "exactly one token" to "at
	// most one live token" (a crash may lose it until it is regenerated).
	Crashes bool
	// LateFraction of the messages break the bound δ on purpose: their delay
	// is uniform in (δ, LateFactor·δ]. The paper's safety rests on δ; this
	// shows what breaks without it.
	LateFraction float64
	LateFactor   float64
	// KeepGoing counts safety violations instead of stopping at the first.
	KeepGoing bool
	// Units is ℓ, the units of a KExclusion algorithm's resource: after
	// every step (once legitimate, with Legitimate) the units the nodes in
	// the critical section use (View.Units) add up to Units at most.
	Units int
	// Legitimate, if not nil, is a self-stabilizing algorithm's
	// legitimacy predicate (proto.SelfStabilizingAlgorithm): the simulator
	// evaluates it after every step and records when it began to hold
	// after the last fault (Stab). The runtime's checks and the
	// algorithm's invariants apply only while it holds, since before, the
	// configuration is arbitrary; once it holds, it must hold after every
	// step until the next fault (closure), else the run fails.
	Legitimate func(proto.System) error
	// OrderedInFlight makes ForEachInFlight enumerate the messages in
	// delivery order (Legitimate may need each link's messages in FIFO
	// order); it costs a sort per call.
	OrderedInFlight bool
}

// Check selects the invariant checks run after every step.
type Check uint8

// Check levels. CheckCounts costs O(1) per step: at most one node in the
// critical section, and for a token-based algorithm exactly one token.
// CheckFull adds the algorithm's own invariants (Config.Invariants), O(N)
// structural checks such as the general scheme's a_tree relation of RR-1692
// §3.3 and the open-cube's shape.
const (
	CheckCounts Check = iota
	CheckFull
)

// Stats are the counters of a run.
type Stats struct {
	// Popped counts the events taken from the queue (steps, deliveries to
	// nodes that are down, the workload's and the hooks' calls); Steps the
	// nodes' steps.
	Popped    int64
	Steps     int64
	Sent      [proto.MaxMsgTypes][proto.NumCauses]int64
	Delivered int64
	Dropped   int64
	Events    [proto.MaxEvents]int64
	// PerTag[t] counts the messages sent for the CS request of serial t.
	PerTag []uint32
	// MaxDelay is the largest delivery delay seen, in seconds.
	MaxDelay float64
	// Late counts messages delayed beyond δ on purpose.
	Late int64
	// OverlappingCS and DuplicateTokens count safety violations when
	// KeepGoing is set: times a second node entered the critical section
	// while another was in it, and times a second live token appeared.
	OverlappingCS   int64
	DuplicateTokens int64
	// FirstBreach describes the first of those, with its time and step.
	FirstBreach string
	// Storm, if not empty, says why the run was stopped as a message
	// storm (see stormInFlight).
	Storm string
	// Injected counts the messages a fault put in the links (junk,
	// duplicates), and Destroyed those a fault took out of them.
	Injected, Destroyed int64
	// Suspicions counts the failures nodes suspected (proto.Suspicion);
	// FalseSuspicions those of them that no failure explains (Judge.False).
	// FirstFalseSuspicion describes the first false one.
	Suspicions, FalseSuspicions int64
	FirstFalseSuspicion         string
}

// stormInFlight returns the number of messages in flight at which a run of
// n nodes is stopped as a message storm: 16·n² + 65536, plus 4ℓ with ℓ
// units (Config.Units: kofl keeps every one of its ℓ tokens in flight as
// a <Token>, and as many <Enabled_Token> counting them). No protocol here
// comes near it (the most a failure causes is every node testing half the
// others at once, n²/2), but messages delayed far beyond δ on purpose can
// make keep-alives breed, each delivery sending more, until the simulator
// runs for ever at the same simulated instant.
func stormInFlight(n int) int {
	return 16*n*n + 65536
}

// MessagesTotal returns the number of messages sent.
func (s *Stats) MessagesTotal() int64 {
	var t int64
	for _, byCause := range s.Sent {
		for _, c := range byCause {
			t += c
		}
	}
	return t
}

// Hooks let a workload follow the run. Hooks run between steps and may
// schedule inputs; they must not step nodes themselves.
type Hooks struct {
	// Enter is called when a node enters the critical section.
	Enter func(id proto.NodeID, tag uint32)
	// Quiet is called after a step that leaves no message in flight and no
	// node in the critical section.
	Quiet func()
	// FailureSend is called for every message whose cause is a failure.
	FailureSend func(m *proto.Message)
	// Crash is called after a node crashes.
	Crash func(id proto.NodeID)
}

const (
	evDeliver uint8 = iota
	evTimer
	evInput
	evCall
	evDestroyed // a message in flight that a fault destroyed
)

type payload struct {
	kind  uint8
	in    proto.InputKind
	node  proto.NodeID
	tag   uint32
	msgID uint64
	sent  float64
	msg   proto.Message
	timer proto.Timer
	fn    func()
	next  int32 // free list
}

// Sim is one simulation.
type Sim struct {
	cfg   Config
	nodes []proto.Node
	down  []bool
	rng   *rand.PCG // the delays' stream, drawn by float64
	now   float64
	seq   uint64
	heap  eventq.Queue
	slab  []payload
	free  int32
	out   proto.Output
	hooks Hooks
	fifo  map[[2]proto.NodeID]float64
	trace *bufio.Writer

	msgID          uint64
	inFlight       int
	stormAt        int // stormInFlight(N)
	tokensInFlight int
	token          proto.MsgType // the token's type (proto.NoToken: none)
	tokenHolders   int
	inCS           int
	lastTokens     int
	units          int // KExclusion: the units in use (View.Units of the nodes in the CS)
	started        bool
	stab           Stab
	ordered        []eventq.Item // ForEachInFlight's scratch (OrderedInFlight)
	orderedKey     [4]uint64
	orderedOK      bool  // ordered holds the messages in flight of orderedKey
	lastClosure    int64 // the step of the legitimacy predicate's last evaluation
	skipped        bool  // this step's closure check is not due (ClosureSmall)
	stopped        bool
	err            error

	// verdict judges the failures nodes suspect (Stats.FalseSuspicions).
	verdict *Judge

	// Stats are the run's counters.
	Stats Stats
}

// typeName names a message type by Config.Types.
func (s *Sim) typeName(t proto.MsgType) string {
	if int(t) < len(s.cfg.Types) {
		return s.cfg.Types[t].Name
	}
	return fmt.Sprintf("msgtype(%d)", t)
}

// New returns a simulation of nodes. Node i must have id i.
func New(cfg Config, nodes []proto.Node, hooks Hooks) *Sim {
	if cfg.Delta <= 0 {
		cfg.Delta = 1e-3
	}
	s := &Sim{
		cfg:   cfg,
		nodes: nodes,
		down:  make([]bool, len(nodes)),
		rng:   rand.NewPCG(cfg.Seed, 0x6f70656e63756265),
		free:  -1,
		hooks: hooks,

		verdict: NewJudge(len(nodes), cfg.Delta),

		stormAt: stormInFlight(len(nodes)) + 4*max(0, cfg.Units),
	}
	s.token = proto.TokenType(cfg.Types)
	if cfg.FIFO {
		s.fifo = make(map[[2]proto.NodeID]float64)
	}
	if cfg.Trace != nil {
		s.trace = bufio.NewWriterSize(cfg.Trace, 1<<16)
	}
	for _, n := range nodes {
		v := n.View()
		if v.TokenHere {
			s.tokenHolders++
		}
		if v.InCS {
			s.inCS++
			s.units += v.Units
		}
	}
	s.stab.Legit = cfg.Legitimate == nil
	return s
}

// Now returns the virtual time in seconds.
func (s *Sim) Now() float64 { return s.now }

// Down reports whether node id is crashed.
func (s *Sim) Down(id proto.NodeID) bool { return s.down[id] }

// InFlight returns the number of messages sent and not yet delivered or dropped.
func (s *Sim) InFlight() int { return s.inFlight }

// Stop ends Run after the current event.
func (s *Sim) Stop() { s.stopped = true }

// Err returns the first invariant violation, or nil.
func (s *Sim) Err() error { return s.err }

// float64 returns a number uniform in [0, 1) from the delays' stream, as
// rand.New(s.rng).Float64 does, without its call through an interface.
func (s *Sim) float64() float64 {
	return float64(s.rng.Uint64()<<11>>11) / (1 << 53)
}

func (s *Sim) alloc() int32 {
	if s.free >= 0 {
		i := s.free
		s.free = s.slab[i].next
		return i
	}
	s.slab = append(s.slab, payload{})
	return int32(len(s.slab) - 1)
}

// set fills in the fields of p that are not the payload of one kind of
// event (msg, timer, fn), leaving those zero: the caller then writes the
// one its kind uses. Writing field by field spares the copy of a whole
// payload built aside.
func (p *payload) set(kind uint8, node proto.NodeID, msgID uint64, sent float64) {
	p.kind, p.in, p.node, p.tag, p.msgID, p.sent, p.next = kind, 0, node, 0, msgID, sent, -1
	p.msg, p.timer, p.fn = proto.Message{}, proto.Timer{}, nil
}

// release frees slot i of the slab. Only the fields that hold pointers are
// cleared, for the garbage collector: the callers of schedule write every
// field of a slot it takes.
func (s *Sim) release(i int32) {
	p := &s.slab[i]
	p.fn, p.msg.Payload = nil, nil
	p.next = s.free
	s.free = i
}

// schedule queues an event at time t and returns its payload to fill in
// (every field, by set and then the kind's own: the slot may hold an
// earlier event's).
func (s *Sim) schedule(t float64) *payload {
	i := s.alloc()
	s.seq++
	s.heap.Push(eventq.Item{T: t, Key: s.seq, Idx: i})
	return &s.slab[i]
}

// Input schedules an input (EnterCS with its request serial tag, ExitCS,
// Crash or Recover) for node id, dt seconds from now.
func (s *Sim) Input(dt float64, id proto.NodeID, kind proto.InputKind, tag uint32) {
	p := s.schedule(s.now + dt)
	p.set(evInput, id, 0, 0)
	p.in, p.tag = kind, tag
}

// After calls fn dt seconds from now, between steps.
func (s *Sim) After(dt float64, fn func()) {
	p := s.schedule(s.now + dt)
	p.set(evCall, 0, 0, 0)
	p.fn = fn
}

// Run processes events until none is left, Stop is called, or an invariant
// is violated; it returns the violation.
func (s *Sim) Run() error {
	if !s.started {
		s.started = true
		s.start()
	}
	for len(s.heap) > 0 && !s.stopped && s.err == nil {
		it := s.heap.Pop()
		s.now = it.T
		s.Stats.Popped++
		// The event's slot is freed once the event is done, so p stays
		// its own while it runs: no event scheduled meanwhile takes it.
		// (If the slab grows meanwhile, p still reads the old copy, which
		// nothing writes.)
		p := &s.slab[it.Idx]
		switch p.kind {
		case evCall:
			p.fn()
		case evInput:
			s.step(p.node, &proto.Input{Kind: p.in, Tag: p.tag})
		case evTimer:
			if !s.down[p.node] {
				s.step(p.node, &proto.Input{Kind: proto.Fire, Timer: p.timer})
			}
		case evDeliver:
			s.deliver(p)
		}
		// evDestroyed: nothing arrives
		s.release(it.Idx)
	}
	s.lastClosureCheck()
	if s.trace != nil {
		if err := s.trace.Flush(); err != nil && s.err == nil {
			return fmt.Errorf("sim: writing trace: %w", err)
		}
	}
	return s.err
}

func (s *Sim) deliver(p *payload) {
	m := &p.msg
	s.inFlight--
	if m.Type == s.token {
		s.tokensInFlight--
	}
	if d := s.now - p.sent; d > s.Stats.MaxDelay {
		s.Stats.MaxDelay = d
	}
	if s.down[m.To] {
		s.Stats.Dropped++
		s.traceMsg(trace.Drop, m.To, m, p.msgID)
		return
	}
	s.Stats.Delivered++
	s.traceMsg(trace.Recv, m.To, m, p.msgID)
	s.step(m.To, &proto.Input{Kind: proto.Receive, Msg: *m})
}

// step runs one input through a node and carries out its output. The
// input comes by pointer: it is large, and only the node gets a copy.
func (s *Sim) step(id proto.NodeID, in *proto.Input) {
	n := s.nodes[id]
	before := n.View()
	s.out.Reset()
	if s.trace != nil {
		switch in.Kind {
		case proto.EnterCS:
			s.traceEv(trace.Request, id)
		case proto.Crash:
			s.traceEv(trace.Crash, id)
		case proto.Recover:
			s.traceEv(trace.Recover, id)
		}
	}
	if in.Kind == proto.ExitCS {
		s.traceEv(trace.Exit, id)
	}
	if in.Kind == proto.Receive && in.Msg.Cause == proto.Failure {
		s.verdict.HeardFailure(s.now) // a live node hears of a failure's handling
	}
	n.Step(*in, &s.out)
	s.finish(id, in.Kind, before)
}

// start calls Start on every node that implements proto.Starter, in id
// order, as steps at time 0 before any other input.
func (s *Sim) start() {
	for i, n := range s.nodes {
		st, ok := n.(proto.Starter)
		if !ok || s.down[i] {
			continue
		}
		before := n.View()
		s.out.Reset()
		st.Start(&s.out)
		s.finish(proto.NodeID(i), proto.Fire, before)
	}
}

// finish carries out the output of a step of node id, which was before as
// its view before the step, of an input of kind in, and checks the
// invariants.
func (s *Sim) finish(id proto.NodeID, in proto.InputKind, before proto.View) {
	n := s.nodes[id]
	s.Stats.Steps++
	after := n.View()
	s.down[id] = !after.Up
	if before.Up != after.Up {
		s.upDown(id, after.Up)
	}
	if s.out.Suspect.Yes {
		s.judge(id, s.out.Suspect)
	}
	s.tokenHolders += b2i(after.TokenHere) - b2i(before.TokenHere)
	s.inCS += b2i(after.InCS) - b2i(before.InCS)
	if before.InCS {
		s.units -= before.Units
	}
	if after.InCS {
		s.units += after.Units
	}
	if s.out.Events != ([proto.MaxEvents]int32{}) { // most steps count none
		for k, c := range s.out.Events {
			s.Stats.Events[k] += int64(c)
		}
	}
	for i := range s.out.Msgs {
		s.post(&s.out.Msgs[i], false)
	}
	for _, t := range s.out.Timers {
		p := s.schedule(s.now + t.After*s.cfg.Delta)
		p.set(evTimer, id, 0, 0)
		p.timer = t
	}
	if s.out.Enter {
		s.traceEv(trace.Enter, id)
	}
	s.check(id)
	if in == proto.Crash && s.hooks.Crash != nil {
		s.hooks.Crash(id)
	}
	if s.out.Enter && s.hooks.Enter != nil {
		s.hooks.Enter(id, after.Tag)
	}
	if s.inFlight == 0 && s.inCS == 0 && s.hooks.Quiet != nil {
		s.hooks.Quiet()
	}
}

// post sends *m (a copy goes in the queue), or with injected puts it in its
// link as a fault does: it is not counted as sent.
func (s *Sim) post(m *proto.Message, injected bool) {
	if m.To < 0 || int(m.To) >= len(s.nodes) {
		s.fail("node %d sent a %s message to a node that does not exist (%d)", m.From, s.typeName(m.Type), m.To)
		return
	}
	s.msgID++
	if s.inFlight >= s.stormAt {
		s.Stats.Storm = fmt.Sprintf("message storm: %d messages in flight at t=%.4fs (%d sent); the run was stopped", s.inFlight, s.now, s.msgID)
		s.stopped = true
	}
	if injected {
		s.Stats.Injected++
	} else {
		s.Stats.Sent[m.Type][m.Cause]++
	}
	if m.Tag > 0 && m.Cause == proto.Normal && !injected {
		for int(m.Tag) >= len(s.Stats.PerTag) {
			s.Stats.PerTag = append(s.Stats.PerTag, 0)
		}
		s.Stats.PerTag[m.Tag]++
	}
	d := s.cfg.Delta * (s.cfg.MinDelay + (1-s.cfg.MinDelay)*(1-s.float64()))
	if s.cfg.LateFraction > 0 && s.float64() < s.cfg.LateFraction {
		s.Stats.Late++
		d = s.cfg.Delta * (1 + (s.cfg.LateFactor-1)*(1-s.float64()))
	}
	at := s.now + d
	if s.fifo != nil {
		ch := [2]proto.NodeID{m.From, m.To}
		if last := s.fifo[ch]; at < last {
			at = last
		}
		s.fifo[ch] = at
	}
	s.inFlight++
	if m.Type == s.token {
		s.tokensInFlight++
	}
	if m.Cause == proto.Failure && s.hooks.FailureSend != nil {
		s.hooks.FailureSend(m)
	}
	s.traceMsg(trace.Send, m.From, m, s.msgID)
	p := s.schedule(at)
	p.set(evDeliver, 0, s.msgID, s.now)
	p.msg = *m
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (s *Sim) fail(format string, args ...any) {
	if s.err == nil {
		s.err = &Violation{Seed: s.cfg.Seed, Step: s.Stats.Steps, Time: s.now, What: fmt.Sprintf(format, args...)}
	}
}

// Violation is an invariant violation: what went wrong, and the seed and step
// that replay it.
type Violation struct {
	Seed uint64
	Step int64
	Time float64
	What string
}

func (v *Violation) Error() string {
	return fmt.Sprintf("invariant violated at step %d (t=%.6fs, seed %d): %s", v.Step, v.Time, v.Seed, v.What)
}

func (s *Sim) traceEv(ev string, node proto.NodeID) {
	if s.trace == nil {
		return
	}
	trace.WriteEvent(s.trace, s.now, node, ev)
}

func (s *Sim) traceMsg(ev string, node proto.NodeID, m *proto.Message, id uint64) {
	if s.trace == nil {
		return
	}
	trace.WriteMessage(s.trace, s.now, node, ev, s.typeName(m.Type), m, id)
}
