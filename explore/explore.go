// Package explore explores every reachable state of a small system of an
// algorithm's own state machines (proto.Node): every order of message
// deliveries, every point at which a request, an exit, a crash or a
// recovery may happen, and in discrete time every tick at which a message
// may arrive within its bound. It checks in every state what the
// simulator checks after every step (mutual or k-exclusion, the token's
// uniqueness, the algorithm's own invariants) and that no request waits
// while nothing can happen, and gives the shortest run to a state that
// breaks one of them. docs/explore.md says what a clean result covers.
package explore

import (
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"runtime"
	"slices"
	"time"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/safety"
)

// MinUp is how many nodes stay up whatever the crash budget (the
// simulator's rule, faults.MinUp: a crash waits while only 2 are up).
const MinUp = 2

// Config is a system to explore.
type Config struct {
	// Algorithm builds the nodes (its failure protocol and units already
	// chosen).
	Algorithm proto.Algorithm
	// Nodes is N; Requests the critical sections each node may ask for.
	Nodes, Requests int
	// Requesters is how many nodes request (nodes 0 to Requesters−1); 0:
	// every node.
	Requesters int
	// Crashes is how many crashes may happen in a run (each followed, at
	// any later point, by a recovery unless the algorithm's fault model
	// has none).
	Crashes int
	// FIFO delivers the messages of a channel in the order sent.
	FIFO bool
	// Ticks is D, the ticks of δ in discrete time; 0 explores without
	// time (any message may arrive at any point; no timers allowed but
	// with AnyTimer).
	Ticks int
	// AnyTimer, in a search without time (Ticks 0), lets nodes set timers,
	// each of which may fire at any point after it is set: every run of
	// the system in discrete time, for any δ and delays, is then among the
	// runs explored (docs/explore.md, "Time"), so a clean result holds for
	// every timing; a violation may need a timing that bounded delays
	// exclude.
	AnyTimer bool
	// StrictTimers makes a timer due at a tick wait for the messages that
	// must arrive by that tick: a timeout then never fires in a tie with a
	// message sent δ or more before (which a timer set to a bound on a
	// round trip would otherwise race at the bound exactly).
	StrictTimers bool
	// MinTicks is the least delay of a message, in ticks (discrete time).
	MinTicks int
	// CSTicks is the longest stay in the critical section, in ticks
	// (discrete time): a node leaves at any tick from 0 to CSTicks.
	CSTicks int
	// MaxStates stops the search after that many distinct states;
	// MaxBytes stops it when the states waiting to be expanded take more.
	MaxStates int64
	MaxBytes  int64
	// MinDiskFree stops it when the file system of its temporary files
	// (os.TempDir: the path logs, 20 bytes a state, and the BFS levels
	// spilled) has less free: 0 is 1 GiB, or a quarter of a file system
	// smaller than 4 GiB, looked at once the search has written 64 MiB;
	// negative, no check.
	MinDiskFree int64
	// Initial, if not nil, returns the initial configurations to explore
	// from (a self-stabilizing algorithm's arbitrary ones); nil: the
	// algorithm's own.
	Initial func() ([]Configuration, error)
	// Reduce explores, from each state, only a persistent set of
	// deliveries where one is found (partial-order reduction; see
	// reduce.go and docs/explore.md), where it is sound for every check
	// the search makes: untimed runs without crashes of an algorithm that
	// is not self-stabilizing and declares no EveryStep invariant (or with
	// ReduceEveryStep). Elsewhere the search is full whatever Reduce
	// says, and Result.NoReduction says why.
	Reduce bool
	// ReduceEveryStep lets the reduction apply to an algorithm that
	// declares EveryStep invariants too: those are then checked in the
	// states visited, which are not every state reachable.
	ReduceEveryStep bool
	// Workers is how many goroutines expand each BFS level (0:
	// runtime.NumCPU()). The states counted, the verdict and the length
	// of the shortest run to a violation do not depend on it, with the
	// reduction or without.
	Workers int
	// Store chooses how the visited states are kept (StoreAuto: 64-bit
	// fingerprints in the fast set unless it could outgrow MaxBytes
	// before MaxStates; StoreExact: whole encodings, so that no hash
	// collision can hide a state). With fingerprints Result.Collision is
	// the chance that one hid a state.
	Store Store
	// Forget: once every node has issued its last request, set what the
	// algorithm declares no longer matters (proto.Forgetter,
	// proto.MessageForgetter) to fixed values, in untimed searches without
	// crashes or the partial-order reduction (docs/explore.md,
	// "Forgetting"). The states counted are then the classes of states
	// that differ only in those values; the verdict is the same.
	Forget bool
	// Progress, if not nil, is called after each BFS level.
	Progress func(depth int, states int64)
	// StabProgress, if not nil, is called by Stabilization after every
	// 2^20 states before legitimacy, with their count so far.
	StabProgress func(states int64)
	// Stop, if not nil, ends the search when it is closed (Ctrl-C): the
	// result is then incomplete (Result.Limit is StopLimit), with what
	// was reached until then. The search looks at it every few hundred
	// states.
	Stop <-chan struct{}
}

