// Package proto defines what every mutual-exclusion algorithm of ocbench
// shares with the runtimes that host it: node ids, messages, the inputs a node
// is stepped with and the outputs it returns.
//
// An algorithm is a pure state machine (the model is etcd's raft package):
// it is stepped with one Input at a time and appends to an Output the
// messages it wants sent, the timers it wants set and whether the node may
// enter the critical section now. It never reads a clock, sleeps, sends or
// draws random numbers, so the simulator and the MPI runtime run the same
// code, and a test can drive an exact interleaving.
package proto

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// NodeID identifies a logical node, 0 ≤ id < N. Ids are 0-based; the papers
// number nodes from 1.
type NodeID = int32

// Nil is the id that means "no node" (the papers' nil), in the NodeID
// fields of a node's state. A message names an optional node with a Ref.
const Nil NodeID = -1

// Ref is an optional reference to a node, the type of the message fields
// that may name none (Message.J, Message.Src). Its zero value names no
// node, so a field left out of a message literal means "none", never node
// 0. It holds the id plus one; build one with RefTo.
type Ref struct{ id1 uint32 }

// RefTo returns the reference to node id; RefTo(Nil) is the zero Ref, none.
func RefTo(id NodeID) Ref { return Ref{uint32(id + 1)} }

// Node returns the node r names, or Nil if none.
func (r Ref) Node() NodeID { return NodeID(r.id1) - 1 }

// IsNil reports whether r names no node.
func (r Ref) IsNil() bool { return r.id1 == 0 }

// Is reports whether r names node id (Is(Nil) is IsNil).
func (r Ref) Is(id NodeID) bool { return r.id1 == uint32(id+1) }

// String returns the id r names, or "nil".
func (r Ref) String() string {
	if r.IsNil() {
		return "nil"
	}
	return fmt.Sprint(r.Node())
}

// GobEncode implements gob.GobEncoder (the MPI runtime gathers its trace
// records, messages included, with encoding/gob): the id as a varint, -1
// for none.
func (r Ref) GobEncode() ([]byte, error) {
	return binary.AppendVarint(nil, int64(r.Node())), nil
}

// GobDecode implements gob.GobDecoder.
func (r *Ref) GobDecode(b []byte) error {
	v, n := binary.Varint(b)
	if n != len(b) || v < int64(Nil) || v > math.MaxInt32-1 {
		return fmt.Errorf("proto: bad node reference % x", b)
	}
	*r = RefTo(NodeID(v))
	return nil
}

// MsgType is the type of a message: a number that the algorithm defines
// and names (Algorithm.MessageTypes); below MaxMsgTypes.
type MsgType uint8

// MaxMsgTypes bounds the message types of one algorithm (runtimes count
// sends in arrays of this size).
const MaxMsgTypes = 32

// NoToken is TokenType's answer for message types without a token: a type
// no message has (types are below MaxMsgTypes).
const NoToken MsgType = 255

// TokenType returns the first of types marked as the token, or NoToken.
func TokenType(types []MessageType) MsgType {
	for k, t := range types {
		if t.Token {
			return MsgType(k)
		}
	}
	return NoToken
}

// MessageType describes one of an algorithm's message types.
type MessageType struct {
	// Name names the type in records and traces ("request", "token").
	Name string
	// Token marks the token of a token-based algorithm: the runtime counts
	// the tokens held (View.TokenHere) and in flight (messages of this
	// type).
	Token bool
	// Payload says what Message.Payload holds, if anything.
	Payload string
	// Stamp says what Message.Stamp holds in messages of this type (a
	// token generation, a logical clock, a request number, a round); ""
	// if it is always 0.
	Stamp string
	// Arg is the field a step test shows as the message's argument, as in
	// "request(8) 7→5": "" for J ("nil" when none), "phase", "reply", or
	// "none".
	Arg string
}

// Cause says why a message was sent: the failure-free protocol, the
// handling of a failure (suspicion, enquiry, search, anomaly, requests
// re-issued after a search, token regeneration), or the detection traffic
// (heartbeats) that tells a waiting requester its request is held by a live
// node. Liveness messages are never part of the overhead per failure.
type Cause uint8

