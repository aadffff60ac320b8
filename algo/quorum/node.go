package quorum

import (
	"slices"

	"github.com/ocbench/ocbench/proto"
)

// The message types (doc.go describes their fields).
const (
	Request    proto.MsgType = iota // requester → arbiter: Stamp = the request's Lamport timestamp
	Locked                          // arbiter → requester: the arbiter's permission (grant)
	Failed                          // arbiter → requester: a request of higher priority holds or waits for the arbiter
	Inquire                         // arbiter → the requester it is locked for: will you give the permission back?
	Relinquish                      // requester → arbiter: the permission given back (Maekawa's yield)
	Release                         // requester → arbiter: the requester left the critical section
	NumTypes
)

var messageTypes = []proto.MessageType{
	{Name: "request", Arg: "none", Stamp: "the request's Lamport timestamp"},
	{Name: "locked", Arg: "none", Stamp: "the sender's Lamport clock"},
	{Name: "failed", Arg: "none", Stamp: "the sender's Lamport clock"},
	{Name: "inquire", Arg: "none", Stamp: "the sender's Lamport clock"},
	{Name: "relinquish", Arg: "none", Stamp: "the sender's Lamport clock"},
	{Name: "release", Arg: "none", Stamp: "the sender's Lamport clock"},
}

// The state of one member of a requester's quorum, as the requester knows
// it during one request (bits of Node.perm).
const (
	permGranted  uint8 = 1 << iota // the member's permission is held
	permFailed                     // the member is locked for (or given back to) a request of higher priority
	permEver                       // a Locked came from the member during this request: a later Failed is stale
	permInquired                   // an Inquire from the member waits for an answer
)

// req is a request as an arbiter holds it. Priority is (ts, id): the
// smaller first.
type req struct {
	ts     uint64
	id     proto.NodeID
	tag    uint32
	failed bool // the requester knows that a request of higher priority is ahead of it here
}

func (a req) before(b req) bool { return a.ts < b.ts || a.ts == b.ts && a.id < b.id }

// Node is one node: a requester, and an arbiter for the nodes whose quorum
// holds it.
type Node struct {
	id proto.NodeID
	proto.Life
	clock  uint64         // Lamport clock
	quorum []proto.NodeID // increasing; holds id

	// The requester.
	asked, inCS bool
	tag         uint32 // the serial of the request being served
	ts          uint64 // its timestamp
	perm        []uint8
	granted     int // members whose permission is held
	failed      int // members in state permFailed

	// The arbiter.
	locked   bool
	lock     req   // the request the arbiter is locked for
	inquired bool  // an Inquire was sent for lock
	queue    []req // waiting requests, by priority

	local []proto.Message // messages to itself, handled within the step
}

func (n *Node) init(id proto.NodeID, quorum []proto.NodeID) {
	*n = Node{id: id, quorum: quorum, perm: make([]uint8, len(quorum))}
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

// Recover implements proto.Recoverer.
func (n *Node) Recover(*proto.Output) {
	n.init(n.id, n.quorum)
}

// send sends m, or keeps it for the node itself: a node's own permission
// is given without a message.
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
		return
	}
	n.clock++
	n.asked, n.tag, n.ts = true, tag, n.clock
	clear(n.perm)
	n.granted, n.failed = 0, 0
	for _, k := range n.quorum {
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
	for _, k := range n.quorum {
		n.send(out, Release, k, n.tag)
	}
}

func (n *Node) receive(m proto.Message, out *proto.Output) {
	n.clock = max(n.clock, m.Stamp)
	switch m.Type {
	case Request:
		n.arbitrate(req{ts: m.Stamp, id: m.From, tag: m.Tag}, out)
	case Relinquish:
		if n.locked && n.lock.id == m.From && n.lock.tag == m.Tag {
			back := n.lock
			back.failed = true
			n.enqueue(back)
			n.grantNext(out)
		}
	case Release:
		if n.locked && n.lock.id == m.From && n.lock.tag == m.Tag {
			n.locked = false
			n.grantNext(out)
		}
	case Locked, Failed, Inquire:
		k, ok := slices.BinarySearch(n.quorum, m.From)
		if !ok || !n.asked || m.Tag != n.tag {
			return // about a request already served
		}
		switch m.Type {
		case Locked:
			n.locked1(k, out)
		case Failed:
			n.failed1(k, out)
		case Inquire:
			n.inquire(k, out)
		}
	}
}