// StopLimit is Result.Limit of a search that Config.Stop ended.
const StopLimit = "it was interrupted"

// stopped reports whether c.Stop is closed.
func (c *Config) stopped() bool {
	if c.Stop == nil {
		return false
	}
	select {
	case <-c.Stop:
		return true
	default:
		return false
	}
}

// Configuration is an initial configuration: the nodes, and the messages
// in flight (each may arrive at any tick from 0 to δ); an
// EnumerableAlgorithm generates them.
type Configuration = proto.Configuration

// timerRenamer is a node whose timers matter only by whether their Seq is
// its live timer's (kofl's Root), and a timer that is not live does
// nothing when it fires: after each of its steps that arms a timer the
// explorer renames the new live timer 1 and drops the node's stale ones,
// so that a counter of timers armed does not make every round a new state.
type timerRenamer interface {
	TimerSeq() uint32
	SetTimerSeq(uint32)
}

// Result is what an exploration found.
type Result struct {
	States      int64 // distinct states reached
	Transitions int64 // transitions computed (edges, duplicates included)
	Depth       int   // the deepest BFS level reached
	Terminal    int64 // states from which nothing can happen
	Elapsed     time.Duration
	// Limit says why the search stopped before the end ("" if it did
	// not): a clean result then covers only the states reached.
	Limit string
	// Violation is the first state that breaks a check, at the least
	// depth; nil if none.
	Violation *Violation
	// BytesPerState is the memory the search keeps per state reached (the
	// hash set and the parent links), and PeakFrontier the largest BFS
	// level's encodings, in bytes.
	BytesPerState float64
	PeakFrontier  int64
	// NodeStates is the number of distinct node states met (a state names
	// its nodes' by number in this table), NodeBytes their encodings' size.
	NodeStates int
	NodeBytes  int64
	// Reduced is whether the partial-order reduction was on; then
	// ReducedStates were expanded with a persistent set smaller than
	// every transition enabled, FullStates in full, of which Provisos
	// because a reduced set would have closed a cycle.
	Reduced                             bool
	ReducedStates, FullStates, Provisos int64
	// ReduceOff: the reduction applied to fewer than a fifth of the
	// first states it was tried on, and was turned off for the rest.
	ReduceOff bool
	// NoReduction says why the reduction asked for (Config.Reduce) did
	// not apply ("" if it did, or was not asked for).
	NoReduction string
	// Forgot: the search forgot what the algorithm declares (Config.Forget);
	// NoForget says why it did not, if it was asked to and the algorithm
	// declares something.
	Forgot   bool
	NoForget string
	// Workers is how many goroutines expanded the levels; Exact whether
	// the visited set kept whole encodings (StoreExact); Collision, with
	// fingerprints, an upper bound on the probability that a collision of
	// two states' fingerprints hid one (Collision); LogBytes the path
	// log's size on disk (a violation's run is rebuilt from it).
	Workers   int
	Exact     bool
	Compact   bool // the fingerprints were kept in the compact set (Store)
	Collision float64
	LogBytes  int64
	// SpilledBytes is how many bytes of BFS levels went to disk, because
	// the levels outgrew their part of Config.MaxBytes.
	SpilledBytes int64
}