// The causes of messages.
const (
	Normal Cause = iota
	Failure
	Liveness
	NumCauses
)

// String returns "normal", "failure" or "liveness".
func (c Cause) String() string {
	switch c {
	case Failure:
		return "failure"
	case Liveness:
		return "liveness"
	}
	return "normal"
}

// Message is one message between two nodes. It is a plain value: the
// runtimes copy, queue and encode it. Each field means one thing in every
// algorithm; a field left unset means nothing (no node for J and Src).
// docs/design.md ("The message") says what every algorithm puts in each.
type Message struct {
	Type  MsgType
	Cause Cause
	Phase uint8  // a small number (the open-cube: a search phase)
	Reply uint8  // a reply code
	From  NodeID // sender
	To    NodeID // destination
	J     Ref    // a node (the general scheme: a request's requester, a token's lender; zero if none)
	Src   Ref    // the node whose enter_cs the message serves (zero if none)
	Stamp uint64 // a number whose meaning the message's type gives (a token generation, a logical clock, a round)
	Tag   uint32 // the serial of the CS request the message serves (0: none)
	// Payload carries what an algorithm's message holds beyond the fields
	// above, as words (a token's vector of request numbers and queue,
	// logical clocks); nil for most messages. A sender must not change a
	// payload once sent: the simulator hands the same slice to the
	// receiver. The MPI runtime carries at most wire.MaxPayload words.
	Payload []int64
}

// InputKind is the kind of event a node is stepped with.
type InputKind uint8

// The inputs of a node.
const (
	EnterCS InputKind = iota // the local process calls enter_cs
	ExitCS                   // the local process leaves the critical section
	Receive                  // a message arrives
	Fire                     // a timer set by the node expires
	Crash                    // the node fails (fail-stop); volatile state is lost
	Recover                  // the node restarts from stable storage
)

var inputKindNames = [...]string{"enter_cs", "exit_cs", "receive", "fire", "crash", "recover"}

// String returns the input's name: enter_cs, exit_cs, receive, fire, crash
// or recover.
func (k InputKind) String() string {
	if int(k) < len(inputKindNames) {
		return inputKindNames[k]
	}
	return fmt.Sprintf("input(%d)", uint8(k))
}

// Input is one event for a node.
type Input struct {
	Kind  InputKind
	Tag   uint32  // EnterCS: the serial of this CS request; a node's serials increase
	Msg   Message // Receive
	Timer Timer   // Fire
}

// Timer is a timer a node asks for. The runtime fires it After·δ later by
// stepping the node with Input{Kind: Fire, Timer: t}; a node cancels a timer
// by ignoring it when it fires (Seq lets it tell a stale timer).
type Timer struct {
	Kind  uint8
	Seq   uint32
	Arg   NodeID
	After float64 // delay in units of δ
}

// Output is what a step asks the runtime to do. Runtimes reuse one Output;
// nodes only append to it.
type Output struct {
	Msgs   []Message
	Timers []Timer
	// Enter reports that the node entered the critical section in this step.
	Enter bool
	// Events counts algorithm events a runtime reports (token regenerations,
	// stale tokens discarded, searches, ...), indexed by Event.
	Events [MaxEvents]int32
	// Suspect reports that the node suspected a failure in this step.
	Suspect Suspicion
}

// Suspicion is a node's conclusion that a failure happened: it heard nothing
// of its request in time. The runtime, which knows which nodes crashed,
// judges it: it is false if the node suspected is up and in the incarnation
// the suspecter last heard from (or, when Of is Nil, if no node crashed in
// the last Window·δ).
type Suspicion struct {
	Yes bool
	// Of is the node suspected: the last node that said it held the
	// request (Nil: none did; the request was lost on its way).
	Of NodeID
	// Inc is Of's incarnation (the number of times it recovered) when the
	// suspecter last heard from it.
	Inc uint32
	// Window is how long the suspecter waited in silence, in δ.
	Window float64
}

// Reset empties o for the next step, keeping its buffers.
func (o *Output) Reset() {
	o.Msgs = o.Msgs[:0]
	o.Timers = o.Timers[:0]
	o.Enter = false
	o.Events = [MaxEvents]int32{}
	o.Suspect = Suspicion{}
}

