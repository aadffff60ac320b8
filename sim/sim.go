// Package sim is ocbench's deterministic discrete-event runtime: it hosts
// every node of a run in one process, in virtual time, delivers messages after
// seeded delays bounded by δ, fires timers, and checks the safety invariants
// after every step. The same seed gives the same run, event for event.
package sim

import (
	"bufio"
	"fmt"
	"io"
	"math"

	"github.com/ocbench/ocbench/internal/hugepage"

	"github.com/ocbench/ocbench/internal/eventq"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
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
	// Owned, if not nil, says which nodes this simulator hosts: it is one
	// part of a run whose other nodes other parts host (a rank of an MPI
	// job in virtual time). A message to a node it does not host goes to
	// Outbox instead of its queue, inputs for such a node are dropped, and
	// the O(1) checks see only the hosted nodes (a runtime checks the
	// whole run at the boundaries of its windows). Nil: every node.
	Owned []bool
	// MaxSteps, if not 0, stops the run once this part has taken that
	// many steps (Stats.OverBudget): a run's budget, which a loop of steps
	// at one instant must not escape.
	MaxSteps int64
	// TraceIndex makes the simulator note, in Segments, where each step's
	// lines begin in Trace, so that the traces of the parts of a run can be
	// merged into the trace of the whole run (MergeTraces).
	TraceIndex bool
	// FatherOf, with Trace, makes the trace carry the father relation of
	// a tree algorithm (the general scheme's, scheme.TreeOf): it returns a
	// node's father pointer and whether the node has one at all. Every
	// hosted node's father is written at time 0, before any step (with
	// TraceIndex, in a segment that MergeTraces puts first), and again
	// after each step that changes it (trace.Father). Nil: no father
	// lines.
	FatherOf func(proto.Node) (proto.NodeID, bool)
	// Pending is how many events the run is expected to hold at once (the
	// workload's timer per node, say): the queue and the slab of events
	// are made that large at once, so that a large run neither copies them
	// as they grow nor holds the old and new arrays together. 0: they
	// grow as needed.
	Pending int
	// Array, if not nil, steps the nodes by index (proto.ArrayAlgorithm):
	// its node i must be nodes[i].
	Array proto.NodeArray
	// Mirrored makes this simulator a part of a self-stabilizing run
	// whose legitimacy predicate and checks after each step a mirror
	// evaluates (bench: the part that hosts node 0 replays every part's
	// steps in the run's order): the part logs its steps in Log and checks
	// nothing after them; the trace lines of the controller's faults
	// (Fault, and the messages it injects) are the mirror's to write; and
	// a message injected from a node the part does not host is the
	// hosting part's to post (this part takes its key only).
	Mirrored bool
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

// Stats are the simulator's counters of a run: the Counts every runtime
// keeps, and the simulator's own (the queue, the budget, the safety
// violations it lets run on, storms, faults in the links). A run split
// into parts adds up its parts' Stats by the rule in each field's `merge`
// tag (Add). The `record` tag names the field of the run's record (JSON)
// that a counter reaches, or "-"; bench's TestCountsReachRecord checks
// both tags.
type Stats struct {
	// Popped counts the events taken from the queue (steps, deliveries to
	// nodes that are down, the workload's and the hooks' calls).
	Popped int64 `merge:"sum" record:"-"`
	Counts
	// PerTag[t] counts the messages sent for the CS request of serial t.
	PerTag []uint32 `merge:"sum" record:"msgs_per_request"`
	// Late counts messages delayed beyond δ on purpose.
	Late int64 `merge:"sum" record:"late_messages"`
	// OverlappingCS and DuplicateTokens count safety violations when
	// KeepGoing is set: times a second node entered the critical section
	// while another was in it, and times a second live token appeared.
	OverlappingCS   int64 `merge:"sum" record:"overlapping_cs"`
	DuplicateTokens int64 `merge:"sum" record:"duplicate_tokens"`
	// OverBudget: the run took Config.MaxSteps steps and was stopped.
	OverBudget bool `merge:"any" record:"-"`
	// FirstBreach describes the first of those, with its time and step.
	FirstBreach string `merge:"first" record:"violation"`
	// Storm, if not empty, says why the run was stopped as a message
	// storm (see stormInFlight).
	Storm string `merge:"first" record:"-"`
	// Injected counts the messages a fault put in the links (junk,
	// duplicates), and Destroyed those a fault took out of them.
	Injected  int64 `merge:"sum" record:"-"`
	Destroyed int64 `merge:"sum" record:"-"`
}

// Add adds o, another part's Stats of the same run, to s by the rules of
// the fields' merge tags (results.AddCounts), the Counts' custom ones as
// Counts.Add does.
func (s *Stats) Add(o *Stats) {
	results.AddCounts(s, o)
	s.addFirstEntries(&o.Counts)
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

// Hooks let a workload follow the run. Hooks run between steps and may
// schedule inputs; they must not step nodes themselves.
type Hooks struct {
	// Enter is called when a node enters the critical section.
	Enter func(id proto.NodeID, tag uint32)
	// FailureSend is called for every message whose cause is a failure.
	FailureSend func(m *proto.Message)
	// Crash is called after a node crashes, and Recover after it comes
	// back up.
	Crash, Recover func(id proto.NodeID)
	// Request is called before node id steps an EnterCS input for the
	// request of serial tag.
	Request func(id proto.NodeID, tag uint32)
}

const (
	evDeliver uint8 = iota
	evTimer
	evInput
	evCall
	evDestroyed // a message in flight that a fault destroyed
)

// payload is an event in the slab: what the queue's entries index (a
// delivery's message id in traces is its entry's Key). It takes 128
// bytes, a power of two, so that finding one by index is a shift.
type payload struct {
	kind uint8
	call uint8        // evCall: 0 calls fn, k > 0 calls nodeCalls[k-1](node, in.Tag)
	node proto.NodeID // evInput, evTimer: the node stepped; evCall: nodeCalls' node
	sent float64      // evDeliver: when the message was sent
	// in is the input the event steps its node with, whole, so that a
	// step reads it where it lies: evInput's (Kind, Tag), evTimer's (Fire,
	// Timer), evDeliver's (Receive, Msg: the message).
	in   proto.Input
	fn   func() // evCall
	next int32  // free list
}

// slot is the simulator's state of one creator of events (Keys): the
// controller's, or a node's, with the node's interface value, all in 32
// bytes, so that the step of a node reads one cache line of them.
type slot struct {
	node proto.Node // nil for the controller
	ctr  uint64     // the events the creator has scheduled (nextKey)
	// units, up, token and inCS are the node's View (Units, Up,
	// TokenHere, InCS) after its last step (or Corrupt, or at New): the
	// view before its next step.
	units           int32
	up, token, inCS bool
	down            bool // the node is crashed (!View.Up after its last step)
}

// Sim is one simulation, or one part of one (Config.Owned).
type Sim struct {
	cfg   Config
	nodes []proto.Node
	// slots[c] is creator c's state: node id's is slots[id+creatorOfNode].
	slots []slot
	now   float64
	heap  eventq.Queue
	ctl   eventq.Queue // the controller's calls in the queue (Window)
	slab  []payload
	free  int32
	// nodeCalls are the functions of NodeCall, called by AfterCall.
	nodeCalls []func(proto.NodeID, uint32)
	out       proto.Output
	hooks     Hooks
	fifo      map[[2]proto.NodeID]float64
	trace     *bufio.Writer
	owned     []bool

	// cur is the creator of the events scheduled now (Key), and curKey
	// the key of the step under way (Mark).
	cur    uint64
	curKey uint64

	posted   uint64 // messages posted, for inFlightKey
	inFlight int
	stormAt  int // stormInFlight(N)
	// quietCheck: check finds nothing after a step that leaves at most
	// one node in the critical section and one token, as the last check
	// found (counts only, a token-based algorithm hosted whole, no
	// legitimacy predicate).
	quietCheck     bool
	tokensInFlight int
	token          proto.MsgType // the token's type (proto.NoToken: none)
	tokenHolders   int
	inCS           int
	lastTokens     int
	units          int // KExclusion: the units in use (View.Units of the nodes in the CS)
	started        bool
	stab           Stab
	rounds         rounds        // asynchronous rounds (self-stabilizing runs)
	ordered        []eventq.Item // ForEachInFlight's scratch (OrderedInFlight)
	orderedKey     [4]uint64
	orderedOK      bool  // ordered holds the messages in flight of orderedKey
	lastClosure    int64 // the step of the legitimacy predicate's last evaluation
	skipped        bool  // this step's closure check is not due (ClosureSmall)
	// incs are the incremental checkers of cfg.Invariants, by index (nil:
	// the invariant's Check runs after every step); incFull says that the
	// next check must read the whole system (incremental).
	incs    []proto.Incremental
	incFull bool
	stepIn  *proto.Message // the message the current step received (nil: none)
	stopped bool
	err     error
	// rare: the run has a trace, is mirrored, has a legitimacy predicate,
	// FIFO links or late messages, or hosts part of the nodes. What a
	// step and a message do for those alone is behind this one test.
	rare      bool
	written   int64   // bytes of trace written (TraceIndex)
	ctlInputs float64 // ControlInputs

	// Outbox holds the messages sent to nodes other parts host, until the
	// runtime takes them (Config.Owned).
	Outbox []Remote
	// Notes are what the judge of suspicions needs, in step order
	// (JudgeNotes).
	Notes   []Note
	fathers []proto.NodeID // the fathers last traced (Config.FatherOf)
	// Segments index the trace by step (Config.TraceIndex).
	Segments []Segment
	// Log holds the part's steps since the runtime last took them
	// (Config.Mirrored); logMsg is the key of the message being
	// delivered.
	Log    []LogEntry
	logMsg uint64

	// Stats are the run's counters.
	Stats Stats
}

// Keys. Every event has a key, and events at the same time happen in the
// order of their keys: the key says who created the event (the
// controller, or a node) and how many events its creator had created
// before, so that the order does not depend on which part of a run hosts
// which node. Events the controller creates come first at equal times; a
// node's Start step (proto.Starter) has key id, before every event.
const (
	keyShift      = 37
	controller    = 1 // the creator index of the controller
	counterMask   = 1<<keyShift - 1
	creatorOfNode = 2 // node id's creator index is id + creatorOfNode
)

// Remote is a message from a node this part hosts to one it does not: its
// delivery time, key (also its id in traces) and sending time.
type Remote struct {
	T, Sent float64
	Key     uint64
	Msg     proto.Message
}

// Mark is a step's place in the order of a run: its time and the key of
// the event it steps.
type Mark struct {
	T   float64
	Key uint64
}

// Before orders marks as the run orders steps.
func (a Mark) Before(b Mark) bool { return a.T < b.T || (a.T == b.T && a.Key < b.Key) }

// Note kinds.
const (
	NoteHeard   uint8 = iota // a live node received a failure-cause message
	NoteUpDown               // a node crashed (Up false) or recovered
	NoteSuspect              // a node suspected a failure (Sp)
)

// Note is one thing the judge of suspicions hears, at a step.
type Note struct {
	Mark
	Kind uint8
	Up   bool
	Node proto.NodeID
	Sp   proto.Suspicion
}

// Segment is where a step's trace lines begin in the trace (TraceIndex).
type Segment struct {
	Mark
	Off int64
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
		slots: hugepage.Make[slot](len(nodes) + creatorOfNode),
		free:  -1,
		hooks: hooks,
		owned: cfg.Owned,
		cur:   controller,

		ctlInputs: math.Inf(1),

		stormAt: stormInFlight(len(nodes)) + 4*max(0, cfg.Units),
	}
	if cfg.Pending > 0 {
		s.slab = hugepage.MakeCap[payload](cfg.Pending)
		s.heap = hugepage.MakeCap[eventq.Item](cfg.Pending)
	}
	s.token = proto.TokenType(cfg.Types)
	s.quietCheck = cfg.Legitimate == nil && cfg.Family == proto.TokenBased && cfg.Owned == nil && cfg.Check < CheckFull
	s.incremental()
	if cfg.FIFO {
		s.fifo = make(map[[2]proto.NodeID]float64)
	}
	if cfg.Trace != nil {
		s.trace = bufio.NewWriterSize(cfg.Trace, 1<<16)
		if cfg.TraceIndex {
			s.trace = bufio.NewWriterSize(&counter{w: cfg.Trace, n: &s.written}, 1<<16)
		}
	}
	if s.trace != nil && cfg.FatherOf != nil {
		s.fathers = make([]proto.NodeID, len(nodes))
		if cfg.TraceIndex {
			// The initial fathers come before every step of every part
			// in a merged trace.
			s.Segments = append(s.Segments, Segment{Mark{math.Inf(-1), 0}, 0})
		}
		for i, n := range nodes {
			f, ok := cfg.FatherOf(n)
			s.fathers[i] = f
			if ok && s.hosts(proto.NodeID(i)) {
				trace.WriteFather(s.trace, 0, proto.NodeID(i), f)
			}
		}
	}
	for i, n := range nodes {
		sl := &s.slots[i+creatorOfNode]
		sl.node = n
		if s.hosts(proto.NodeID(i)) {
			v := n.View()
			s.cache(sl, v)
		}
	}
	s.stab.Legit = cfg.Legitimate == nil
	s.rare = s.trace != nil || cfg.Mirrored || cfg.Legitimate != nil || s.fifo != nil || cfg.LateFraction > 0 || s.owned != nil
	return s
}

// Now returns the virtual time in seconds.
func (s *Sim) Now() float64 { return s.now }

// Down reports whether node id is crashed.
func (s *Sim) Down(id proto.NodeID) bool { return s.slots[int(id)+creatorOfNode].down }

// slotOf returns node id's slot.
func (s *Sim) slotOf(id proto.NodeID) *slot { return &s.slots[int(id)+creatorOfNode] }

// cache notes v, node sl's view, as its view before its next step, and
// adds the changes since the view it held to the counts of token holders,
// nodes in the critical section and units in use. The units of a node in
// the critical section must fit in 32 bits.
func (s *Sim) cache(sl *slot, v proto.View) {
	if sl.token != v.TokenHere || sl.inCS || v.InCS {
		s.cacheCounts(sl, v)
	}
	sl.up = v.Up
}

// cacheCounts is cache's counts, for a view that changes them.
func (s *Sim) cacheCounts(sl *slot, v proto.View) {
	s.tokenHolders += b2i(v.TokenHere) - b2i(sl.token)
	s.inCS += b2i(v.InCS) - b2i(sl.inCS)
	if sl.inCS || v.InCS {
		s.cacheUnits(sl, v)
	}
	sl.token, sl.inCS = v.TokenHere, v.InCS
}

// cacheUnits is cache's count of the units in use.
func (s *Sim) cacheUnits(sl *slot, v proto.View) {
	if sl.inCS {
		s.units -= int(sl.units)
	}
	if v.InCS {
		s.units += v.Units
		sl.units = int32(v.Units)
		if int(sl.units) != v.Units {
			s.fail("a node in the critical section uses %d units, more than 2^31", v.Units)
		}
	}
}

// resetOut empties s.out for the next step but its Events, which add up
// over steps until flushEvents adds them to Stats.Events: clearing and
// testing 32 counters after every step, most of which count nothing, cost
// more than the step's own checks.
func (s *Sim) resetOut() {
	o := &s.out
	o.Msgs, o.Timers, o.Enter, o.Suspect = o.Msgs[:0], o.Timers[:0], false, proto.Suspicion{}
}

// flushEvents adds the events counted in s.out since the last flush to
// Stats.Events.
func (s *Sim) flushEvents() {
	for k, c := range s.out.Events {
		s.Stats.Events[k] += int64(c)
	}
	s.out.Events = [proto.MaxEvents]int32{}
}

// setDeliver fills in p, a payload scheduleKey returned, as the delivery of
// m (its key, sent now): every field a step or the queue reads, as
// assignments to the heap entry itself (a payload built aside costs a copy).
func (s *Sim) setDeliver(p *payload, m *proto.Message, sent float64) {
	p.kind, p.call, p.sent, p.fn, p.next = evDeliver, 0, sent, nil, -1
	p.in.Kind, p.in.Tag, p.in.Timer = proto.Receive, 0, proto.Timer{}
	p.in.Msg = *m
}

// InFlight returns the number of messages sent and not yet delivered or dropped.
func (s *Sim) InFlight() int { return s.inFlight }

// Stop ends Run after the current event.
func (s *Sim) Stop() { s.stopped = true }

// Err returns the first invariant violation, or nil.
func (s *Sim) Err() error { return s.err }

// uniform returns a number uniform in [0, 1), the j-th draw for the
// message of key k: a hash of the seed, the key and j, so that a message's
// delay does not depend on which part of a run draws it.
func (s *Sim) uniform(k uint64, j uint64) float64 {
	x := splitmix(s.cfg.Seed ^ splitmix(k^j<<61))
	return float64(x>>11) / (1 << 53)
}

// splitmix is SplitMix64's finalizer: a bijection of 64 bits that mixes
// every input bit into every output bit.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// hosts reports whether this part of the run hosts node id.
func (s *Sim) hosts(id proto.NodeID) bool { return s.owned == nil || s.owned[id] }

// counter counts the bytes written through it.
type counter struct {
	w io.Writer
	n *int64
}

func (c *counter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	*c.n += int64(n)
	return n, err
}

// mark notes where the step of key now begins in the trace (TraceIndex).
func (s *Sim) mark() {
	if s.trace != nil && s.cfg.TraceIndex {
		s.Segments = append(s.Segments, Segment{Mark{s.now, s.curKey}, s.written + int64(s.trace.Buffered())})
	}
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

// release frees entry i of the slab. Only the fields that hold pointers
// are cleared, for the garbage collector: the callers of scheduleKey
// write a whole payload into the entry it takes.
func (s *Sim) release(i int32) {
	p := &s.slab[i]
	p.fn, p.in.Msg.Payload = nil, nil
	p.next = s.free
	s.free = i
}

// nextKey returns the key of the next event the current creator schedules.
func (s *Sim) nextKey() uint64 {
	sl := &s.slots[s.cur]
	c := sl.ctr
	sl.ctr++
	return s.cur<<keyShift | c&counterMask
}

func (s *Sim) scheduleKey(t float64, key uint64) *payload {
	i := s.alloc()
	s.heap.Push(eventq.Item{T: t, Key: key, Idx: i})
	return &s.slab[i]
}

// Input schedules an input (EnterCS with its request serial tag, ExitCS,
// Crash or Recover) for node id, dt seconds from now.
func (s *Sim) Input(dt float64, id proto.NodeID, kind proto.InputKind, tag uint32) {
	k := s.nextKey() // taken in every part, so that keys agree
	if s.cur == controller {
		s.ctlInputs = min(s.ctlInputs, s.now+dt)
	}
	if !s.hosts(id) {
		return
	}
	p := s.scheduleKey(s.now+dt, k)
	p.kind, p.call, p.node, p.fn, p.next = evInput, 0, id, nil, -1
	p.in = proto.Input{Kind: kind, Tag: tag}
}

// After calls fn dt seconds from now, between steps.
func (s *Sim) After(dt float64, fn func()) { s.call(s.now+dt, fn) }

// NodeCall registers fn for AfterCall and returns its handle; a Sim
// holds at most 255.
func (s *Sim) NodeCall(fn func(id proto.NodeID, arg uint32)) uint8 {
	if len(s.nodeCalls) == math.MaxUint8 {
		panic("sim: more than 255 NodeCall functions")
	}
	s.nodeCalls = append(s.nodeCalls, fn)
	return uint8(len(s.nodeCalls))
}

// AfterCall calls fn(id, arg), fn the function of handle h (NodeCall), dt
// seconds from now, between steps: After with a function made once, not
// a closure per call, so that a workload that schedules one per request
// allocates nothing for it. The call takes the same key and place in the
// order as After's would.
func (s *Sim) AfterCall(dt float64, h uint8, id proto.NodeID, arg uint32) {
	p := s.call(s.now+dt, nil)
	p.call, p.node, p.in.Tag = h, id, arg
}

// call schedules fn at time t and returns its payload; a call the
// controller schedules is also one of its calls (Window).
func (s *Sim) call(t float64, fn func()) *payload {
	k := s.nextKey()
	p := s.scheduleKey(t, k)
	p.kind, p.call, p.fn, p.next = evCall, 0, fn, -1
	if s.cur == controller {
		s.ctl.Push(eventq.Item{T: t, Key: k})
	}
	return p
}

// Run processes events until none is left, Stop is called, or an invariant
// is violated; it returns the violation. It runs the whole queue at once:
// a runtime that observes the run at window boundaries calls Window.
func (s *Sim) Run() error {
	s.begin()
	for len(s.heap) > 0 && !s.stopped && s.err == nil {
		s.pop()
	}
	return s.End()
}

// begin runs the nodes' Start steps, once.
func (s *Sim) begin() {
	if !s.started {
		s.started = true
		s.start()
	}
}

// End ends the run: the last closure check, and the trace flushed. It
// returns the run's violation or the trace's write error.
func (s *Sim) End() error {
	s.flushEvents()
	s.lastClosureCheck()
	s.cur = controller
	if s.trace != nil {
		if err := s.trace.Flush(); err != nil && s.err == nil {
			return fmt.Errorf("sim: writing trace: %w", err)
		}
	}
	return s.err
}

// Next returns the time of the earliest event in the queue (+Inf: none),
// or 0 before the first window if a hosted node has a Start step
// (proto.Starter), which runs at time 0: a window that began later would
// leave the messages of those steps to other parts arriving in its past.
func (s *Sim) Next() float64 {
	if !s.started && s.starts() {
		return 0
	}
	if len(s.heap) == 0 {
		return math.Inf(1)
	}
	return s.heap[0].T
}

// starts reports whether a hosted node has a Start step.
func (s *Sim) starts() bool {
	for i, n := range s.nodes {
		if _, ok := n.(proto.Starter); ok && s.hosts(proto.NodeID(i)) {
			return true
		}
	}
	return false
}

// NextControl returns the time of the controller's earliest call in the
// queue (+Inf: none).
func (s *Sim) NextControl() float64 {
	if len(s.ctl) == 0 {
		return math.Inf(1)
	}
	return s.ctl[0].T
}

// Window runs one window of the run, from time start, the earliest event
// of the whole run (all its parts): first the controller's events at start
// (its calls, and the inputs it scheduled), then every event before the
// window's end, which is start + width or the controller's next call if
// that is sooner. It returns the end. Between windows the run is at a
// boundary: its state is the state at the end, every part of the run
// agrees on it, and the controller observes it there (SetNow); the
// controller's calls happen only at window starts, so every one of them
// sees the state a boundary observed. The windows, and so the run, do not
// depend on how the nodes are split into parts, as long as no message
// between parts takes less than width.
func (s *Sim) Window(start, width float64) float64 { return s.Windows(start, width, nil) }

// Windows runs windows as Window does, from start, one after another as
// long as idle (nil: never) reports at the end of one that the boundary
// there is one the runtime would leave as it is, and the next window,
// which starts at the earliest event, does not start with a controller
// call. It returns the end of the last window. A simulation that hosts
// the whole run (Config.Owned nil; a part of a run takes one window at a
// time) so skips the boundaries where its controller has nothing to do, at
// the cost of a call, not of a Window's.
func (s *Sim) Windows(start, width float64, idle func() bool) float64 {
	s.begin()
	for {
		s.ctlInputs = math.Inf(1)
		for len(s.heap) > 0 && s.heap[0].T == start && s.heap[0].Key>>keyShift == controller && !s.stopped && s.err == nil {
			s.pop()
		}
		end := min(start+width, s.NextControl())
		if end <= start { // width 0: one instant
			end = math.Nextafter(start, math.Inf(1))
		}
		for len(s.heap) > 0 && s.heap[0].T < end && !s.stopped && s.err == nil {
			s.pop()
		}
		if end > s.now {
			s.now = end
		}
		s.cur = controller
		if idle == nil || s.owned != nil || s.stopped || s.err != nil || len(s.heap) == 0 || len(s.ctl) > 0 && s.ctl[0].T <= s.heap[0].T || !idle() {
			return end
		}
		start = s.heap[0].T
	}
}

// SetNow moves the clock to t (not back), between windows: the controller
// schedules from there.
func (s *Sim) SetNow(t float64) {
	s.now = max(s.now, t)
	s.cur = controller
}

// Stopped reports whether Stop was called or a violation stopped the run.
func (s *Sim) Stopped() bool { return s.stopped || s.err != nil }

// pop runs the earliest event.
func (s *Sim) pop() {
	it := s.heap.Pop()
	s.now = it.T
	s.Stats.Popped++
	s.cur = it.Key >> keyShift
	s.curKey = it.Key
	// The event's slot is freed once the event is done, so p stays its
	// own while it runs: no event scheduled meanwhile takes it. (If the
	// slab grows meanwhile, p still reads the old copy, which nothing
	// writes.)
	p := &s.slab[it.Idx]
	switch p.kind {
	case evCall:
		if s.cur == controller {
			s.ctl.Pop() // it is this call: the earliest of the controller's
		}
		if p.call > 0 {
			s.nodeCalls[p.call-1](p.node, p.in.Tag)
		} else {
			p.fn()
		}
	case evInput:
		s.step(p.node, &p.in)
	case evTimer:
		if !s.slotOf(p.node).down {
			s.step(p.node, &p.in)
		}
	case evDeliver:
		s.deliver(p, it.Key)
	}
	// evDestroyed: nothing arrives (Destroy noted it: incFull)
	s.release(it.Idx)
}

// Accept queues the delivery of a message another part of the run sent to
// a node this part hosts.
func (s *Sim) Accept(r *Remote) {
	s.incFull = true // a message came without a step
	s.setDeliver(s.scheduleKey(r.T, r.Key), &r.Msg, r.Sent)
	if r.Msg.Type == s.token {
		s.tokensInFlight++
	}
	s.inFlight++
}

// deliver delivers the message of p, whose key is key.
func (s *Sim) deliver(p *payload, key uint64) {
	m := &p.in.Msg
	s.inFlight--
	if m.Type == s.token {
		s.tokensInFlight--
	}
	if d := s.now - p.sent; d > s.Stats.MaxDelay {
		s.Stats.MaxDelay = d
	}
	if s.rare && s.cfg.Mirrored {
		s.logMsg = key
	}
	if s.slotOf(m.To).down {
		s.incFull = true // a message left without a step
		if s.cfg.Mirrored {
			s.Log = append(s.Log, LogEntry{Mark: Mark{s.now, s.curKey}, Kind: LogDrop, Node: m.To, MsgKey: key})
		}
		s.Stats.Dropped++
		s.mark()
		s.traceMsg(trace.Drop, m.To, m, key)
		return
	}
	s.Stats.Delivered++
	if s.rare {
		s.mark()
		s.traceMsg(trace.Recv, m.To, m, key)
	}
	s.step(m.To, &p.in)
}

// step runs one input through a node and carries out its output. The
// input comes by pointer: it is large, and only the node gets a copy.
func (s *Sim) step(id proto.NodeID, in *proto.Input) {
	sl := s.slotOf(id)
	s.resetOut()
	s.cur = uint64(id) + creatorOfNode
	if s.rare {
		s.stepRare(id, in)
	} else if in.Kind == proto.EnterCS && s.hooks.Request != nil {
		s.hooks.Request(id, in.Tag)
	}
	s.stepIn = nil
	if in.Kind == proto.Receive {
		if in.Msg.Cause == proto.Failure {
			s.note(Note{Kind: NoteHeard, Node: id}) // a live node hears of a failure's handling
		}
		s.stepIn = &in.Msg
	}
	var after proto.View
	if s.cfg.Array != nil {
		after = s.cfg.Array.StepView(int(id), in, &s.out)
	} else {
		n := sl.node
		proto.Step(n, *in, &s.out)
		after = n.View()
	}
	if afterStep != nil {
		afterStep(sl.node)
	}
	s.finish(id, sl, in.Kind, after)
}

// stepRare is what step does before a node steps with in in a rare run
// (Sim.rare): the trace's index and lines, the mirror's log, and the
// Request hook, in that order.
func (s *Sim) stepRare(id proto.NodeID, in *proto.Input) {
	if in.Kind != proto.Receive {
		s.mark()
	}
	if s.cfg.Mirrored {
		e := LogEntry{Mark: Mark{s.now, s.curKey}, Kind: LogStep, Node: id, In: in.Kind, Tag: in.Tag, Timer: in.Timer}
		if in.Kind == proto.Receive {
			e.MsgKey = s.logMsg
		}
		s.Log = append(s.Log, e)
	}
	if in.Kind == proto.EnterCS && s.hooks.Request != nil {
		s.hooks.Request(id, in.Tag)
	}
	if s.trace != nil {
		switch in.Kind {
		case proto.EnterCS:
			s.traceEv(trace.Request, id)
		case proto.Crash:
			s.traceEv(trace.Crash, id)
		case proto.Recover:
			s.traceEv(trace.Recover, id)
		case proto.ExitCS:
			s.traceEv(trace.Exit, id)
		}
	}
}

// start calls Start on every node that implements proto.Starter, in id
// order, as steps at time 0 before any other input.
func (s *Sim) start() {
	for i, n := range s.nodes {
		st, ok := n.(proto.Starter)
		sl := s.slotOf(proto.NodeID(i))
		if !ok || sl.down || !s.hosts(proto.NodeID(i)) {
			continue
		}
		s.resetOut()
		s.cur, s.curKey = uint64(i)+creatorOfNode, uint64(i)
		s.mark()
		if s.cfg.Mirrored {
			s.Log = append(s.Log, LogEntry{Mark: Mark{s.now, s.curKey}, Kind: LogStart, Node: proto.NodeID(i)})
		}
		st.Start(&s.out)
		s.stepIn = nil
		s.finish(proto.NodeID(i), sl, proto.Fire, n.View())
	}
}

// finish carries out the output of a step of node id (its slot sl), of an
// input of kind in, and checks the invariants. The node's view before the
// step is the one sl holds; its view after, after, is noted there.
func (s *Sim) finish(id proto.NodeID, sl *slot, in proto.InputKind, after proto.View) {
	s.Stats.Steps++
	if s.Stats.Steps == s.cfg.MaxSteps {
		s.Stats.OverBudget, s.stopped = true, true
	}
	sl.down = !after.Up
	if sl.up != after.Up {
		s.upDown(id, after.Up)
	}
	if s.out.Suspect.Yes {
		s.judge(id, s.out.Suspect)
	}
	s.cache(sl, after)
	if s.Stats.Steps%1024 == 0 {
		s.flushEvents() // an int32 does not overflow
	}
	if s.rare && s.cfg.Legitimate != nil {
		s.rounds.step(s.now) // before the step's messages: Stab.Rounds
	}
	for i := range s.out.Msgs {
		s.post(&s.out.Msgs[i], false)
	}
	for _, t := range s.out.Timers {
		p := s.scheduleKey(s.now+t.After*s.cfg.Delta, s.nextKey())
		p.kind, p.call, p.node, p.fn, p.next = evTimer, 0, id, nil, -1
		p.in = proto.Input{Kind: proto.Fire, Timer: t}
	}
	if s.rare {
		if s.out.Enter {
			s.traceEv(trace.Enter, id)
		}
		if s.fathers != nil {
			if f, ok := s.cfg.FatherOf(sl.node); ok && f != s.fathers[id] {
				s.fathers[id] = f
				trace.WriteFather(s.trace, s.now, id, f)
			}
		}
	}
	if !s.quietCheck || s.inCS > 1 || s.tokenHolders+s.tokensInFlight != 1 || s.lastTokens != 1 {
		s.check(id) // else it finds nothing to check, nor to note
	}
	if in == proto.Crash && s.hooks.Crash != nil {
		s.hooks.Crash(id)
	}
	if in == proto.Recover && after.Up && s.hooks.Recover != nil {
		s.hooks.Recover(id)
	}
	if s.out.Enter && s.hooks.Enter != nil {
		s.hooks.Enter(id, after.Tag)
	}
}

// post sends *m (a copy goes in the queue), or with injected puts it in its
// link as a fault does: it is not counted as sent.
func (s *Sim) post(m *proto.Message, injected bool) {
	if m.To < 0 || int(m.To) >= len(s.nodes) {
		s.fail("node %d sent a %s message to a node that does not exist (%d)", m.From, s.typeName(m.Type), m.To)
		return
	}
	if injected && s.cfg.Mirrored && !s.hosts(m.From) {
		s.nextKey() // the part that hosts m.From posts it
		return
	}
	s.posted++
	if s.inFlight >= s.stormAt {
		s.Stats.Storm = fmt.Sprintf("message storm: %d messages in flight at t=%.4fs (%d sent); the run was stopped", s.inFlight, s.now, s.posted)
		s.stopped = true
	}
	if injected {
		s.incFull = true // a message came without a step
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
	key := s.nextKey()
	at := s.now + s.cfg.Delta*(s.cfg.MinDelay+(1-s.cfg.MinDelay)*(1-s.uniform(key, 0)))
	if s.rare {
		at = s.arrival(m, key, at)
	}
	s.inFlight++
	if m.Type == s.token {
		s.tokensInFlight++
	}
	if m.Cause == proto.Failure && s.hooks.FailureSend != nil {
		s.hooks.FailureSend(m)
	}
	if s.rare && !s.postRare(m, injected, key, at) {
		return
	}
	s.setDeliver(s.scheduleKey(at, key), m, s.now)
}

// arrival returns the arrival time of message m of key key in a rare run
// (Sim.rare), at its drawn arrival time: later if the message is late or
// its FIFO link holds a message that arrives later; a legitimacy
// predicate's rounds note it.
func (s *Sim) arrival(m *proto.Message, key uint64, at float64) float64 {
	if s.cfg.LateFraction > 0 && s.uniform(key, 1) < s.cfg.LateFraction {
		s.Stats.Late++
		at = s.now + s.cfg.Delta*(1+(s.cfg.LateFactor-1)*(1-s.uniform(key, 2)))
	}
	if s.fifo != nil {
		ch := [2]proto.NodeID{m.From, m.To}
		if last := s.fifo[ch]; at < last {
			at = last
		}
		s.fifo[ch] = at
	}
	if s.cfg.Legitimate != nil {
		s.rounds.due = max(s.rounds.due, at) // only self-stabilizing runs count rounds
	}
	return at
}

// postRare is what post does for message m (key, arrival at) in a rare
// run (Sim.rare) once it is counted: the mirror's log, the trace's line,
// and the outbox if another part hosts its destination. It reports
// whether the message is delivered here.
func (s *Sim) postRare(m *proto.Message, injected bool, key uint64, at float64) bool {
	if s.cfg.Mirrored {
		if injected {
			s.Log = append(s.Log, LogEntry{Mark: Mark{s.now, key}, Kind: LogInject, Node: m.From, Msg: *m, Posts: []Post{{key, at}}})
		} else if k := len(s.Log) - 1; k >= 0 {
			s.Log[k].Posts = append(s.Log[k].Posts, Post{key, at})
		}
	}
	if !injected || !s.cfg.Mirrored {
		s.traceMsg(trace.Send, m.From, m, key)
	}
	if !s.hosts(m.To) {
		if m.Type == s.token {
			s.tokensInFlight-- // counted where it is delivered
		}
		s.inFlight--
		s.Outbox = append(s.Outbox, Remote{T: at, Sent: s.now, Key: key, Msg: *m})
		return false
	}
	return true
}

// note adds a note for the judge of suspicions, at the current step.
func (s *Sim) note(n Note) {
	n.Mark = Mark{s.now, s.curKey}
	s.Notes = append(s.Notes, n)
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

// traceMsg writes a message's line, if there is a trace; small enough to
// be inlined, so that a run without a trace pays a test, not a call.
func (s *Sim) traceMsg(ev string, node proto.NodeID, m *proto.Message, id uint64) {
	if s.trace != nil {
		s.writeMsg(ev, node, m, id)
	}
}

func (s *Sim) writeMsg(ev string, node proto.NodeID, m *proto.Message, id uint64) {
	trace.WriteMessage(s.trace, s.now, node, ev, s.typeName(m.Type), m, id)
}

// Counts returns the messages in flight to the nodes this part hosts, the
// hosted nodes in the critical section, those holding a token, and the
// tokens in flight to hosted nodes.
func (s *Sim) Counts() (inFlight, inCS, holders, tokens int64) {
	return int64(s.inFlight), int64(s.inCS), int64(s.tokenHolders), int64(s.tokensInFlight)
}

// IsToken reports whether messages of type t are the algorithm's token.
func (s *Sim) IsToken(t proto.MsgType) bool { return t == s.token && t != proto.NoToken }

// FirstToken returns the token in flight (queued here or in Outbox) that
// arrives first, by its delivery's place in the run's order, and its
// destination; ok is false if there is none.
func (s *Sim) FirstToken() (at Mark, to proto.NodeID, ok bool) {
	if s.token == proto.NoToken {
		return at, proto.Nil, false
	}
	for _, it := range s.heap {
		if p := &s.slab[it.Idx]; p.kind == evDeliver && p.in.Msg.Type == s.token {
			if m := (Mark{it.T, it.Key}); !ok || m.Before(at) {
				at, to, ok = m, p.in.Msg.To, true
			}
		}
	}
	for k := range s.Outbox {
		r := &s.Outbox[k]
		if r.Msg.Type == s.token {
			if m := (Mark{r.T, r.Key}); !ok || m.Before(at) {
				at, to, ok = m, r.Msg.To, true
			}
		}
	}
	return at, to, ok
}

// ControlInputs returns the earliest time of the inputs the controller
// scheduled since the last window began (+Inf: none): the parts that do
// not host their nodes know of them only so.
func (s *Sim) ControlInputs() float64 { return s.ctlInputs }

// CurrentKey returns the key of the step under way (Mark).
func (s *Sim) CurrentKey() uint64 { return s.curKey }

// Fail stops the run with a violation that a runtime found (the parts of
// a run check the whole at window boundaries).
func (s *Sim) Fail(format string, args ...any) { s.fail(format, args...) }

// As runs fn as node id: the events fn schedules are the node's (their
// keys name it), as if it scheduled them in a step. A workload starts each
// node's requests so, in the part of a run that hosts the node.
func (s *Sim) As(id proto.NodeID, fn func()) {
	cur := s.cur
	s.cur = uint64(id) + creatorOfNode
	fn()
	s.cur = cur
}

// MergeTraces writes to w the trace of a whole run from the traces of its
// parts (Config.TraceIndex) and their Segments: every step's lines, in the
// run's order of steps, as one simulator hosting every node writes them.
func MergeTraces(w io.Writer, traces [][]byte, segs [][]Segment) error {
	if len(traces) != len(segs) {
		return fmt.Errorf("sim: merging traces: %d traces, %d indexes", len(traces), len(segs))
	}
	at := make([]int, len(traces)) // the next segment of each part
	bw := bufio.NewWriterSize(w, 1<<16)
	for {
		best := -1
		for k := range traces {
			if at[k] < len(segs[k]) && (best < 0 || segs[k][at[k]].Before(segs[best][at[best]].Mark)) {
				best = k
			}
		}
		if best < 0 {
			break
		}
		sg := segs[best]
		from, to := sg[at[best]].Off, int64(len(traces[best]))
		if at[best]+1 < len(sg) {
			to = sg[at[best]+1].Off
		}
		if from < 0 || from > to || to > int64(len(traces[best])) {
			return fmt.Errorf("sim: merging traces: segment [%d, %d) of a %d-byte trace", from, to, len(traces[best]))
		}
		if _, err := bw.Write(traces[best][from:to]); err != nil {
			return fmt.Errorf("sim: writing the merged trace: %w", err)
		}
		at[best]++
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("sim: writing the merged trace: %w", err)
	}
	return nil
}

// Kinds of LogEntry.
const (
	LogStep   uint8 = iota // a node's step of an input (In, Tag, Timer, MsgKey)
	LogStart               // a node's Start step (proto.Starter)
	LogDrop                // a message (MsgKey) delivered to a node that is down
	LogInject              // a message a fault put in a link (Msg; Posts[0]: its key and delivery time)
	LogFault               // a corruption event of the controller (bench), at its call's mark
)

// Post is a message a step sent: its key and delivery time.
type Post struct {
	Key uint64
	T   float64
}

// LogEntry is one event of a part's run (Config.Mirrored): what a mirror
// needs to replay it on its own copy of the nodes, in the run's order
// (Mark).
type LogEntry struct {
	Mark
	Kind  uint8
	Node  proto.NodeID
	In    proto.InputKind
	Tag   uint32
	Timer proto.Timer
	// MsgKey is the key of the message delivered (LogStep of a Receive,
	// LogDrop).
	MsgKey uint64
	// Posts are the messages the step sent, in its output's order.
	Posts []Post
	// Entered: the step's entry into the critical section is one the
	// workload counts (bench).
	Entered bool
	// Msg is the message injected (LogInject).
	Msg proto.Message
}

// LogEntered marks the step under way as an entry the workload counts
// (Config.Mirrored; else it does nothing).
func (s *Sim) LogEntered() {
	if k := len(s.Log) - 1; s.cfg.Mirrored && k >= 0 {
		s.Log[k].Entered = true
	}
}