// Store is how a search keeps the states it has reached: their
// fingerprints, or with StoreExact their whole encodings
// (docs/explore.md, "Making Go structs hashable").
type Store uint8

// The stores.
const (
	// StoreAuto is StoreFast unless MaxStates states could take more
	// than MaxBytes in it (FastBytesPerState each), then StoreCompact.
	StoreAuto Store = iota
	// StoreFast keeps 8-byte fingerprints in tables at most 3/4 full that
	// double as they fill: 10.7 to 21.3 bytes a state.
	StoreFast
	// StoreCompact keeps them by quotienting in tables at most 9/10 full
	// that grow by an eighth: at most 8 bytes a state from about a
	// million states on, for more CPU a state.
	StoreCompact
	// StoreExact keeps every state's whole encoding (about 77 bytes a
	// state at N = 4): no collision can hide a state.
	StoreExact
)

// FastBytesPerState is the most the fast store takes a state: a shard's
// table just doubled, 3/8 full (8 bytes a slot).
const FastBytesPerState = 8 / (3.0 / 8)

// compact reports whether a search of cfg keeps its fingerprints in the
// compact set.
func (cfg *Config) compact() bool {
	switch {
	case cfg.Store == StoreFast || cfg.Store == StoreExact:
		return false
	case cfg.Store == StoreCompact:
		return true
	}
	return cfg.MaxBytes > 0 && float64(cfg.MaxStates)*FastBytesPerState > float64(cfg.MaxBytes)
}

// TempDiskFree returns the bytes free on the file system that holds a
// search's temporary files (os.TempDir: the path logs and the BFS levels
// spilled); ok is false if it cannot tell.
func TempDiskFree() (free int64, ok bool) {
	free, _, ok = diskFree(os.TempDir())
	return free, ok
}

// Violation is a broken check and the shortest run to it.
type Violation struct {
	What string
	Path []Step
}

// Error implements error.
func (v *Violation) Error() string { return v.What }

// ActionKind is the kind of a transition.
type ActionKind uint8

// The transitions.
const (
	Deliver ActionKind = iota // a message in flight arrives (or is dropped at a node down)
	Fire                      // a timer due now fires
	Request                   // a node calls enter_cs
	Exit                      // a node in the critical section leaves it
	Crash                     // a node crashes
	Recover                   // a crashed node recovers
	Tick                      // time advances by one tick
	Start                     // the initial configuration (Starter steps)
)

var actionNames = [...]string{"deliver", "fire", "request", "exit", "crash", "recover", "tick", "start"}

func (k ActionKind) String() string { return actionNames[k] }

// action is a transition out of a state: its kind, the node, and the index
// of the message or timer in the state's canonical order.
type action struct {
	kind ActionKind
	node int32
	idx  int32
}

func (a action) pack() uint32 {
	return uint32(a.kind) | uint32(a.node)<<4 | uint32(a.idx)<<14
}

func unpack(x uint32) action {
	return action{kind: ActionKind(x & 15), node: int32(x>>4) & 1023, idx: int32(x >> 14)}
}

// Step is one transition of a path, as the explorer replays it.
type Step struct {
	Kind  ActionKind
	Node  proto.NodeID
	Tick  int
	Msg   proto.Message // Deliver
	MsgID uint64        // Deliver: the number of the message (1, 2, … in send order)
	Timer proto.Timer   // Fire
	// Dropped: the message reached a node that is down.
	Dropped bool
	Tag     uint32          // Request
	Sent    []proto.Message // the messages the step sent
	SentIDs []uint64
	Enter   bool // the node entered the critical section
	Up      bool // the node is up after the step
}