// Event is a countable event of an algorithm (a token regenerated, a search
// started): a number the algorithm defines and names (Algorithm.Events);
// below MaxEvents.
type Event uint8

// MaxEvents bounds the events of one algorithm.
const MaxEvents = 32

// View is the part of a node's state that runtimes and the checks of every
// algorithm read. An algorithm family's own state (the token tree's father,
// mandator and lender) is read through an interface of its own package
// (scheme.TreeNode).
//
// A View has four fields, its flags grouped in Bits (read as v.Up, v.InCS,
// …), so that the Go compiler keeps one in registers: a struct of more
// fields is stored field by field and copied whole where a runtime reads
// the view of every step, and that copy's loads wait for the stores.
type View struct {
	Bits
	Tag uint32 // the serial of the CS request the node is serving
	Gen uint64 // the generation of the token held or last seen
	// Units is, for a KExclusion algorithm, the number of units the node
	// uses while InCS (its request's k); 0 otherwise.
	Units int
}

// Bits are a View's flags.
type Bits struct {
	Up        bool
	TokenHere bool // token-based: the node holds the token
	InCS      bool // the node is in the critical section
	Asked     bool // the node has a request of its own outstanding
}

// Node is a mutual-exclusion algorithm's state machine for one node.
type Node interface {
	// Step processes one input and appends what it wants done to out.
	Step(in Input, out *Output)
	// View returns the node's state for invariant checks.
	View() View
	// Waiting calls f for every request waiting in the node's queue: the
	// requester j (the node itself for a local enter_cs).
	Waiting(f func(j NodeID))
}

// Algorithm says what an algorithm is and builds the nodes of one run.
type Algorithm interface {
	// Name is the algorithm's flag value.
	Name() string
	// NewNodes returns the n nodes of a system in their initial state.
	NewNodes(n int) []Node
	// Family says how the algorithm grants the critical section, and so
	// which of the runtime's own checks apply to it.
	Family() Family
	// MessageTypes describes the algorithm's message types, by MsgType
	// (at most MaxMsgTypes); a token-based algorithm marks its token.
	MessageTypes() []MessageType
	// Events names the algorithm's countable events, by Event (at most
	// MaxEvents), as records name them.
	Events() []string
	// Invariants returns the properties of a whole system that the
	// algorithm promises, in a run without crashes (crashes false) or with
	// them; a runtime checks them as each one's When says.
	Invariants(crashes bool) []Invariant
}

// Family is how an algorithm grants the critical section.
type Family uint8

// The families of algorithms.
const (
	// TokenBased: a node enters the critical section only while it holds
	// the one token (View.TokenHere, or a Token message in flight). The
	// runtime checks that exactly one token exists (with crashes, at most
	// one live token), beside mutual exclusion.
	TokenBased Family = iota
	// PermissionBased: a node enters once others have granted it; mutual
	// exclusion is checked from the critical-section events alone.
	PermissionBased
	// KExclusion: ℓ anonymous tokens (units of a resource); a node enters
	// once it holds the k units its request asks for, so up to ℓ nodes may
	// be in the critical section together (k-out-of-ℓ exclusion,
	// algo/kofl). Neither one token nor mutual exclusion applies: the
	// algorithm's invariants check that at most ℓ units are in use and
	// none is held twice.
	KExclusion
)

// System is what an invariant reads of a whole system; a runtime provides
// it.
type System interface {
	// Nodes returns every node of the system, by id.
	Nodes() []Node
	// Down reports whether a node is crashed.
	Down(id NodeID) bool
	// ForEachInFlight calls f for every message in flight (f must not keep
	// m).
	ForEachInFlight(f func(m *Message))
}

// When says when a runtime checks an invariant.
type When uint8

// When an invariant is checked.
const (
	// EveryStep: after every step (the full checks).
	EveryStep When = iota
	// Quiet: after every step that leaves no message in flight.
	Quiet
	// AtEnd: once, at the end of a run (after the repair pass of a run
	// with crashes); its failure is reported, not fatal.
	AtEnd
)

