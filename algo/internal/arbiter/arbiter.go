// Package arbiter is the node of the permission-based algorithms that ask
// arbiters: Sanders' generalized algorithm on an information structure
// (algo/sanders), of which Maekawa's protocol on a quorum construction
// (algo/quorum, Agrawal and El Abbadi's included) is the case I_i = R_i =
// the quorum, every requester in every member's status set (All). The
// packages that register the algorithms give the sets, the message type
// names and the invariants' names; this package holds the protocol and the
// checks.
package arbiter

import (
	"slices"

	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// The message types, by number; algo/sanders and algo/quorum name them.
const (
	Request proto.MsgType = iota // requester → member of R_i: Stamp = the request's Lamport timestamp
	Grant                        // arbiter → requester: its permission (Maekawa's locked)
	Fail                         // arbiter → requester: a request of higher priority holds or waits for the arbiter (failed)
	Inquire                      // arbiter → the node its CSSTAT names: will you give the permission back?
	Yield                        // requester → arbiter: the permission given back (relinquish)
	Release                      // requester → member of I_i: the requester left the critical section
	NumTypes
)

// Status says which requesters are in an arbiter's status set: Informs
// reports whether k ∈ I_j. algo/sanders' Structure is one.
type Status interface {
	Informs(j, k proto.NodeID, n int) bool
}

// All is the status set of Maekawa's protocol: every requester that asks
// an arbiter informs it (I_j = R_j).
type All struct{}

// Informs implements Status: always.
func (All) Informs(_, _ proto.NodeID, _ int) bool { return true }

// The state of one member of R_i, as the requester knows it during one
// request (bits of Node.perm).
const (
	permGranted  uint8 = 1 << iota // the member's permission is held
	permFailed                     // the member serves (or was given back to) a request of higher priority
	permEver                       // a grant came from the member during this request: a later fail is stale
	permInquired                   // an inquire from the member waits for an answer
)

// req is a request as an arbiter holds it; priority is (ts, id), the
// smaller first.
type req struct {
	ts     uint64
	id     proto.NodeID
	tag    uint32
	failed bool // the requester was sent a fail for it here
}

func (a req) before(b req) bool { return a.ts < b.ts || a.ts == b.ts && a.id < b.id }

// Node is one node: a requester, and an arbiter for the nodes whose
// request set holds it. Only Step and Recover change it.
type Node struct {
	id proto.NodeID
	n  int
	proto.Life
	clock   uint64
	inform  []proto.NodeID // I_i, increasing
	request []proto.NodeID // R_i, increasing
	st      Status
	stamp   bool // View's Gen is the request's timestamp while the node asks

	// The requester.
	asked, inCS bool
	tag         uint32
	ts          uint64
	perm        []uint8 // by position in request
	granted     int
	failed      int

	// The arbiter: CSSTAT is busy (a member of S_k holds the permission)
	// or free.
	busy     bool
	csstat   req   // the request CSSTAT names, while busy
	inquired bool  // an inquire was sent for csstat
	queue    []req // waiting requests, by priority

	local []proto.Message // messages to itself, handled within the step
}

// Init sets node id of an n-node system up in its initial state, with its
// informing and request sets (increasing; i ∈ I_i ⊆ R_i), its status sets
// st, and whether its View gives the timestamp of its request as Gen.
func (n *Node) Init(id proto.NodeID, size int, inform, request []proto.NodeID, st Status, stamp bool) {
	*n = Node{id: id, n: size, inform: inform, request: request, st: st, stamp: stamp,
		perm: make([]uint8, len(request))}
}

func (n *Node) init() {
	clear(n.perm)
	*n = Node{id: n.id, n: n.n, inform: n.inform, request: n.request, st: n.st, stamp: n.stamp,
		perm: n.perm, queue: n.queue[:0], local: n.local[:0]}
}

// Step implements proto.Node.
func (n *Node) Step(in proto.Input, out *proto.Output) {
	switch in.Kind {
	case proto.EnterCS:
		n.enterCS(in.Tag, out)
	case proto.ExitCS:
		n.exitCS(out)
	case proto.Receive:
		n.receive(in.Msg, out)
	}
	for k := 0; k < len(n.local); k++ {
		n.receive(n.local[k], out)
	}
	clear(n.local)
	n.local = n.local[:0]
}

// Forget implements proto.Forgetter: once no node will ask again, the
// clock is read only to stamp grants, fails, inquires, yields and releases,
// whose receivers only raise their clocks with them (a request's stamp is
// its timestamp, set when it is made, and none is to come): it is set to 0.
func (n *Node) Forget() { n.clock = 0 }

// ForgetMessage is what the algorithms on these nodes declare of their
// messages (proto.MessageForgetter): once no node will ask again, every
// stamp but a request's only raises its receiver's clock, so it is set
// to 0.
func ForgetMessage(m *proto.Message) {
	if m.Type != Request {
		m.Stamp = 0
	}
}

// Recover implements proto.Recoverer: the node starts again from its
// initial state (nothing is stable: the algorithm has no failure protocol).
func (n *Node) Recover(*proto.Output) {
	n.init()
}

// send sends a message, or keeps it for the node itself: a node's own
// permission and release take no message.
func (n *Node) send(out *proto.Output, typ proto.MsgType, to proto.NodeID, tag uint32) {
	m := proto.Message{Type: typ, Cause: proto.Normal, From: n.id, To: to, Stamp: n.clock, Tag: tag}
	if to == n.id {
		n.local = append(n.local, m)
		return
	}
	out.Msgs = append(out.Msgs, m)
}

func (n *Node) enterCS(tag uint32, out *proto.Output) {
	if n.asked {
		return // one request at a time; the runtimes never ask twice
	}
	n.clock++
	n.asked, n.tag, n.ts = true, tag, n.clock
	clear(n.perm)
	n.granted, n.failed = 0, 0
	for _, k := range n.request {
		n.send(out, Request, k, tag)
	}
}

func (n *Node) exitCS(out *proto.Output) {
	if !n.inCS {
		return
	}
	n.inCS, n.asked = false, false
	clear(n.perm)
	n.granted, n.failed = 0, 0
	for _, k := range n.inform {
		n.send(out, Release, k, n.tag)
	}
}

func (n *Node) receive(m proto.Message, out *proto.Output) {
	n.clock = max(n.clock, m.Stamp)
	switch m.Type {
	case Request:
		n.arbitrate(req{ts: m.Stamp, id: m.From, tag: m.Tag}, out)
	case Yield:
		if n.busy && n.csstat.id == m.From && n.csstat.tag == m.Tag {
			back := n.csstat
			back.failed = true
			n.enqueue(back)
			n.grantNext(out)
		}
	case Release:
		if n.busy && n.csstat.id == m.From && n.csstat.tag == m.Tag {
			n.grantNext(out)
		}
	case Grant, Fail, Inquire:
		k, ok := slices.BinarySearch(n.request, m.From)
		if !ok || !n.asked || m.Tag != n.tag {
			return // about a request already served
		}
		switch m.Type {
		case Grant:
			n.grant1(k, out)
		case Fail:
			n.fail1(k, out)
		case Inquire:
			n.inquire(k, out)
		}
	}
}

// The arbiter.

// arbitrate handles a request r: granted at once if CSSTAT is free, else
// queued, with a fail to r or an inquire to the node CSSTAT names.
func (n *Node) arbitrate(r req, out *proto.Output) {
	if !n.busy {
		n.grant(r, out)
		return
	}
	pos := n.enqueue(r)
	if pos > 0 || n.csstat.before(r) {
		n.queue[pos].failed = true
		n.send(out, Fail, r.id, r.tag)
		return
	}
	// r comes first: the request it overtakes now waits behind it (a fail
	// to a larger timestamp not yet sent one), and the node CSSTAT names is
	// asked whether it got all its permissions.
	if len(n.queue) > 1 && !n.queue[1].failed {
		n.queue[1].failed = true
		n.send(out, Fail, n.queue[1].id, n.queue[1].tag)
	}
	if !n.inquired {
		n.inquired = true
		n.send(out, Inquire, n.csstat.id, n.csstat.tag)
	}
}

func (n *Node) enqueue(r req) int {
	pos, _ := slices.BinarySearchFunc(n.queue, r, func(a, b req) int {
		switch {
		case a.before(b):
			return -1
		case b.before(a):
			return 1
		}
		return 0
	})
	n.queue = slices.Insert(n.queue, pos, r)
	return pos
}

// grant sends the permission to r; CSSTAT becomes busy if r's requester is
// in the status set (it will send a release), and stays free otherwise.
func (n *Node) grant(r req, out *proto.Output) {
	if n.st.Informs(r.id, n.id, n.n) {
		n.busy, n.csstat, n.inquired = true, r, false
	}
	n.send(out, Grant, r.id, r.tag)
}

// grantNext frees CSSTAT and grants the waiting requests in order until
// one is from the status set or the queue is empty.
func (n *Node) grantNext(out *proto.Output) {
	n.busy = false
	for len(n.queue) > 0 && !n.busy {
		r := n.queue[0]
		n.queue = slices.Delete(n.queue, 0, 1)
		n.grant(r, out)
	}
}

// The requester.

func (n *Node) grant1(k int, out *proto.Output) {
	p := n.perm[k]
	if p&permGranted != 0 {
		return
	}
	if p&permFailed != 0 {
		n.failed--
	}
	n.perm[k] = p&^permFailed | permGranted | permEver
	n.granted++
	if n.granted == len(n.request) {
		n.inCS = true
		out.Enter = true
		for i := range n.perm {
			n.perm[i] &^= permInquired // the release answers them
		}
		return
	}
	if p&permInquired != 0 && n.failed > 0 {
		n.yield(k, out) // the inquire overtook this grant
	}
}

func (n *Node) fail1(k int, out *proto.Output) {
	p := n.perm[k]
	if p&(permEver|permFailed) != 0 {
		return // sent before a grant that overtook it
	}
	n.perm[k] = p | permFailed
	n.failed++
	for i, q := range n.perm {
		if q&(permGranted|permInquired) == permGranted|permInquired {
			n.yield(i, out)
		}
	}
}

func (n *Node) inquire(k int, out *proto.Output) {
	if n.inCS {
		return
	}
	if n.perm[k]&permGranted != 0 && n.failed > 0 {
		n.yield(k, out)
		return
	}
	n.perm[k] |= permInquired // kept until a fail arrives, or the grant it overtook
}

func (n *Node) yield(k int, out *proto.Output) {
	n.perm[k] = n.perm[k]&^(permGranted|permInquired) | permFailed
	n.granted--
	n.failed++
	n.send(out, Yield, n.request[k], n.tag)
}

// View implements proto.Node.
func (n *Node) View() proto.View {
	v := proto.View{Bits: proto.Bits{Up: n.Up(), InCS: n.inCS, Asked: n.asked}, Tag: n.tag}
	if n.stamp && n.asked {
		v.Gen = n.ts
	}
	return v
}

// Waiting implements proto.Node: the node's own pending request, and the
// requests in its arbiter's queue.
func (n *Node) Waiting(f func(j proto.NodeID)) {
	if n.asked && !n.inCS {
		f(n.id)
	}
	for _, r := range n.queue {
		if r.id != n.id {
			f(r.id)
		}
	}
}

// Choose makes q (increasing, holding the node) both the request and the
// informing set of the node's next request: Maekawa's protocol on a quorum
// the requester chooses at each request (algo/kakugawa), with status sets
// All. It does nothing while the node asks: a request keeps its quorum
// until its release.
func (n *Node) Choose(q []proto.NodeID) {
	if n.asked {
		return
	}
	n.request, n.inform = q, q
	if cap(n.perm) < len(q) {
		n.perm = make([]uint8, len(q))
	}
	n.perm = n.perm[:len(q)]
}

// Quorum returns the node's request set: its current request's, or its
// last one's when it does not ask.
func (n *Node) Quorum() []proto.NodeID { return n.request }

// Asks reports whether the node has a request pending or is in the
// critical section.
func (n *Node) Asks() bool { return n.asked }

// Busy reports whether the arbiter's CSSTAT is busy (Maekawa's locked).
func (n *Node) Busy() bool { return n.busy }

// Idle reports whether the node asks nothing, and its arbiter is free with
// no request waiting.
func (n *Node) Idle() bool { return !n.asked && !n.inCS && !n.busy && len(n.queue) == 0 }

func nodes(s proto.System) []*Node { return nodecast.All[*Node](s) }