// Explorer explores one configuration.
type Explorer struct {
	_       [64]byte // a worker's clone apart from the others' (written at every state)
	cfg     Config
	alg     proto.Algorithm
	nc      *nodeCodec
	types   []reflect.Type // node i's concrete type
	family  proto.Family
	token   proto.MsgType
	ell     int
	every   []proto.Invariant
	quiet   []proto.Invariant
	stab    proto.SelfStabilizingAlgorithm
	recover bool
	out     proto.Output
	sy      system // check's
	buf     []byte
	// nt is the table of node states (shared by the workers); interned
	// is a snapshot of it, and internIdx this explorer's index into it
	// (intern).
	nt        *nodeTable
	items     *itemTable // the messages and timers (shared)
	msgs      []*message // snapshots of items'
	timers    []*timerSet
	interned  []*cachedNode
	internIdx map[uint64]uint32
	steps     map[uint64]*stepResult
	fast      *[1 << fastBits]fastStep // stepFast's
	cacheMax  int                      // the most steps kept
	key       []byte
	hits      int64
	reduce    bool
	noReduce  string // why the reduction asked for does not apply
	red       reducer
	// roundEvent is the index of a self-stabilizing algorithm's round
	// event (kofl: Root's START, a traversal) in Output.Events, or −1.
	roundEvent int
	// forgets: the search forgets what the algorithm declares once every
	// request is issued (forgetting; noForget says why not, if asked);
	// forgot is this worker's record of it.
	forgets  bool
	noForget string
	forgot   forgotten
	_        [64]byte
}

// New checks cfg (Validate) and returns its explorer.
func New(cfg Config) (*Explorer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return newExplorer(cfg)
}

// Validate checks cfg's bounds, without building anything: a caller with
// several configurations checks them all before exploring one.
func (cfg Config) Validate() error {
	switch {
	case cfg.Algorithm == nil:
		return errors.New("explore: no algorithm")
	case cfg.Nodes < 2 || cfg.Nodes > 1023:
		return fmt.Errorf("explore: %d nodes: give 2..1023", cfg.Nodes)
	case cfg.Requests < 0 || cfg.Requests > 200:
		return fmt.Errorf("explore: %d requests per node: give 0..200", cfg.Requests)
	case cfg.Requesters < 0 || cfg.Requesters > cfg.Nodes:
		return fmt.Errorf("explore: %d requesters: give 0 (every node) to %d", cfg.Requesters, cfg.Nodes)
	case cfg.Crashes < 0 || cfg.Crashes > 200:
		return fmt.Errorf("explore: %d crashes: give 0..200", cfg.Crashes)
	case cfg.Ticks < 0 || cfg.Ticks > 100:
		return fmt.Errorf("explore: %d ticks per δ: give 0 (no time) or 1..100", cfg.Ticks)
	case cfg.Ticks > 0 && cfg.AnyTimer:
		return errors.New("explore: timers at any time are for a search without time (ticks 0)")
	case cfg.Ticks > 0 && (cfg.MinTicks < 0 || cfg.MinTicks > cfg.Ticks):
		return fmt.Errorf("explore: least delay %d ticks: give 0..%d", cfg.MinTicks, cfg.Ticks)
	case cfg.Ticks > 0 && (cfg.CSTicks < 0 || cfg.CSTicks > 250):
		return fmt.Errorf("explore: %d ticks in the critical section: give 0..250", cfg.CSTicks)
	case cfg.MaxStates < 1:
		return fmt.Errorf("explore: state limit %d: give at least 1", cfg.MaxStates)
	case cfg.Workers < 0 || cfg.Workers > 1024:
		return fmt.Errorf("explore: %d workers: give 0 (every core) to 1024", cfg.Workers)
	case cfg.Store > StoreExact:
		return fmt.Errorf("explore: store %d unknown", cfg.Store)
	}
	if cfg.Crashes > 0 && cfg.Nodes <= MinUp {
		return fmt.Errorf("explore: crashes need N > %d (%d nodes stay up)", MinUp, MinUp)
	}
	if cfg.Crashes > 0 && cfg.Ticks == 0 {
		return errors.New("explore: crashes need discrete time (ticks > 0): failure protocols rest on timers")
	}
	return nil
}

