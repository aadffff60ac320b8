package singhal

import (
	"math/bits"

	"github.com/ocbench/ocbench/proto"
)

// The message types.
const (
	Request proto.MsgType = iota // request(ts): From asks To for its permission
	Reply                        // reply(C): From's permission
)

// deferral is a member of the inform set: a request answered at exit.
type deferral struct {
	j   proto.NodeID
	tag uint32
}

// Node is one node of Singhal's dynamic information-structure algorithm.
type Node struct {
	ID proto.NodeID
	n  int

	up         bool
	requesting bool
	executing  bool   // in the CS
	tag        uint32 // serial of the current (or last) request
	ts         uint64 // timestamp of the current (or last) request
	clock      uint64 // C_i

	r      []uint64 // R_i without i: bit j set iff j ∈ R_i
	rSize  int      // |R_i| − 1
	inform []deferral
}

func newNode(id proto.NodeID, n int) *Node {
	nd := &Node{ID: id, n: n, r: make([]uint64, (n+63)/64)}
	nd.init()
	return nd
}

// init puts the node in the initial staircase: R_i = {0, …, i−1} ∪ {i},
// I_i = {i}, C_i = 0.
func (nd *Node) init() {
	clear(nd.r)
	*nd = Node{ID: nd.ID, n: nd.n, r: nd.r, up: true, inform: nd.inform[:0]}
	for j := proto.NodeID(0); j < nd.ID; j++ {
		nd.add(j)
	}
}

// InR reports whether node j is in the node's request set.
func (nd *Node) InR(j proto.NodeID) bool {
	return j == nd.ID || nd.r[j>>6]&(1<<(uint(j)&63)) != 0
}

func (nd *Node) add(j proto.NodeID) {
	if !nd.InR(j) {
		nd.r[j>>6] |= 1 << (uint(j) & 63)
		nd.rSize++
	}
}

func (nd *Node) remove(j proto.NodeID) {
	if j != nd.ID && nd.InR(j) {
		nd.r[j>>6] &^= 1 << (uint(j) & 63)
		nd.rSize--
	}
}

// Step implements proto.Node.
func (nd *Node) Step(in proto.Input, out *proto.Output) {
	switch {
	case in.Kind == proto.Crash:
		nd.up = false
		return
	case in.Kind == proto.Recover:
		nd.init()
		return
	case !nd.up:
		return
	}
	switch in.Kind {
	case proto.EnterCS:
		nd.enterCS(in.Tag, out)
	case proto.ExitCS:
		nd.exitCS(out)
	case proto.Receive:
		switch in.Msg.Type {
		case Request:
			nd.request(in.Msg, out)
		case Reply: // Step 4
			nd.clock = max(nd.clock, in.Msg.Gen)
			nd.remove(in.Msg.From)
			nd.tryEnter(out)
		}
	}
}

func (nd *Node) send(out *proto.Output, t proto.MsgType, to proto.NodeID, gen uint64, tag uint32) {
	out.Msgs = append(out.Msgs, proto.Message{Type: t, Cause: proto.Normal, From: nd.ID, To: to,
		J: proto.Nil, Src: proto.Nil, Gen: gen, Tag: tag})
}

// enterCS: Step 1.
func (nd *Node) enterCS(tag uint32, out *proto.Output) {
	if nd.requesting || nd.executing {
		return
	}
	nd.requesting, nd.tag = true, tag
	nd.clock++
	nd.ts = nd.clock
	for w, word := range nd.r {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &= word - 1
			nd.send(out, Request, proto.NodeID(64*w+b), nd.ts, tag)
		}
	}
	nd.tryEnter(out)
}

// tryEnter: "wait until R_i = {i}".
func (nd *Node) tryEnter(out *proto.Output) {
	if nd.requesting && nd.rSize == 0 {
		nd.requesting, nd.executing = false, true
		out.Enter = true
	}
}

// before reports whether request (t1, i1) precedes request (t2, i2).
func before(t1 uint64, i1 proto.NodeID, t2 uint64, i2 proto.NodeID) bool {
	return t1 < t2 || (t1 == t2 && i1 < i2)
}

// request: Step 2, receipt of request(c) from j.
func (nd *Node) request(m proto.Message, out *proto.Output) {
	j, c := m.From, m.Gen
	nd.clock = max(nd.clock, c)
	switch {
	case nd.requesting && before(nd.ts, nd.ID, c, j):
		nd.inform = append(nd.inform, deferral{j: j, tag: m.Tag})
	case nd.requesting:
		nd.send(out, Reply, j, nd.clock, m.Tag)
		if !nd.InR(j) {
			nd.add(j)
			nd.send(out, Request, j, nd.ts, nd.tag)
		}
	case nd.executing:
		nd.inform = append(nd.inform, deferral{j: j, tag: m.Tag})
	default:
		nd.add(j)
		nd.send(out, Reply, j, nd.clock, m.Tag)
	}
}

// exitCS: Step 3.
func (nd *Node) exitCS(out *proto.Output) {
	if !nd.executing {
		return
	}
	nd.executing = false
	for _, d := range nd.inform {
		nd.send(out, Reply, d.j, nd.clock, d.tag)
		nd.add(d.j)
	}
	nd.inform = nd.inform[:0]
}

// View implements proto.Node.
func (nd *Node) View() proto.View {
	return proto.View{Up: nd.up, InCS: nd.executing, Asked: nd.requesting || nd.executing, Tag: nd.tag, Gen: nd.clock}
}

// Waiting implements proto.Node: the node's own pending request, and the
// requests in its inform set.
func (nd *Node) Waiting(f func(j proto.NodeID)) {
	if nd.requesting {
		f(nd.ID)
	}
	for _, d := range nd.inform {
		f(d.j)
	}
}
