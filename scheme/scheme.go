// Package scheme implements the general token-and-tree mutual-exclusion
// algorithm of Hélary, Mostefaoui and Raynal (INRIA RR-1692, §2.2) as a pure
// state machine, with the behaviour rule (transit or proxy) pluggable, and
// three of its instances: Naimi–Trehel (always transit), Raymond / Van de
// Snepscheut (transit ⇔ token_here) and the centralized algorithm (always
// proxy). The open-cube rule lives in package opencube.
//
// The code follows the report's text line by line; the numbers in comments,
// (1) to (22), are the report's line numbers. Where the text is
// garbled it is read as docs/design.md says (line (7) sets mandator := j;
// exit_cs returns the token iff lender ≠ i).
package scheme

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ocbench/ocbench/internal/hugepage"

	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/proto"
)

// Behavior is how a node reacts to a request (or, in case γ, to the token).
type Behavior uint8

// The behaviours of RR-1692, plus Reject for the open-cube anomaly check.
const (
	Proxy   Behavior = iota // i serves j's request on its own account
	Transit                 // i forwards j's request (or gives the token up) and makes j its father
	Reject                  // i cannot be the father of j: it answers with an anomaly message
)

// Rule is a behaviour rule of the general scheme. A node keeps its rule as
// a two-byte index into a table of the rules in use, so that the node fits
// in a 64-byte cache line: equal rules of a comparable type share an entry,
// and a rule of another type takes a new one at each Init or NewNodes (at
// most 65536 in all).
type Rule interface {
	// Name is the algorithm's flag value.
	Name() string
	// InitialFather returns the father of node i in the initial tree of n
	// nodes (proto.Nil for the root, which holds the token).
	InitialFather(i proto.NodeID, n int) proto.NodeID
	// OnRequest returns i's behaviour for a request from j.
	OnRequest(i *Node, j proto.NodeID) Behavior
	// OnToken returns i's behaviour when, in case γ, it passes the token
	// received for its mandator (Proxy or Transit).
	OnToken(i *Node) Behavior
}

type entry struct {
	j, from, src proto.NodeID
	tag          uint32
}

// Node is one node of the general scheme. Its exported fields are the
// report's local variables; runtimes and tests read them, only Step writes
// them.
type Node struct {
	ID        proto.NodeID
	TokenHere bool
	Asked     bool
	InCS      bool
	Father    proto.NodeID
	Lender    proto.NodeID
	Mandator  proto.NodeID
	rule      uint16 // the node's Rule: (*rules.list.Load())[rule]
	queued    bool   // first holds the oldest waiting request
	lift      bool   // the lift policy: the node's own enter_cs goes to the head of its queue
	// Gen is the generation of the token this node last held or received.
	Gen uint64
	// Src and Tag identify the CS request the node is serving (its own, its
	// mandator's, or the one it lent the token for).
	Src proto.NodeID
	Tag uint32

	// The FIFO queue of waiting requests: first (if queued), then rest's.
	// Most nodes never hold more than one request, which then lives in the
	// node's own cache line; rest is allocated by the first node that
	// holds two.
	first entry
	rest  *fifo
}

// fifo is the tail of a node's queue: buf[head:], oldest first.
type fifo struct {
	buf  []entry
	head int
}

func (q *fifo) len() int { return len(q.buf) - q.head }

// rules is the table of the rules the nodes use, indexed by Node.rule.
// Adding a rule, under the lock, publishes a new copy of the list.
var rules struct {
	sync.Mutex
	list  atomic.Pointer[[]Rule]
	index map[Rule]uint16 // the comparable rules' entries
}

// ruleIndex returns rule's index in rules, adding it if it is new (or not
// comparable).
func ruleIndex(rule Rule) uint16 {
	rules.Lock()
	defer rules.Unlock()
	shared := reflect.TypeOf(rule).Comparable()
	if shared {
		if k, ok := rules.index[rule]; ok {
			return k
		}
	}
	var list []Rule
	if l := rules.list.Load(); l != nil {
		list = *l
	}
	if len(list) > 1<<16-1 {
		panic(fmt.Sprintf("scheme: more than %d rules", 1<<16))
	}
	k := uint16(len(list))
	list = append(list[:len(list):len(list)], rule)
	rules.list.Store(&list)
	if shared {
		if rules.index == nil {
			rules.index = make(map[Rule]uint16)
		}
		rules.index[rule] = k
	}
	return k
}