// reducible reports whether the reduction applies to cfg's search, and if
// it was asked for and does not, why (docs/explore.md, "Reductions": it
// is proven sound for mutual and k-exclusion, the token's uniqueness, no
// deadlock and the Quiet invariants, in untimed runs without crashes).
func reducible(cfg Config, e *Explorer) (bool, string) {
	if !cfg.Reduce {
		return false, ""
	}
	switch why := notPlain(cfg, e); {
	case why != "":
		return false, why
	case len(e.every) > 0 && !cfg.ReduceEveryStep:
		return false, "its every-step invariants"
	}
	return true, ""
}

// notPlain says what makes cfg's search other than an untimed one without
// crashes of an algorithm that is not self-stabilizing ("" if nothing):
// what the reduction and forgetting are argued for.
func notPlain(cfg Config, e *Explorer) string {
	switch {
	case e.stab != nil:
		return "self-stabilizing"
	case cfg.Ticks > 0:
		return "timed"
	case cfg.AnyTimer:
		return "timers"
	case cfg.Crashes > 0:
		return "crashes"
	}
	return ""
}

// newExplorer returns the explorer of cfg, which Validate accepted.
func newExplorer(cfg Config) (*Explorer, error) {
	if cfg.Requesters == 0 {
		cfg.Requesters = cfg.Nodes
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = math.MaxInt64
	}
	if cfg.Workers == 0 {
		cfg.Workers = runtime.NumCPU()
	}
	a := cfg.Algorithm
	if f, ok := a.(proto.FIFOAlgorithm); ok && f.NeedsFIFO() {
		cfg.FIFO = true // as every runtime does
	}
	e := &Explorer{cfg: cfg, alg: a, family: a.Family(), token: proto.TokenType(a.MessageTypes())}
	if k, ok := a.(proto.KExclusionAlgorithm); ok {
		e.ell, _ = k.Units()
	}
	for _, inv := range a.Invariants(cfg.Crashes > 0) {
		switch inv.When {
		case proto.EveryStep:
			e.every = append(e.every, inv)
		case proto.Quiet:
			e.quiet = append(e.quiet, inv)
		}
	}
	e.stab, _ = a.(proto.SelfStabilizingAlgorithm)
	e.roundEvent = -1
	if e.stab != nil {
		name, _ := e.stab.Round()
		e.roundEvent = slices.Index(a.Events(), name)
	}
	e.reduce, e.noReduce = reducible(cfg, e)
	e.recover = true
	if ft, ok := a.(proto.FaultTolerantAlgorithm); ok && ft.FaultModel().NoRecovery {
		e.recover = false
	}
	nodes := a.NewNodes(cfg.Nodes)
	if len(nodes) != cfg.Nodes {
		return nil, fmt.Errorf("explore: %s built %d nodes for N = %d", a.Name(), len(nodes), cfg.Nodes)
	}
	nc, err := newNodeCodec(nodes)
	if err != nil {
		return nil, err
	}
	e.nc = nc
	e.nt = &nodeTable{idx: map[uint64]uint32{}}
	e.items = &itemTable{msgIdx: map[string]uint32{}, timerIdx: map[string]uint32{}}
	e.cacheMax = maxCache
	e.internIdx, e.steps, e.fast = map[uint64]uint32{}, map[uint64]*stepResult{}, new([1 << fastBits]fastStep)
	for _, n := range nodes {
		e.types = append(e.types, reflect.TypeOf(n))
	}
	e.forgets, e.noForget = forgetting(cfg, e, nodes)
	return e, nil
}

// system is a state's nodes, seen as a proto.System by invariants.
type system struct {
	nodes []proto.Node
	views []proto.View
	msgs  []flight
}

