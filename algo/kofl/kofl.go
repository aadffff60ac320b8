package kofl

import (
	"fmt"
	"math"

	"github.com/ocbench/ocbench/algo/kexcl"
	"github.com/ocbench/ocbench/proto"
)

// The message types. Every message goes from a node to its successor on
// the Gray ring; none carries a payload.
const (
	CToken       proto.MsgType = iota // <CToken, Seq>: Stamp = Seq
	EnabledToken                      // <Enabled_Token>
	Token                             // <Token>: one free enabled token
	Allocate                          // <Allocate, T_a, Order>: Stamp = T_a, Phase = Order (0 or 1)
	Collect                           // <Collect, T_c>: Stamp = T_c
	Disable                           // <Disable>
	numTypes
)

var messageTypes = []proto.MessageType{
	{Name: "ctoken", Arg: "none", Stamp: "Seq, the ring's sequence number (0..MaxSeq)"},
	{Name: "enabled_token", Arg: "none"},
	{Name: "token", Arg: "none"},
	{Name: "allocate", Arg: "none", Stamp: "T_a, the tokens the allocation pool holds"},
	{Name: "collect", Arg: "none", Stamp: "T_c, the tokens collected"},
	{Name: "disable", Arg: "none"},
}

// The events a node counts in proto.Output.Events.
const (
	EvTraversal = iota // Root ran START: a CToken traversal ended
	EvDisable          // Root counted more than ℓ tokens and sent <Disable>
	EvCreated          // Root created a token (one per <Token> replenished)
	EvTimeout          // Root's timeout re-sent the CToken (A_c3)
)

var events = []string{"traversal", "disable", "token_created", "ctoken_timeout"}

// TimerCToken is the kind of Root's timer (A_c3).
const TimerCToken uint8 = 0

// Mode is the application's mode, the paper's STATE().
type Mode uint8

// The modes: outside the critical section, requesting it, inside it.
const (
	Out Mode = iota
	Request
	In
)

func (m Mode) String() string {
	switch m {
	case Request:
		return "request"
	case In:
		return "in"
	}
	return "out"
}

// Config is the k-out-of-ℓ exclusion of one run: the resource's ℓ units,
// the largest request K and the domains of the counters.
type Config struct {
	Ell int // ℓ, the units (tokens), ≥ 1
	K   int // the most units a request asks for, 1 ≤ K ≤ ℓ
	// MaxVc bounds MyT_c (K ≤ MaxV_c ≤ ℓ); 0 means ℓ.
	MaxVc int
	// MaxSeq bounds the CToken's sequence numbers (0..MaxSeq, counted
	// modulo MaxSeq+1); 0 means DefaultMaxSeq.
	MaxSeq uint64
	// Timeout is Root's CToken timeout in δ per ring node (After =
	// Timeout·n δ); 0 means DefaultTimeout.
	Timeout float64
	// Seed and Need give the k of a request: Need(tag) if Need is set,
	// else 1 + (a mix of Seed and tag) mod K.
	Seed uint64
	Need func(tag uint32) int
	// PaperLock makes LOCK read the extraction literally, 0 < T_h < NEED,
	// instead of 0 < T_h − T_d < NEED (see doc.go: it can deadlock).
	PaperLock bool
}

// DefaultMaxSeq is the default bound of the CToken's sequence numbers.
const DefaultMaxSeq = 1<<16 - 1

// DefaultTimeout is Root's CToken time-out, in δ per ring node, when a
// Config leaves it 0: a traversal takes at most n·δ, so 4·n·δ leaves
// room for the pools' messages ahead of the CToken.
const DefaultTimeout = 4.0

// MinTimeout and MaxTimeout bound Root's time-out, in δ per ring node: below
// one δ per node Root re-sends the CToken before it can have come back.
const (
	MinTimeout = 1.0
	MaxTimeout = 1e4
)

// Validate returns an error unless 1 ≤ K ≤ ℓ and K ≤ MaxV_c ≤ ℓ.
func (c Config) Validate() error {
	switch {
	case c.Ell < 1:
		return fmt.Errorf("kofl: ℓ = %d, want ≥ 1", c.Ell)
	case c.K < 1 || c.K > c.Ell:
		return fmt.Errorf("kofl: K = %d, want 1 ≤ K ≤ ℓ = %d", c.K, c.Ell)
	case c.MaxVc != 0 && (c.MaxVc < c.K || c.MaxVc > c.Ell):
		return fmt.Errorf("kofl: MaxV_c = %d, want K = %d ≤ MaxV_c ≤ ℓ = %d", c.MaxVc, c.K, c.Ell)
	case math.IsNaN(c.Timeout) || c.Timeout < 0 || c.Timeout != 0 && c.Timeout < MinTimeout || c.Timeout > MaxTimeout:
		return fmt.Errorf("kofl: Root's time-out %g δ per ring node, want %g..%g", c.Timeout, MinTimeout, MaxTimeout)
	}
	return nil
}