// Invariant is a property of a whole system that an algorithm promises.
type Invariant struct {
	Name string
	When When
	// Check returns the violation, or nil if the property holds.
	Check func(s System) error
	// Incremental, if not nil, makes a checker of one run that checks an
	// EveryStep invariant from what each step changed (Incremental); of a
	// Quiet invariant the runtime calls only Full, whenever it checks it
	// (the checker keeps its buffers from one check to the next). A
	// runtime reports the violations Check returns: when the checker sees
	// one, the runtime runs Check for its verdict and its words.
	Incremental func() Incremental
}

// Incremental checks an invariant step by step, in O(what a step changes)
// where Check reads the whole system.
type Incremental interface {
	// Full checks the whole system, as Invariant.Check does, and keeps
	// what Step needs: the next Step starts from this system.
	Full(s System) error
	// Step checks the system after a step of node id, given that the
	// invariant held after the last Full or Step and that since then only
	// node id's state and the messages in flight changed: in, if not nil,
	// was delivered to id by the step (it is in flight no more), and out
	// were sent by the step (they are in flight now). It returns nil if
	// the invariant holds, ErrFull if it cannot tell (the runtime then
	// calls Full), or else a violation (the runtime then calls Check).
	Step(s System, id NodeID, in *Message, out []Message) error
}

// ErrFull is what Incremental.Step returns when it cannot tell whether the
// invariant holds from the step alone.
var ErrFull = errors.New("proto: the whole system must be checked")

// NoDeadlock is an invariant of every algorithm without timers, run
// without crashes: when no message is in flight, a node is in the critical
// section or no node asks — nothing else can happen then. O(n).
var NoDeadlock = Invariant{Name: "no_deadlock", When: Quiet, Check: noDeadlock}

func noDeadlock(s System) error {
	asking := Nil
	for i, nd := range s.Nodes() {
		v := nd.View()
		if v.InCS {
			return nil
		}
		if v.Asked && asking == Nil {
			asking = NodeID(i)
		}
	}
	if asking != Nil {
		return fmt.Errorf("no_deadlock: no message in flight, no node in the critical section, and node %d asks", asking)
	}
	return nil
}

// The optional parts of an algorithm's descriptor: a runtime asks for them
// with a type assertion, and an algorithm implements those that apply.

// FIFOAlgorithm is implemented by an algorithm that assumes FIFO channels
// (Lamport's): runtimes deliver its messages in sending order between each
// pair of nodes whatever the run's channel setting, and say so.
type FIFOAlgorithm interface {
	NeedsFIFO() bool
}

// Forgetter is implemented by a node whose state keeps values that stop
// mattering once every node has issued its last request, in a run without
// crashes or timers (Lamport's clock): Forget sets them to fixed values.
// The explorer calls it in every such state it reaches (`ocbench explore
// --forget`, docs/explore.md, "Forgetting"), so the declaration must hold:
// from then on, no step's outcome, no message's use by its receiver, no
// View and no invariant depends on what Forget resets.
type Forgetter interface {
	Forget()
}

// MessageForgetter is implemented by an algorithm whose messages carry
// such values (a Lamport clock's stamp on a reply): ForgetMessage sets them
// in m to fixed values, under the same obligation as Forgetter.
type MessageForgetter interface {
	ForgetMessage(m *Message)
}

// QuorumAlgorithm is implemented by a quorum-based algorithm (Maekawa's,
// Agrawal–El Abbadi's): QuorumSize is the size K of a node's quorum in a
// system of n nodes (the largest, if they differ), the node itself
// included; run records report it as quorum_size.
type QuorumAlgorithm interface {
	QuorumSize(n int) int
}

// AnySizeAlgorithm is implemented by an algorithm that needs no hypercube:
// it runs on any number of nodes N ≥ 2, not only on powers of two, and the
// simulator takes any such N for it (the MPI runtimes spread nodes over
// ranks by hypercube placements, so they still take powers of two).
type AnySizeAlgorithm interface {
	AnySize() bool
}

// MemoryEstimator is implemented by an algorithm whose state is not O(1)
// per node: MemoryPerNode(n) is the heap one node of an n-node system
// takes in its initial state, in bytes (measured: bench's
// TestMemoryEstimates checks it against runtime.ReadMemStats). A runtime
// estimates a run's memory from it before the run (bench.Spec.Budget);
// an algorithm without it is taken as a few hundred bytes per node.
type MemoryEstimator interface {
	MemoryPerNode(n int) int64
}