func (s *system) Nodes() []proto.Node       { return s.nodes }
func (s *system) Down(id proto.NodeID) bool { return !s.views[id].Up }
func (s *system) ForEachInFlight(f func(m *proto.Message)) {
	for i := range s.msgs {
		f(&s.msgs[i].m)
	}
}

// check returns what breaks in state s (nodes decoded, views computed), or
// "".
func (e *Explorer) check(s *sys) string {
	// The invariants take the system as an interface: e.sy is reused, so
	// that no check allocates one.
	sy := &e.sy
	*sy = system{nodes: s.nodes, views: s.views, msgs: s.msgs}
	if s.closure != "" {
		return s.closure
	}
	if e.stab != nil && !s.legit {
		return "" // before stabilization the configuration is arbitrary
	}
	inCS, units, holders := 0, 0, 0
	for _, v := range s.views {
		if v.InCS && v.Up {
			inCS++
			units += v.Units
		}
		if v.TokenHere && v.Up {
			holders++
		}
	}
	if e.family == proto.KExclusion {
		if rule := (safety.KExclusion{Ell: e.ell}); rule.Broken(units) {
			return rule.What(units)
		}
	} else if rule := (safety.Mutex{}); rule.Broken(inCS) {
		return rule.What(inCS)
	}
	if e.family == proto.TokenBased {
		rule := safety.Token{Type: e.token, Crashes: e.cfg.Crashes > 0}
		inFlight := 0
		for i := range s.msgs {
			if rule.Carries(&s.msgs[i].m) {
				inFlight++
			}
		}
		t := rule.Count(holders, inFlight, func() int {
			live := 0
			for i := range s.msgs {
				m := &s.msgs[i].m
				if rule.Carries(m) && rule.Live(m, s.views[m.To].Up, s.views[m.To].Gen) {
					live++
				}
			}
			return live
		})
		if rule.Broken(t) {
			return rule.What(t, holders, inFlight)
		}
	}
	for _, inv := range e.every {
		if err := inv.Check(sy); err != nil {
			return err.Error()
		}
	}
	if len(s.msgs) == 0 {
		for _, inv := range e.quiet {
			if err := inv.Check(sy); err != nil {
				return err.Error()
			}
		}
	}
	if len(s.msgs) == 0 && len(s.timers) == 0 && inCS == 0 {
		canRecover := false
		for _, v := range s.views {
			if !v.Up && e.recover {
				canRecover = true
			}
		}
		if !canRecover {
			for i, v := range s.views {
				if v.Up && v.Asked {
					return fmt.Sprintf("deadlock: node %d's request waits, and no message is in flight, no timer set, no node in the critical section", i)
				}
			}
		}
	}
	return ""
}

// legitimate evaluates a self-stabilizing algorithm's legitimacy
// predicate in s (before s is hashed: legitimacy is part of a state) and
// sets s.legit, or s.closure if s was legitimate and is not now.
func (e *Explorer) legitimate(s *sys) {
	s.closure = ""
	if e.stab == nil {
		return
	}
	err := e.stab.Legitimate(&system{nodes: s.nodes, views: s.views, msgs: s.msgs})
	switch {
	case err == nil:
		s.legit = true
	case s.legit:
		s.closure = fmt.Sprintf("closure: the configuration was legitimate and is not now: %v", err)
	}
}

// decodeNodes decodes every node of s and computes its views.
func (e *Explorer) decodeNodes(s *sys) error {
	s.nodes = s.nodes[:0]
	s.views = s.views[:0]
	for _, id := range s.ids {
		c := e.node(id)
		if c == nil {
			return errCorrupt
		}
		s.nodes = append(s.nodes, c.node)
		s.views = append(s.views, c.view)
	}
	return nil
}