// Init puts n in the initial state of node id of an n-node system.
func (n *Node) Init(rule Rule, id proto.NodeID, size int) {
	n.init(rule, ruleIndex(rule), id, size)
}

func (n *Node) init(rule Rule, k uint16, id proto.NodeID, size int) {
	*n = Node{ID: id, rule: k, Father: rule.InitialFather(id, size), Lender: proto.Nil, Mandator: proto.Nil, Src: proto.Nil}
	if n.Father == proto.Nil {
		n.TokenHere = true
		n.Lender = id
	}
}

// Lift reports whether the node serves its queue by the lift policy
// (Algorithm.Lift) rather than FIFO.
func (n *Node) Lift() bool { return n.lift }

// Rule returns the node's behaviour rule.
func (n *Node) Rule() Rule { return (*rules.list.Load())[n.rule] }

// Step implements proto.Node for the failure-free protocol: EnterCS, ExitCS,
// and the receipt of Request and Token messages. Other inputs are ignored.
func (n *Node) Step(in proto.Input, out *proto.Output) { n.step(&in, out) }

// step is Step, the input by address.
func (n *Node) step(in *proto.Input, out *proto.Output) {
	switch in.Kind {
	case proto.EnterCS:
		n.Enqueue(n.ID, n.ID, in.Tag)
	case proto.ExitCS:
		n.ExitCS(out)
	case proto.Receive:
		switch in.Msg.Type {
		case Request:
			n.Enqueue(in.Msg.J.Node(), in.Msg.Src.Node(), in.Msg.Tag)
		case Token:
			n.ReceiveToken(in.Msg, out)
		}
	}
	n.Drain(out)
}

// Enqueue puts a request from j (j = n.ID for a local enter_cs) at the tail
// of the node's FIFO queue.
func (n *Node) Enqueue(j, src proto.NodeID, tag uint32) { n.EnqueueFrom(j, j, src, tag) }

// EnqueueFrom is Enqueue for a request received from node from: the node
// that sent it, which was a son of this node when it did. Under the lift
// policy the node's own request (j = n.ID) goes to the head of the queue.
func (n *Node) EnqueueFrom(j, from, src proto.NodeID, tag uint32) {
	e := entry{j: j, from: from, src: src, tag: tag}
	if !n.queued {
		n.first, n.queued = e, true
		return
	}
	if n.rest == nil {
		n.rest = &fifo{}
	}
	q := n.rest
	if n.lift && j == n.ID {
		e, n.first = n.first, e
		if q.head > 0 {
			q.head--
			q.buf[q.head] = e
		} else {
			q.buf = slices.Insert(q.buf, 0, e)
		}
		return
	}
	if q.head > 0 && q.head == len(q.buf) {
		q.buf, q.head = q.buf[:0], 0
	}
	q.buf = append(q.buf, e)
}

// at returns the k-th waiting request, oldest first (k < Queued()).
func (n *Node) at(k int) *entry {
	if k == 0 {
		return &n.first
	}
	return &n.rest.buf[n.rest.head+k-1]
}

// truncate keeps the k oldest waiting requests.
func (n *Node) truncate(k int) {
	if k == 0 {
		n.first, n.queued = entry{}, false
	}
	if q := n.rest; q != nil {
		end := q.head + max(k-1, 0)
		clear(q.buf[end:])
		q.buf = q.buf[:end]
	}
}

// Holds reports whether the node already holds request(j) of serial tag:
// waiting in its queue, or being served on j's account.
func (n *Node) Holds(j proto.NodeID, tag uint32) bool {
	if n.Asked && n.Mandator == j && n.Tag == tag {
		return true
	}
	for k := range n.Queued() {
		if e := n.at(k); e.j == j && e.tag == tag {
			return true
		}
	}
	return false
}