// params are a Config with its defaults filled in, shared by the nodes.
type params struct {
	Config
	maxVc, maxTa, maxC int
	mod                uint64 // MaxSeq + 1
	after              float64
}

func (c Config) params(n int) *params {
	p := &params{Config: c, maxVc: c.MaxVc}
	if p.maxVc == 0 {
		p.maxVc = c.Ell
	}
	p.maxTa = min(2*p.maxVc, c.Ell)
	p.maxC = c.Ell + 1 // C_e, C_f saturate one above ℓ, so that an excess shows
	if p.MaxSeq == 0 {
		p.MaxSeq = DefaultMaxSeq
	}
	p.mod = p.MaxSeq + 1
	if p.Timeout == 0 {
		p.Timeout = DefaultTimeout
	}
	p.after = p.Timeout * float64(n)
	return p
}

// NeedOf returns the k of the request with serial tag, 1 ≤ k ≤ K: the
// convention every k-exclusion algorithm shares (kexcl.NeedOf).
func (c Config) NeedOf(tag uint32) int { return kexcl.NeedOf(c.Seed, c.K, c.Need, tag) }

// Local is the whole state of one node: every variable of Algorithms 2–4
// and the request it serves. Root alone uses Ce and Cf; MyTc and MyTa are
// scratch copies of message fields at other nodes and the pool at Root.
type Local struct {
	Mode    Mode   // STATE()
	Need    int    // NEED(), 1..K
	Tag     uint32 // the serial of the request (0: none, or from a fault)
	MySeq   uint64 // 0..MaxSeq
	Th, Td  int    // T_h, T_d: 0..K
	MyTc    int    // 0..MaxV_c
	MyTa    int    // 0..min(2·MaxV_c, ℓ)
	MyOrder bool
	Ce, Cf  int // Root: 0..ℓ+1
	// Disabling (Root) is set while the <Disable> Root sent is out: Root
	// destroys the free tokens that reach it meanwhile.
	Disabling bool
}

// Node is one processor of the ring. Only Step, Start and SetLocal change
// it.
type Node struct {
	p    *params
	id   proto.NodeID
	next proto.NodeID
	n    int
	proto.Life
	fresh bool   // Root in the initial state: Start begins the first traversal
	timer uint32 // Root: the Seq of its live timer
	st    Local
}

func (nd *Node) init() {
	nd.fresh = nd.id == 0
	nd.st = Local{Need: 1}
}

// ID returns the node's id.
func (nd *Node) ID() proto.NodeID { return nd.id }

// Root reports whether the node is Root (node 0).
func (nd *Node) Root() bool { return nd.id == 0 }

// Next returns the node's successor on the Gray ring.
func (nd *Node) Next() proto.NodeID { return nd.next }

// State returns a copy of the node's state.
func (nd *Node) State() Local { return nd.st }

// SetLocal sets the node's state (a transient fault, or a test's
// configuration); the node is up and no longer fresh.
func (nd *Node) SetLocal(l Local) {
	nd.st = l
	nd.fresh = false
}

// enabled is T-ENABLED(): T_h − T_d.
func (nd *Node) enabled() int { return nd.st.Th - nd.st.Td }

func (nd *Node) lock() bool {
	if nd.st.Mode != Request {
		return false
	}
	if nd.p.PaperLock {
		return 0 < nd.st.Th && nd.st.Th < nd.st.Need
	}
	return 0 < nd.enabled() && nd.enabled() < nd.st.Need
}

func (nd *Node) send(out *proto.Output, t proto.MsgType, gen uint64, phase uint8) {
	out.Msgs = append(out.Msgs, proto.Message{Type: t, Cause: proto.Normal, Phase: phase,
		From: nd.id, To: nd.next, Stamp: gen})
}

func (nd *Node) sendN(out *proto.Output, t proto.MsgType, k int) {
	for range k {
		nd.send(out, t, 0, 0)
	}
}