// actions appends the transitions enabled in s.
func (e *Explorer) actions(s *sys, as []action) []action {
	timed := e.cfg.Ticks > 0
	for k := range s.msgs {
		f := &s.msgs[k]
		if timed && f.lo > 0 {
			continue
		}
		if e.cfg.FIFO {
			if k > 0 && s.msgs[k-1].m.From == f.m.From && s.msgs[k-1].m.To == f.m.To {
				continue // not the head of its channel
			}
		} else if k > 0 && s.msgs[k-1] == *f {
			continue // the same message as the previous one: the same successor
		}
		as = append(as, action{kind: Deliver, node: f.m.To, idx: int32(k)})
	}
	overdue := false
	if e.cfg.StrictTimers && timed { // without time no message is due
		for k := range s.msgs {
			overdue = overdue || s.msgs[k].hi == 0
		}
	}
	for k := range s.timers {
		t := &s.timers[k]
		if t.at == 0 && !overdue && (k == 0 || s.timers[k-1].timerSet != t.timerSet || s.timers[k-1].at != 0) {
			as = append(as, action{kind: Fire, node: t.node, idx: int32(k)})
		}
	}
	up := 0
	for _, v := range s.views {
		if v.Up {
			up++
		}
	}
	mustTick := false
	for i, v := range s.views {
		id := int32(i)
		if v.Up && !v.Asked && !v.InCS && int(s.ext[i].issued) < e.cfg.Requests && i < e.cfg.Requesters {
			as = append(as, action{kind: Request, node: id})
		}
		if v.Up && v.InCS {
			as = append(as, action{kind: Exit, node: id})
		}
		if v.Up && int(s.crashes) < e.cfg.Crashes && up > MinUp {
			as = append(as, action{kind: Crash, node: id})
		}
		if !v.Up && e.recover {
			as = append(as, action{kind: Recover, node: id})
		}
		if v.Up && v.InCS {
			mustTick = true
		}
	}
	if timed {
		canTick, pending := true, mustTick
		for k := range s.msgs {
			pending = true
			if s.msgs[k].hi == 0 {
				canTick = false
			}
		}
		for k := range s.timers {
			pending = true
			if s.timers[k].at == 0 {
				canTick = false
			}
		}
		for i, v := range s.views {
			if v.Up && v.InCS && int(s.ext[i].cs) >= e.cfg.CSTicks {
				canTick = false
			}
		}
		if canTick && pending { // a tick with nothing pending leads back to the same state
			as = append(as, action{kind: Tick, node: -1})
		}
	}
	return as
}

// apply computes the successor of s by a, into c (whose slices it
// reuses); rec, if not nil, records the step. The stepped node is decoded
// anew, so s stays as it is.
func (e *Explorer) apply(s *sys, a action, c *sys, rec *Step) error {
	c.crashes, c.legit, c.rounds = s.crashes, s.legit, 0
	c.ids = append(c.ids[:0], s.ids...)
	c.nodes = append(c.nodes[:0], s.nodes...)
	c.views = append(c.views[:0], s.views...)
	c.ext = append(c.ext[:0], s.ext...)
	c.msgs = c.msgs[:0]
	c.timers = c.timers[:0]
	for k := range s.msgs {
		if a.kind == Deliver && int32(k) == a.idx {
			continue
		}
		c.msgs = append(c.msgs, s.msgs[k])
	}
	for k := range s.timers {
		if a.kind == Fire && int32(k) == a.idx {
			continue
		}
		c.timers = append(c.timers, s.timers[k])
	}
	if rec != nil {
		*rec = Step{Kind: a.kind, Node: a.node}
	}
	var in proto.Input
	switch a.kind {
	case Tick:
		for k := range c.msgs {
			f := &c.msgs[k]
			f.hi--
			if f.lo > 0 {
				f.lo--
			}
		}
		for k := range c.timers {
			c.timers[k].at--
		}
		for i, v := range c.views {
			if v.Up && v.InCS {
				c.ext[i].cs++
			}
		}
		return nil
	case Deliver:
		m := s.msgs[a.idx].m
		if rec != nil {
			rec.Msg = m
		}
		if !s.views[m.To].Up {
			if rec != nil {
				rec.Dropped = true
			}
			return nil
		}
		in = proto.Input{Kind: proto.Receive, Msg: m}
	case Fire:
		t := s.timers[a.idx]
		if rec != nil {
			rec.Timer = t.t
		}
		if !s.views[t.node].Up {
			return nil // the simulator skips a down node's timers
		}
		in = proto.Input{Kind: proto.Fire, Timer: t.t}
	case Request:
		tag := uint32(int(s.ext[a.node].issued)*e.cfg.Nodes + int(a.node) + 1)
		c.ext[a.node].issued++
		in = proto.Input{Kind: proto.EnterCS, Tag: tag}
		if rec != nil {
			rec.Tag = tag
		}
	case Exit:
		in = proto.Input{Kind: proto.ExitCS}
	case Crash:
		c.crashes++
		in = proto.Input{Kind: proto.Crash}
	case Recover:
		in = proto.Input{Kind: proto.Recover}
	}
	var enc []byte
	arg := in.Tag
	switch a.kind {
	case Deliver:
		enc, arg = s.msgs[a.idx].enc, s.msgs[a.idx].id
	case Fire:
		enc, arg = s.timers[a.idx].enc, s.timers[a.idx].id
	}
	r, err := e.stepFast(a.node, e.node(s.ids[a.node]), &in, enc, arg)
	if err != nil {
		return err
	}
	e.use(c, a.node, r, rec)
	if e.forgets && e.final(c) {
		return e.forget(c)
	}
	return nil
}