// Supersede applies to a request of j on its own account (src = j) with
// serial tag the rule that a node's own requests have increasing serials:
// it removes from the queue j's own requests of smaller serials, and
// reports how many it removed and whether one of a larger serial is queued
// (the request is then the obsolete one).
func (n *Node) Supersede(j proto.NodeID, tag uint32) (dropped int, obsolete bool) {
	k, total := 0, n.Queued()
	for i := range total {
		e := *n.at(i)
		own := e.j == j && e.src == j
		if own && e.tag > tag {
			obsolete = true
		}
		if !own || e.tag >= tag {
			*n.at(k) = e
			k++
		}
	}
	dropped = total - k
	n.truncate(k)
	return dropped, obsolete
}

// Remove removes request(j) of serial tag from the node's queue without
// serving it, and returns the node it came from and its source; ok is
// false if no such request waits.
func (n *Node) Remove(j proto.NodeID, tag uint32) (from, src proto.NodeID, ok bool) {
	k, total := 0, n.Queued()
	for i := range total {
		e := *n.at(i)
		if !ok && e.j == j && e.tag == tag {
			from, src, ok = e.from, e.src, true
			continue
		}
		*n.at(k) = e
		k++
	}
	n.truncate(k)
	return from, src, ok
}

// Queued returns the number of requests waiting in the node's queue.
func (n *Node) Queued() int {
	if !n.queued {
		return 0
	}
	if n.rest == nil {
		return 1
	}
	return 1 + n.rest.len()
}

// Drain serves waiting requests, oldest first, while the node is not busy
// ("wait (not asked_i)").
func (n *Node) Drain(out *proto.Output) {
	for !n.Asked && n.queued {
		n.ServeNext(out)
	}
}

// Next returns the request that the node serves next, its requester j and
// the node from which it came (j itself for a local enter_cs), if the node
// is not busy and a request waits.
func (n *Node) Next() (j, from proto.NodeID, ok bool) {
	if n.Asked || !n.queued {
		return proto.Nil, proto.Nil, false
	}
	return n.first.j, n.first.from, true
}

// ServeNext serves the oldest waiting request, as Drain does, and returns
// the behaviour the node took for it (Proxy for its own enter_cs). The
// node must not be busy, and a request must wait (Next).
func (n *Node) ServeNext(out *proto.Output) Behavior {
	e := n.pop()
	if e.j == n.ID {
		n.enterCS(e, out)
		return Proxy
	}
	return n.request(e, out)
}

// DropNext removes the oldest waiting request without serving it, and
// returns its requester, source and serial.
func (n *Node) DropNext() (j, src proto.NodeID, tag uint32) {
	e := n.pop()
	return e.j, e.src, e.tag
}

func (n *Node) pop() entry {
	e := n.first
	if q := n.rest; q != nil && q.head < len(q.buf) {
		n.first = q.buf[q.head]
		q.buf[q.head] = entry{}
		q.head++
	} else {
		n.first, n.queued = entry{}, false
	}
	return e
}

func (n *Node) send(out *proto.Output, m proto.Message) {
	m.From = n.ID
	out.Msgs = append(out.Msgs, m)
}

// enterCS: upon a call to enter_cs by i, lines (1)–(2).
func (n *Node) enterCS(e entry, out *proto.Output) {
	n.Asked = true
	n.Src, n.Tag = n.ID, e.tag
	if n.TokenHere {
		n.InCS = true
		out.Enter = true
		return
	}
	n.Mandator = n.ID
	n.send(out, proto.Message{Type: Request, To: n.Father, J: proto.RefTo(n.ID), Src: proto.RefTo(n.ID), Stamp: n.Gen, Tag: e.tag})
}

// ExitCS: upon a call to exit_cs by i, lines (3)–(4). It does nothing if
// the node is not in the critical section, and does not serve the queue.
func (n *Node) ExitCS(out *proto.Output) {
	if !n.InCS {
		return
	}
	n.InCS = false
	if n.Lender != n.ID && n.Lender != proto.Nil {
		n.send(out, proto.Message{Type: Token, To: n.Lender, Src: proto.RefTo(n.ID), Stamp: n.Gen, Tag: n.Tag})
		n.TokenHere = false
	}
	n.Asked = false
}