// The arbiter.

// arbitrate handles a request r that arrives at the arbiter.
func (n *Node) arbitrate(r req, out *proto.Output) {
	if !n.locked {
		n.grant(r, out)
		return
	}
	pos := n.enqueue(r)
	if pos > 0 || n.lock.before(r) {
		// A request of higher priority holds the arbiter or waits for it.
		n.queue[pos].failed = true
		n.send(out, Failed, r.id, r.tag)
		return
	}
	// r comes first: the request it overtakes in the queue now waits behind
	// it, and the lock's holder is asked to give the permission back.
	if len(n.queue) > 1 && !n.queue[1].failed {
		n.queue[1].failed = true
		n.send(out, Failed, n.queue[1].id, n.queue[1].tag)
	}
	if !n.inquired {
		n.inquired = true
		n.send(out, Inquire, n.lock.id, n.lock.tag)
	}
}

// enqueue puts r in the queue by priority and returns its position.
func (n *Node) enqueue(r req) int {
	pos, _ := slices.BinarySearchFunc(n.queue, r, func(a, b req) int {
		if a.before(b) {
			return -1
		}
		if b.before(a) {
			return 1
		}
		return 0
	})
	n.queue = slices.Insert(n.queue, pos, r)
	return pos
}

func (n *Node) grant(r req, out *proto.Output) {
	n.locked, n.lock, n.inquired = true, r, false
	n.send(out, Locked, r.id, r.tag)
}

// grantNext gives the free arbiter's permission to the first waiting
// request, if any.
func (n *Node) grantNext(out *proto.Output) {
	n.locked = false
	if len(n.queue) == 0 {
		return
	}
	r := n.queue[0]
	n.queue = slices.Delete(n.queue, 0, 1)
	n.grant(r, out)
}

// The requester.

// locked1 handles the permission of quorum member k.
func (n *Node) locked1(k int, out *proto.Output) {
	p := n.perm[k]
	if p&permGranted != 0 {
		return
	}
	if p&permFailed != 0 {
		n.failed--
	}
	n.perm[k] = p&^permFailed | permGranted | permEver
	n.granted++
	if n.granted == len(n.quorum) {
		n.inCS = true
		out.Enter = true
		for i := range n.perm {
			n.perm[i] &^= permInquired // the release answers them
		}
		return
	}
	if p&permInquired != 0 && n.failed > 0 {
		n.relinquish(k, out) // the Inquire overtook this Locked
	}
}

// failed1 handles a Failed from quorum member k.
func (n *Node) failed1(k int, out *proto.Output) {
	p := n.perm[k]
	if p&(permEver|permFailed) != 0 {
		return // sent before a Locked that overtook it
	}
	n.perm[k] = p | permFailed
	n.failed++
	for i, q := range n.perm {
		if q&(permGranted|permInquired) == permGranted|permInquired {
			n.relinquish(i, out)
		}
	}
}

// inquire handles an Inquire from quorum member k.
func (n *Node) inquire(k int, out *proto.Output) {
	if n.inCS {
		return
	}
	if n.perm[k]&permGranted != 0 && n.failed > 0 {
		n.relinquish(k, out)
		return
	}
	// Kept until a Failed arrives, or until the Locked it overtook does.
	n.perm[k] |= permInquired
}

func (n *Node) relinquish(k int, out *proto.Output) {
	n.perm[k] = n.perm[k]&^(permGranted|permInquired) | permFailed
	n.granted--
	n.failed++
	n.send(out, Relinquish, n.quorum[k], n.tag)
}

// View implements proto.Node.
func (n *Node) View() proto.View {
	return proto.View{Bits: proto.Bits{Up: n.Up(), InCS: n.inCS, Asked: n.asked}, Tag: n.tag}
}

// Waiting implements proto.Node: the node's own pending request, and the
// requests waiting in its arbiter's queue.
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