// finish records node id's new state n in c, and carries out e.out.
func (e *Explorer) finish(c *sys, id int32, n proto.Node, rec *Step) error {
	r, err := e.outcome(id, n)
	if err != nil {
		return err
	}
	e.use(c, id, r, rec)
	return nil
}

// initial returns the initial states: the configurations given (or the
// algorithm's own), with every Starter's Start step taken.
func (e *Explorer) initial() ([]*sys, error) {
	var configs []Configuration
	if e.cfg.Initial != nil {
		var err error
		if configs, err = e.cfg.Initial(); err != nil {
			return nil, err
		}
	} else {
		configs = []Configuration{{Nodes: e.alg.NewNodes(e.cfg.Nodes)}}
	}
	var out []*sys
	for _, conf := range configs {
		nodes := conf.Nodes
		if len(nodes) != e.cfg.Nodes {
			return nil, fmt.Errorf("explore: an initial configuration has %d nodes, want %d", len(nodes), e.cfg.Nodes)
		}
		s := &sys{ext: make([]ext, len(nodes)), ids: make([]uint32, len(nodes))}
		for i, n := range nodes {
			// n is stepped below (Start): the table keeps a copy.
			cd := coder{nc: e.nc}
			if err := cd.encodeNode(n); err != nil {
				return nil, err
			}
			cp, err := e.nc.decodeNode(e.types[i], cd.buf)
			if err != nil {
				return nil, err
			}
			c := e.intern(int32(i), cp, cd.buf)
			s.ids[i] = c.id
			s.nodes = append(s.nodes, c.node)
			s.views = append(s.views, c.view)
		}
		for i, n := range nodes {
			st, ok := n.(proto.Starter)
			if !ok || !s.views[i].Up {
				continue
			}
			e.out.Reset()
			st.Start(&e.out)
			if err := e.finish(s, int32(i), n, nil); err != nil {
				return nil, err
			}
		}
		for k := range conf.Msgs {
			m := conf.Msgs[k]
			if m.To < 0 || int(m.To) >= e.cfg.Nodes {
				return nil, fmt.Errorf("explore: an initial message to node %d, of %d", m.To, e.cfg.Nodes)
			}
			m.Payload = slices.Clone(m.Payload)
			s.msgs = append(s.msgs, flight{message: e.internMsg(appendMessage(nil, &m), m), hi: uint8(e.cfg.Ticks)})
		}
		sortFlights(s.msgs, e.cfg.FIFO)
		out = append(out, s)
	}
	return out, nil
}