func order(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// Step implements proto.Node.
func (nd *Node) Step(in proto.Input, out *proto.Output) {
	nd.settle(out) // an arbitrary state may start with A_l1/A_l7 enabled
	switch in.Kind {
	case proto.EnterCS:
		switch nd.st.Mode {
		case Out, Request: // Request: a request from a fault is replaced
			nd.st.Mode, nd.st.Tag, nd.st.Need = Request, in.Tag, nd.p.NeedOf(in.Tag)
		}
	case proto.ExitCS:
		if nd.st.Mode == In {
			nd.st.Mode = Out
		}
	case proto.Fire:
		if nd.Root() && in.Timer.Kind == TimerCToken && in.Timer.Seq == nd.timer {
			out.Events[EvTimeout]++
			nd.sendCToken(out) // A_c3
		}
	case proto.Receive:
		nd.receive(&in.Msg, out)
	}
	nd.settle(out)
}

// Recover implements proto.Recoverer.
func (nd *Node) Recover(out *proto.Output) {
	nd.init()
	nd.fresh = false
	if nd.Root() {
		nd.armTimer(out)
	}
}

// settle runs A_l1 (Root) / A_l7: a node outside releases its enabled
// tokens; a requester holding enough enters, releasing any beyond its need.
// Before, it repairs T_d > T_h, which no action makes.
func (nd *Node) settle(out *proto.Output) {
	if nd.st.Td > nd.st.Th { // only a fault makes it: repair (doc.go)
		nd.st.Td = nd.st.Th
	}
	if nd.st.Th+nd.st.Td == 0 {
		return
	}
	switch nd.st.Mode {
	case Out:
		nd.sendN(out, Token, nd.enabled())
		nd.st.Th, nd.st.Td = 0, 0
	case Request:
		if e := nd.enabled(); e >= nd.st.Need {
			nd.sendN(out, Token, e-nd.st.Need)
			nd.st.Th, nd.st.Td = nd.st.Need, 0
			nd.st.Mode = In // ECS
			out.Enter = true
		}
	}
}

func (nd *Node) receive(m *proto.Message, out *proto.Output) {
	switch m.Type {
	case CToken:
		if nd.Root() {
			if m.Stamp == nd.st.MySeq { // A_c1
				nd.st.MySeq = (nd.st.MySeq + 1) % nd.p.mod
				nd.start(out)
				nd.sendCToken(out)
			}
			return
		}
		if nd.st.MySeq != m.Stamp { // A_c4
			nd.st.MySeq = m.Stamp
			nd.sendN(out, EnabledToken, nd.enabled())
		}
		nd.send(out, CToken, nd.st.MySeq, 0)
	case EnabledToken:
		if nd.Root() { // A_c2: COUNT-ET
			nd.st.Ce = min(nd.st.Ce+1, nd.p.maxC)
		} else { // A_c5
			nd.send(out, EnabledToken, 0, 0)
		}
	case Token: // A_l2 / A_l8
		if nd.Root() {
			if nd.st.Disabling {
				return // a token from before the <Disable>: destroyed
			}
			nd.st.Cf = min(nd.st.Cf+1, nd.p.maxC)
		}
		switch {
		case nd.st.Mode != Request:
			nd.send(out, Token, 0, 0)
		case nd.st.Th < nd.st.Need:
			nd.st.Th++
		case nd.st.Td > 0:
			nd.st.Td--
		default: // cannot happen once settled: the node would be in
			nd.send(out, Token, 0, 0)
		}
	case Allocate:
		nd.allocate(int(m.Stamp), m.Phase != 0, out)
	case Collect:
		tc := int(m.Stamp)
		if nd.Root() { // A_l5: the pool collected by this traversal, and Root's own
			nd.st.MyTc = min(nd.st.MyTc+tc, nd.p.maxVc)
			if nd.lock() {
				y := max(0, min(nd.enabled(), nd.p.maxVc-nd.st.MyTc))
				nd.st.Td += y
				nd.st.MyTc += y
				// Root's enabled tokens were counted in C_e + C_f; now they
				// are in MyT_c.
				d := min(y, nd.st.Ce)
				nd.st.Ce -= d
				nd.st.Cf = max(0, nd.st.Cf-(y-d))
			}
			return
		}
		if nd.lock() { // A_l11
			add := max(0, min(nd.enabled(), nd.p.maxVc-tc))
			nd.st.Td += add
			tc += add
		}
		nd.st.MyTc = tc
		nd.send(out, Collect, uint64(tc), 0)
	case Disable:
		if nd.Root() { // A_l6: the <Disable> is back; it ends here
			nd.st.Disabling = false
			return
		}
		nd.st.Td = nd.st.Th // A_l12
		nd.send(out, Disable, 0, 0)
	}
}

// grant gives a requester the tokens it misses.
func (nd *Node) grant() { nd.st.Th, nd.st.Td = nd.st.Need, 0 }

// absorb gives a requester x < missing tokens: they re-enable its disabled
// tokens first.
func (nd *Node) absorb(x int) {
	if nd.st.Td >= x {
		nd.st.Td -= x
	} else {
		nd.st.Th += x - nd.st.Td
		nd.st.Td = 0
	}
}

// allocate is A_l3/A_l4 at Root, A_l9/A_l10 elsewhere.
func (nd *Node) allocate(ta int, ord bool, out *proto.Output) {
	missing := max(0, nd.st.Need-nd.enabled())
	if nd.Root() {
		used := 0
		privileged := ord == nd.st.MyOrder // every other node took Root's order
		switch {
		case nd.st.Mode == Request && privileged && ta >= missing: // A_l3
			nd.grant()
			used = missing
			nd.st.MyOrder = !nd.st.MyOrder
		case nd.st.Mode == Request && privileged:
			nd.absorb(ta)
			used = ta
		case privileged:
			nd.st.MyOrder = !nd.st.MyOrder
		case nd.st.Mode == Request && nd.st.Td > 0 && ta >= missing: // A_l4: waiting
			nd.grant()
			used = missing
		}
		nd.st.Ce = min(nd.st.Ce+used, nd.p.maxC) // Root's tokens from the pool count as enabled
		nd.st.MyTa = min(nd.st.MyTa+ta-used, nd.p.maxTa)
		return
	}
	nd.st.MyTa = ta
	if nd.st.MyOrder != ord { // A_l9: privileged
		switch {
		case nd.st.Mode == Request && nd.st.MyTa >= missing:
			nd.st.MyTa -= missing
			nd.grant()
			nd.st.MyOrder = ord
			if nd.st.MyTa > 0 {
				nd.send(out, Allocate, uint64(nd.st.MyTa), order(ord))
			}
		case nd.st.Mode == Request:
			nd.absorb(nd.st.MyTa)
			nd.st.MyTa = 0
		default:
			nd.st.MyOrder = ord
			nd.send(out, Allocate, uint64(nd.st.MyTa), order(ord))
		}
		return
	}
	// A_l10: a waiting requester (one with a disabled token) takes what it
	// misses only if the pool has it all.
	if nd.st.Mode == Request && nd.st.Td > 0 && nd.st.MyTa >= missing {
		nd.st.MyTa -= missing
		nd.grant()
	}
	if nd.st.MyTa > 0 {
		nd.send(out, Allocate, uint64(nd.st.MyTa), order(ord))
	}
}

// start is Function START at Root, run when the CToken comes back.
func (nd *Node) start(out *proto.Output) {
	out.Events[EvTraversal]++
	total := nd.st.Ce + nd.st.Cf + nd.st.MyTc + nd.st.MyTa
	nd.st.Disabling = total > nd.p.Ell
	if nd.st.Disabling {
		nd.send(out, Disable, 0, 0)
		nd.st.Td = nd.st.Th
		out.Events[EvDisable]++
	} else {
		nd.sendN(out, Token, nd.p.Ell-total)
		out.Events[EvCreated] += int32(nd.p.Ell - total)
		if pool := nd.st.MyTc + nd.st.MyTa; pool > 0 {
			nd.send(out, Allocate, uint64(pool), order(nd.st.MyOrder))
		}
	}
	nd.send(out, Collect, 0, 0)
	nd.st.Ce, nd.st.Cf, nd.st.MyTc, nd.st.MyTa = max(0, nd.enabled()), 0, 0, 0
}

func (nd *Node) sendCToken(out *proto.Output) {
	nd.send(out, CToken, nd.st.MySeq, 0)
	nd.armTimer(out)
}

func (nd *Node) armTimer(out *proto.Output) {
	nd.timer++
	out.Timers = append(out.Timers, proto.Timer{Kind: TimerCToken, Seq: nd.timer, Arg: proto.Nil, After: nd.p.after})
}

// Start is the node's action before any input (see Starter): Root arms
// its timeout and, in the initial state, begins the first traversal as if
// the CToken had come back (A_c1): it creates the ℓ tokens, sends
// <Collect, 0> and <CToken, 1>. Other nodes do nothing.
func (nd *Node) Start(out *proto.Output) {
	if !nd.Up() || !nd.Root() {
		return
	}
	if nd.fresh {
		nd.fresh = false
		nd.st.MySeq = (nd.st.MySeq + 1) % nd.p.mod
		nd.start(out)
		nd.sendCToken(out)
		return
	}
	nd.armTimer(out)
}

// Starter is implemented by a node that acts before its first input: a
// runtime calls Start once on every node, in id order, before the run
// (kofl's Root sends the first CToken and the ℓ tokens, and arms its
// timeout). It is a proposed optional part of proto.Node.
type Starter interface {
	Start(out *proto.Output)
}

// View implements proto.Node: TokenHere when the node holds an enabled
// token, Gen its MySeq, Units its NEED while in the critical section.
func (nd *Node) View() proto.View {
	units := 0
	if nd.st.Mode == In {
		units = nd.st.Need
	}
	return proto.View{Bits: proto.Bits{Up: nd.Up(), InCS: nd.st.Mode == In, Asked: nd.st.Mode != Out, TokenHere: nd.enabled() > 0}, Tag: nd.st.Tag, Gen: nd.st.MySeq, Units: units}
}

// Units implements kexcl.UnitNode: NEED while in the critical section.
func (nd *Node) Units() int {
	if nd.st.Mode == In {
		return nd.st.Need
	}
	return 0
}

// Waiting implements proto.Node: the node itself while it requests.
func (nd *Node) Waiting(f func(j proto.NodeID)) {
	if nd.st.Mode == Request {
		f(nd.id)
	}
}

// Algorithm is the self-stabilizing k-out-of-ℓ exclusion of Datta, Hadid
// and Villain as a proto.Algorithm.
type Algorithm struct{ Config }

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "kofl" }