// request: upon receipt of request(j) by i, lines (5)–(10).
func (n *Node) request(e entry, out *proto.Output) Behavior {
	b := (*rules.list.Load())[n.rule].OnRequest(n, e.j)
	switch b {
	case Reject:
		n.send(out, NewAnomaly(e.j, e.from, e.src, e.tag))
	case Proxy:
		n.Asked = true
		n.Src, n.Tag = e.src, e.tag
		if n.TokenHere { // (6) i temporarily lends the token
			n.send(out, proto.Message{Type: Token, To: e.j, J: proto.RefTo(n.ID), Src: proto.RefTo(e.src), Stamp: n.Gen, Tag: e.tag})
			n.TokenHere = false
			return b
		}
		n.Mandator = e.j // (7) i requires the token for j
		n.send(out, proto.Message{Type: Request, To: n.Father, J: proto.RefTo(n.ID), Src: proto.RefTo(e.src), Stamp: n.Gen, Tag: e.tag})
	case Transit:
		if n.TokenHere { // (8)–(9) i gives the token up
			n.Lender = proto.Nil
			n.send(out, proto.Message{Type: Token, To: e.j, Src: proto.RefTo(e.src), Stamp: n.Gen, Tag: e.tag})
			n.TokenHere = false
		} else { // (10) i forwards the request
			n.send(out, proto.Message{Type: Request, To: n.Father, J: proto.RefTo(e.j), Src: proto.RefTo(e.src), Stamp: n.Gen, Tag: e.tag})
		}
		n.Father = e.j
	}
	return b
}

// NewAnomaly returns the anomaly message that tells requester j that its
// request (serial tag, for src) cannot be served: it came from node from, so
// the nodes between j and from were transit for it and are now j's sons,
// the farthest at distance Phase from j (0 if from is j).
func NewAnomaly(j, from, src proto.NodeID, tag uint32) proto.Message {
	m := proto.Message{Type: Anomaly, Cause: proto.Failure, To: j, J: proto.RefTo(j), Src: proto.RefTo(src), Tag: tag}
	if from != j && from != proto.Nil {
		m.Phase = uint8(hypercube.Dist(int(j), int(from)))
	}
	return m
}

// ReceiveToken: upon the receipt of token(j) from k by i, lines (11)–(22).
// It does not serve the queue; Step does, and so must a caller.
func (n *Node) ReceiveToken(m proto.Message, out *proto.Output) {
	j, k := m.J.Node(), m.From
	n.TokenHere = true // (11)
	n.Gen = m.Stamp
	switch n.Mandator {
	case proto.Nil: // α: return of the token after a loan
		n.Asked = false // (12)
	case n.ID: // β: the claim of i is satisfied
		if j == proto.Nil {
			n.Lender, n.Father = n.ID, proto.Nil // (13)
		} else {
			n.Lender, n.Father = j, k // (14)
		}
		n.Mandator = proto.Nil
		n.InCS = true
		out.Enter = true
	default: // γ: i honours the request of its mandator
		n.Asked = false // (15)
		to := n.Mandator
		tok := proto.Message{Type: Token, To: to, J: proto.RefTo(j), Src: proto.RefTo(n.Src), Stamp: n.Gen, Tag: n.Tag}
		switch (*rules.list.Load())[n.rule].OnToken(n) {
		case Transit:
			if j == proto.Nil {
				n.Lender, n.Father = proto.Nil, to // (19)–(20)
			} else {
				n.Father = k // (21)
			}
		default: // Proxy
			if j == proto.Nil { // (16)–(17): i becomes the lender and lends the token
				n.Lender, n.Father = n.ID, proto.Nil
				tok.J = proto.RefTo(n.ID)
				n.Asked = true
			} else {
				n.Father = k // (18)
			}
		}
		n.send(out, tok)
		n.Mandator, n.TokenHere = proto.Nil, false // (22)
	}
}