// CostKind says what a stated cost is, and so whether a measurement may be
// divided by it.
type CostKind uint8

// The kinds of stated cost.
const (
	// Exact: a paper's formula, one figure at this N (Low = High).
	Exact CostKind = iota
	// Range: a paper's formula with two ends, Low … High (light and heavy
	// load, or 0 with the idle token).
	Range
	// Order: an order of growth ("O(log N)"); no figure, Low = High = 0.
	Order
	// Derived: a figure the project derives (from the algorithm's rule,
	// or from a paper's formula for a configuration the paper does not
	// give); not a paper's statement.
	Derived
	// bound (algo.AtMost names it, proto keeping its exported names to
	// the few every runtime needs): a paper's upper bound alone ("at most
	// 2(N−1)"); High is the bound, Low is 0 (no lower end is stated).
	bound
)

// String returns "exact", "range", "order", "derived" or "bound".
func (k CostKind) String() string {
	switch k {
	case Exact:
		return "exact"
	case Range:
		return "range"
	case Order:
		return "order"
	case Derived:
		return "derived"
	case bound:
		return "bound"
	}
	return fmt.Sprintf("CostKind(%d)", uint8(k))
}

// Cost is the message cost of one critical section that an algorithm's
// authors or the survey state.
type Cost struct {
	// Low and High are the formula's value at this N, from Low to High
	// (equal when exact); both 0 for an order of growth.
	Low, High float64
	// Text is the formula as the paper writes it ("2(N−1)",
	// "3√N … 5√N", "O(log N)").
	Text string
	// Source names where the formula is stated: "survey T2" (Velazquez
	// 1993, Table 2), "survey §4" (its text), or the paper and section;
	// for a Derived cost, what it is derived from.
	Source string
	// Kind says whether Text is a paper's formula (Exact, Range, or an
	// upper bound alone: algo.AtMost), an order of growth (Order) or the
	// project's derivation (Derived).
	Kind CostKind
}

// Comparable reports whether a measured cost may be divided by High: the
// cost is a paper's formula with a figure (Exact, Range, or an upper
// bound alone, High > 0), not an order of growth nor a derived figure.
func (c Cost) Comparable() bool {
	return (c.Kind == Exact || c.Kind == Range || c.Kind == bound) && c.High > 0
}

// CostAlgorithm is implemented by an algorithm whose message cost per
// critical section a paper states (or, Kind Derived, the project derives),
// for a system of n nodes; comparison tables print it beside the measured
// cost, with its source.
type CostAlgorithm interface {
	StatedCost(n int) Cost
}

// Failures says how a fault-tolerant algorithm's failure protocol runs.
type Failures struct {
	// CSEstimate is an estimate of a critical section's duration, in δ,
	// for the protocol's time-outs.
	CSEstimate float64
	// Protocol names a variant of the failure protocol; "" is the
	// algorithm's own.
	Protocol string
}

// FaultModel is the failures a fault-tolerant algorithm is built for, as
// its paper states them. A fault plan outside it still runs: the run
// record says which assumption the plan broke, beside what happened.
type FaultModel struct {
	// OneAtATime: at most one node is down at any time.
	OneAtATime bool
	// NoRecovery: a crashed node does not come back (its paper does not
	// say what a recovered node does).
	NoRecovery bool
	// AllRecover: every crashed node comes back (a regeneration that waits
	// for every other node's answer stalls on a node down for good).
	AllRecover bool
	// Text states the model in words ("one crash at a time, no
	// recovery").
	Text string
}

// FaultTolerantAlgorithm is implemented by an algorithm with a failure
// protocol: runs with crashes (or --ft) use WithFailures instead of the
// failure-free algorithm. Messages of the protocol have Cause Failure
// (or Liveness for failure detection), and its events name
// "tokens_regenerated" and "stale_tokens_discarded" (duplicates
// eliminated) when it has them, so that every such algorithm is counted
// the same way.
type FaultTolerantAlgorithm interface {
	WithFailures(f Failures) Algorithm
	FaultModel() FaultModel
}

// Starter is implemented by a node that acts before its first input (a
// self-stabilizing algorithm's Root sends the first round's messages and
// arms its timeout: algo/kofl). A runtime calls Start once on every node
// that implements it, in id order, at time 0, before any other input.
type Starter interface {
	Start(out *Output)
}

// NodeArray steps the nodes of one run by index, where they lie in one
// array (ArrayAlgorithm): a runtime that has one computes a node's address
// from its index instead of loading it from the node's interface value,
// passes the input by address, and gets the node's view after the step
// from the same call.
type NodeArray interface {
	// StepView steps node i with *in, as Step(nodes[i], *in, out) would
	// (in is not kept; a Recoverer through AdmitArray), and returns
	// nodes[i].View() after it.
	StepView(i int, in *Input, out *Output) View
}

// ArrayAlgorithm is implemented by an algorithm whose nodes can be built
// in one array that steps them by index.
type ArrayAlgorithm interface {
	Algorithm
	// NewArray returns NewNodes(n) and their NodeArray, or a nil
	// NodeArray for a variant of the algorithm whose nodes have none.
	NewArray(n int) ([]Node, NodeArray)
}

// KExclusionAlgorithm is implemented by an algorithm of the KExclusion
// family (k-out-of-ℓ exclusion): a resource of ℓ units, and requests that
// ask for k of them, 1 ≤ k ≤ K ≤ ℓ. Its nodes say in View.Units how many
// units they use while in the critical section. A runtime checks after
// every step that the units in use add up to ℓ at most; the algorithm's
// invariants check that no unit is held twice.
type KExclusionAlgorithm interface {
	// WithUnits returns the algorithm for ℓ units and requests of at most
	// K, the k of each request drawn from seed (NeedOf), or why it cannot
	// run so.
	WithUnits(ell, k int, seed uint64) (Algorithm, error)
	// Units returns ℓ and K.
	Units() (ell, k int)
	// NeedOf returns the k of the request with serial tag, 1 ≤ k ≤ K: a
	// runtime records the distribution of k.
	NeedOf(tag uint32) int
}

// SelfStabilizingAlgorithm is implemented by an algorithm that reaches its
// legitimate configurations from any configuration (transient faults), and
// stays in them. Its nodes implement Corruptible.
type SelfStabilizingAlgorithm interface {
	// Legitimate returns nil if s is legitimate, else what is wrong. It
	// may need s's messages in flight enumerated link by link in delivery
	// order (the simulator's ForEachInFlight gives them so).
	Legitimate(s System) error
	// Round names the event (of Events) that ends one round of the
	// algorithm, and RoundType the message type whose hops measure
	// rounds, n hops a round (kofl: "traversal" and its CToken), for
	// stabilization times counted in rounds.
	Round() (event string, hops MsgType)
}

// Corruptible is implemented by the nodes of a self-stabilizing algorithm
// (a transient fault's target): Scramble sets every variable of the node
// to a value drawn from its domain (a request or critical section it
// invents has Tag 0: the runtime lets it end); Junk returns an arbitrary
// message on a link out of the node, its fields drawn from their domains.
type Corruptible interface {
	Scramble(rng *rand.Rand)
	Junk(rng *rand.Rand) Message
}

// TimeoutAlgorithm is implemented by an algorithm whose time-out is a
// parameter of a run (kofl: Root re-sends the CToken when it has not come
// back in time). Timeout returns the algorithm's value and its unit, and
// WithTimeout the algorithm with another value, or why it cannot take it.
type TimeoutAlgorithm interface {
	Timeout() (value float64, unit string)
	WithTimeout(t float64) (Algorithm, error)
}

// AdversarialAlgorithm is implemented by a self-stabilizing algorithm that
// builds adversarial initial configurations beside Corruptible's uniform
// draws: the configurations a proof's worst case suggests. Adversaries
// names them; Adversary sets nodes to the one named, drawing from rng
// what it leaves open, and returns the messages it puts in the links, in
// the order Corruptible's junk goes (link by link, each oldest first), at
// most linkCap on a link.
type AdversarialAlgorithm interface {
	Adversaries() []string
	Adversary(name string, nodes []Node, rng *rand.Rand, linkCap int) ([]Message, error)
}