// NewNodes implements proto.Algorithm: n ≥ 2 nodes on the ring (the Gray
// ring when n is a power of two, else the ring of ids), in the initial state (every node outside with no token; Root
// fresh, so that Start begins the first traversal). It panics on a bad
// Config or n: check Config.Validate first.
func (a Algorithm) NewNodes(n int) []proto.Node {
	nodes := a.Nodes(n)
	out := make([]proto.Node, n)
	for i := range nodes {
		out[i] = nodes[i]
	}
	return out
}

// Nodes is NewNodes with the concrete type.
func (a Algorithm) Nodes(n int) []*Node {
	if err := a.Validate(); err != nil {
		panic(err)
	}
	if n < 2 {
		panic(fmt.Sprintf("kofl: nodes: %d is fewer than 2", n))
	}
	p := a.params(n)
	nodes := make([]Node, n)
	out := make([]*Node, n)
	for i := range nodes {
		nd := &nodes[i]
		nd.p, nd.id, nd.n = p, proto.NodeID(i), n
		nd.next = proto.NodeID(ringNext(i, n))
		nd.init()
		out[i] = nd
	}
	return out
}

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.KExclusion }

// AnySize implements proto.AnySizeAlgorithm: the ring needs no hypercube.
func (Algorithm) AnySize() bool { return true }

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// Events implements proto.Algorithm.
func (Algorithm) Events() []string { return events }

// NeedsFIFO implements proto.FIFOAlgorithm: the paper's links are FIFO,
// and Root's count relies on it (doc.go).
func (Algorithm) NeedsFIFO() bool { return true }

// Invariants implements proto.Algorithm: the legitimacy predicate and the
// safety check, after every step of a run from the initial state (they
// need the messages in flight enumerated link by link in FIFO order).
func (a Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	return []proto.Invariant{
		{Name: "kofl_legitimate", When: proto.EveryStep, Check: Legitimate},
		{Name: "kofl_safety", When: proto.EveryStep, Check: Safety},
	}
}

// TimerSeq returns the Seq of Root's live timer (the last one armed); a
// timer fires to effect only if its Seq equals it.
func (nd *Node) TimerSeq() uint32 { return nd.timer }

// SetTimerSeq sets the Seq of Root's live timer: with the live timer
// pending renamed alike, the node behaves as before. A timer that is not
// the live one does nothing when it fires (once a node has taken a step it
// is settled, and a stale Seq is ignored), so the explorer drops those and
// renames the live one, and a run's state space is finite.
func (nd *Node) SetTimerSeq(seq uint32) { nd.timer = seq }