// View implements proto.Node.
func (n *Node) View() proto.View {
	return proto.View{Bits: proto.Bits{Up: true, TokenHere: n.TokenHere, InCS: n.InCS, Asked: n.Asked}, Tag: n.Tag, Gen: n.Gen}
}

// Tree implements TreeNode.
func (n *Node) Tree() TreeView {
	return TreeView{Father: n.Father, Mandator: n.Mandator, Lender: n.Lender}
}

// TreeView is the token-tree state of a node of the general scheme's family
// that the a_tree check, the open-cube's checks and the crash targets read
// (proto.TreeView).
type TreeView = proto.TreeView

// TreeNode is a node of the general scheme's family: a proto.Node whose
// token-tree state can be read (proto.TreeNode).
type TreeNode = proto.TreeNode

// FatherOf returns the father of n, a node of the general scheme's family
// (proto.Nil for any other node).
func FatherOf(n proto.Node) proto.NodeID {
	t, _ := TreeOf(n)
	return t.Father
}

// TreeOf returns the token-tree state of n, and false if n is not a node of
// the general scheme's family (proto.TreeOf).
func TreeOf(n proto.Node) (TreeView, bool) { return proto.TreeOf(n) }

// Waiting implements proto.Node.
func (n *Node) Waiting(f func(j proto.NodeID)) {
	for k := range n.Queued() {
		f(n.at(k).j)
	}
}

// Algorithm is a proto.Algorithm made of a Rule: every node runs the general
// scheme with that rule, and serves its queue FIFO or, with Lift, by the
// lift policy.
type Algorithm struct {
	Rule Rule
	// Lift is RR-1692 §4.1's lift policy: "putting systematically at the
	// head of queue, the request corresponding to a local call of enter_cs
	// generated by node i itself". Other requests stay in FIFO order. The
	// report names the policy and says it is "greedy" and "used in [5, 7]"
	// (Naimi–Trehel, Raymond); it states no cost for it.
	Lift bool
}

// Name implements proto.Algorithm: the rule's name, with "-lift" under the
// lift policy.
func (a Algorithm) Name() string {
	if a.Lift {
		return a.Rule.Name() + "-lift"
	}
	return a.Rule.Name()
}

// NewNodes implements proto.Algorithm; the nodes are allocated together.
func (a Algorithm) NewNodes(size int) []proto.Node {
	nodes, _ := a.NewArray(size)
	return nodes
}

// NewArray implements proto.ArrayAlgorithm.
func (a Algorithm) NewArray(size int) ([]proto.Node, proto.NodeArray) {
	nodes := array(hugepage.Make[Node](size))
	out := hugepage.Make[proto.Node](size)
	k := ruleIndex(a.Rule)
	for i := range nodes {
		nodes[i].init(a.Rule, k, proto.NodeID(i), size)
		nodes[i].lift = a.Lift
		out[i] = &nodes[i]
	}
	return out, &nodes
}

// array is the nodes of a run, stepped by index (proto.NodeArray, by
// pointer: the interface's method is StepView itself, not a wrapper that
// copies the slice).
type array []Node

// StepView implements proto.NodeArray.
func (a *array) StepView(i int, in *proto.Input, out *proto.Output) proto.View {
	n := &(*a)[i]
	n.step(in, out)
	return n.View()
}

// StatedCost implements proto.CostAlgorithm with the cost its rule states
// (a Rule that is also a proto.CostAlgorithm); none otherwise.
func (a Algorithm) StatedCost(n int) proto.Cost {
	if c, ok := a.Rule.(proto.CostAlgorithm); ok {
		return c.StatedCost(n)
	}
	return proto.Cost{}
}

// NaimiTrehel is the rule "always transit" (RR-1692 §4.2, Annex 2), on the
// star tree of Naimi and Trehel's paper (every node's father is node 0).
type NaimiTrehel struct{}

// Name implements Rule.
func (NaimiTrehel) Name() string { return "naimi-trehel" }

// InitialFather implements Rule: a star centred on node 0.
func (NaimiTrehel) InitialFather(i proto.NodeID, n int) proto.NodeID { return star(i) }

// StatedCost implements proto.CostAlgorithm: an order of growth, O(log N)
// messages per critical section on average (the survey's Table 1, "avg
// log N", and §4, "in the order of log N"; RR-1692 §4.2: O(log n) in the
// mean, O(n) in the worst case). No figure: it is never divided into a
// measurement.
func (NaimiTrehel) StatedCost(int) proto.Cost {
	return proto.Cost{Text: "avg O(log N)", Source: "survey T1", Kind: proto.Order}
}

// OnRequest implements Rule.
func (NaimiTrehel) OnRequest(*Node, proto.NodeID) Behavior { return Transit }

// OnToken implements Rule.
func (NaimiTrehel) OnToken(*Node) Behavior { return Transit }

// Raymond is the rule "transit ⇔ token_here" (Raymond, Van de Snepscheut;
// RR-1692 §4.2, Annex 3), on the initial open-cube (a binomial tree of
// diameter 2·log2 N − 1, so that its static tree is as shallow as the open-cube's).
type Raymond struct{}

// Name implements Rule.
func (Raymond) Name() string { return "raymond" }

// InitialFather implements Rule: the initial open-cube.
func (Raymond) InitialFather(i proto.NodeID, n int) proto.NodeID { return binomial(i) }

// StatedCost implements proto.CostAlgorithm: at most 2D messages per
// critical section, D the tree's diameter (2·log2 N − 1 here), log N on
// average (the survey's Table 1); 0 with the token at hand.
func (Raymond) StatedCost(n int) proto.Cost {
	d := float64(max(2*log2(n)-1, 1))
	return proto.Cost{Low: 0, High: 2 * d, Text: "0…2D (avg log N)", Source: "survey T1", Kind: proto.Range}
}

// OnRequest implements Rule.
func (Raymond) OnRequest(i *Node, _ proto.NodeID) Behavior {
	if i.TokenHere {
		return Transit
	}
	return Proxy
}

// OnToken implements Rule: when the token arrives, token_here is true.
func (Raymond) OnToken(*Node) Behavior { return Transit }

// Centralized is the rule "always proxy" on a star: node 0 allocates the
// token and every other node asks it directly (RR-1692 §2.1).
type Centralized struct{}

// Name implements Rule.
func (Centralized) Name() string { return "centralized" }

// InitialFather implements Rule: a star centred on node 0.
func (Centralized) InitialFather(i proto.NodeID, n int) proto.NodeID { return star(i) }

// StatedCost implements proto.CostAlgorithm: a request, the token and its
// return to the allocator, 3 messages; 0 for the allocator itself. No
// paper states the figure: it is derived from the rule (always proxy on
// RR-1692 §2.1's star), so it is marked Derived.
func (Centralized) StatedCost(int) proto.Cost {
	return proto.Cost{Low: 0, High: 3, Text: "request, token, return", Source: "the proxy rule", Kind: proto.Derived}
}

// OnRequest implements Rule.
func (Centralized) OnRequest(*Node, proto.NodeID) Behavior { return Proxy }

// OnToken implements Rule.
func (Centralized) OnToken(*Node) Behavior { return Proxy }

func star(i proto.NodeID) proto.NodeID {
	if i == 0 {
		return proto.Nil
	}
	return 0
}

// log2 returns the base-2 logarithm of n, a power of two.
func log2(n int) int {
	p, _ := hypercube.Log2(n)
	return p
}

func binomial(i proto.NodeID) proto.NodeID {
	return proto.NodeID(hypercube.Father(int(i)))
}

// The general scheme's message types, and the anomaly by which a rule that
// rejects a request (the open-cube's, §5) answers it.
const (
	Request  proto.MsgType = iota // request(j): j asks for the token
	Token                         // token(j): j is the lender, Nil if none
	Anomaly                       // a father tells a requester it cannot be its father
	NumTypes                      // the first type an extension (package opencube) numbers its own from
)

var messageTypes = []proto.MessageType{
	{Name: "request", Stamp: "the newest token generation the sender knows (0 without failures)"},
	{Name: "token", Token: true, Stamp: "the token's generation (0 without failures)"},
	{Name: "anomaly"},
}

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }
