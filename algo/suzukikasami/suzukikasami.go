package suzukikasami

import (
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// The message types.
const (
	Request proto.MsgType = iota // request(j, RN[j]): j asks for the token
	Token                        // PRIVILEGE(Q, LN): the token
	Ack                          // bounded variant: a whole round of the receiver's requests arrived
)

var messageTypes = []proto.MessageType{
	{Name: "request", Payload: "none", Arg: "none", Stamp: "the request number RN[j]"},
	{Name: "token", Token: true, Payload: "LN[0..N−1], then Q: one word j<<32 | serial per queued node, head first", Arg: "none"},
}

// Node is one node of Suzuki–Kasami.
type Node struct {
	id proto.NodeID
	n  int
	proto.Life
	tokenHere bool
	asked     bool
	inCS      bool
	tag       uint32 // the serial of the node's current (or last) request

	rn    []int64   // RN[j]: the highest request number received from j (own for j = id); mod M when bounded
	rnTag []uint32  // the serial of j's request number rn[j]
	num   numbering // unbounded request numbers, or the bounded variant's rounds

	// The token, while held (allocated when first received).
	ln  []int64 // LN[j]: the number of j's request granted most recently
	q   []int64 // Q, head first: entry(j, serial)
	inQ []bool  // inQ[j]: j is in q
}

func entry(j proto.NodeID, tag uint32) int64 { return int64(j)<<32 | int64(tag) }

func unpack(e int64) (proto.NodeID, uint32) { return proto.NodeID(e >> 32), uint32(e) }

// init puts the node in its initial state; l ≥ 2 bounds its request
// numbers in rounds of l (the bounded variant), l = 0 leaves them unbounded.
func (nd *Node) init(id proto.NodeID, n, l int) {
	*nd = Node{id: id, n: n, num: unbounded{}, rn: make([]int64, n), rnTag: make([]uint32, n)}
	if l > 0 {
		nd.num = &rounds{l: int64(l), m: 2 * int64(l), cnt: make([]int64, n)}
	}
	if id == 0 {
		nd.tokenHere = true
		nd.ln = make([]int64, n)
		nd.inQ = make([]bool, n)
	}
}

// Step implements proto.Node.
func (nd *Node) Step(in proto.Input, out *proto.Output) {
	switch in.Kind {
	case proto.EnterCS:
		nd.enterCS(in.Tag, out)
	case proto.ExitCS:
		nd.exitCS(out)
	case proto.Receive:
		switch in.Msg.Type {
		case Request:
			nd.request(in.Msg, out)
		case Token:
			nd.token(in.Msg, out)
		case Ack:
			nd.ack(out)
		}
	}
}

// Recover implements proto.Recoverer.
func (nd *Node) Recover(*proto.Output) {
	nd.init(nd.id, nd.n, nd.num.round())
}

func (nd *Node) enterCS(tag uint32, out *proto.Output) {
	if nd.asked {
		return // one request at a time
	}
	nd.asked, nd.tag = true, tag
	switch {
	case nd.tokenHere:
		nd.inCS, out.Enter = true, true
	case nd.num.hold():
		// the previous round is not acknowledged yet
	default:
		nd.sendRequests(out)
	}
}

// sendRequests sends the node's next request to every other node. In the
// bounded variant the last request of a round makes the node wait for N−1
// acks before its next.
func (nd *Node) sendRequests(out *proto.Output) {
	r := nd.num.next(nd.rn[nd.id], nd.n)
	nd.rn[nd.id], nd.rnTag[nd.id] = r, nd.tag
	for j := range proto.NodeID(nd.n) {
		if j != nd.id {
			out.Msgs = append(out.Msgs, proto.Message{Type: Request, From: nd.id, To: j, Stamp: uint64(r), Tag: nd.tag})
		}
	}
}

// unserved reports whether j's latest request known here is not granted by
// the held token: RN[j] > LN[j]; RN[j] = LN[j]+1 (mod M) when bounded.
func (nd *Node) unserved(j proto.NodeID) bool { return nd.num.unserved(nd.rn[j], nd.ln[j]) }

func (nd *Node) exitCS(out *proto.Output) {
	if !nd.inCS {
		return
	}
	nd.inCS, nd.asked = false, false
	nd.ln[nd.id] = nd.rn[nd.id]
	nd.release(out)
}

// release appends to Q the nodes whose latest request is not granted, in
// ascending id order, and sends the token to the head of Q if any.
func (nd *Node) release(out *proto.Output) {
	for j := range proto.NodeID(nd.n) {
		if j != nd.id && !nd.inQ[j] && nd.unserved(j) {
			nd.q = append(nd.q, entry(j, nd.rnTag[j]))
			nd.inQ[j] = true
		}
	}
	if len(nd.q) > 0 {
		j, tag := unpack(nd.q[0])
		nd.sendToken(j, tag, 1, out)
	}
}

// sendToken sends the token to j for its request of serial tag, with Q
// from its entry skip on.
func (nd *Node) sendToken(j proto.NodeID, tag uint32, skip int, out *proto.Output) {
	p := make([]int64, nd.n+len(nd.q)-skip)
	copy(p, nd.ln)
	copy(p[nd.n:], nd.q[skip:])
	for _, e := range nd.q {
		k, _ := unpack(e)
		nd.inQ[k] = false
	}
	nd.q = nd.q[:0]
	nd.tokenHere = false
	out.Msgs = append(out.Msgs, proto.Message{Type: Token, From: nd.id, To: j, Tag: tag, Payload: p})
}

func (nd *Node) request(m proto.Message, out *proto.Output) {
	j, r := m.From, int64(m.Stamp)
	if nd.num.newer(r, nd.rn[j]) {
		nd.rn[j], nd.rnTag[j] = r, m.Tag
	}
	if c, ack := nd.num.count(j); ack {
		out.Msgs = append(out.Msgs, proto.Message{Type: Ack, From: nd.id, To: j, Stamp: uint64(c), Tag: nd.rnTag[j]})
	}
	if nd.tokenHere && !nd.asked && nd.unserved(j) {
		nd.sendToken(j, nd.rnTag[j], 0, out) // Q is empty at an idle holder
	}
}

func (nd *Node) token(m proto.Message, out *proto.Output) {
	if nd.ln == nil {
		nd.ln = make([]int64, nd.n)
		nd.inQ = make([]bool, nd.n)
	}
	copy(nd.ln, m.Payload[:nd.n])
	nd.q = append(nd.q[:0], m.Payload[nd.n:]...)
	for _, e := range nd.q {
		k, _ := unpack(e)
		nd.inQ[k] = true
	}
	nd.tokenHere = true
	if nd.num.pending() {
		// Not sent to a node whose request waits for acks (its latest sent
		// request is granted): kept and released as on exit_cs.
		nd.release(out)
		return
	}
	if !nd.asked {
		if nd.num.regrant() {
			nd.ln[nd.id] = nd.rn[nd.id] // a request of its own, if any, was given up
		}
		nd.release(out)
		return
	}
	nd.inCS, out.Enter = true, true
}

// View implements proto.Node.
func (nd *Node) View() proto.View {
	return proto.View{Bits: proto.Bits{Up: nd.Up(), TokenHere: nd.tokenHere, InCS: nd.inCS, Asked: nd.asked}, Tag: nd.tag}
}

// Waiting implements proto.Node: the node itself while its request waits
// for the token; at the holder, the nodes in Q and then those whose
// request it knows is not granted.
func (nd *Node) Waiting(f func(j proto.NodeID)) {
	if nd.asked && !nd.inCS {
		f(nd.id)
	}
	if !nd.tokenHere {
		return
	}
	for _, e := range nd.q {
		j, _ := unpack(e)
		f(j)
	}
	for j := range proto.NodeID(nd.n) {
		if j != nd.id && !nd.inQ[j] && nd.unserved(j) {
			f(j)
		}
	}
}

// Algorithm is Suzuki–Kasami's algorithm.
type Algorithm struct{}

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "suzuki-kasami" }

// MemoryPerNode implements proto.MemoryEstimator: RN at every node, and the token's LN, about 12 bytes
// per node of the system at each node (measured at N = 256..4096).
func (Algorithm) MemoryPerNode(n int) int64 { return 12*int64(n) + 64 }

// NewNodes implements proto.Algorithm: node 0 holds the token.
func (Algorithm) NewNodes(n int) []proto.Node {
	return nodecast.New(n, func(nd *Node, id proto.NodeID) { nd.init(id, n, 0) })
}

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.TokenBased }

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// Events implements proto.Algorithm: none.
func (Algorithm) Events() []string { return nil }

// StatedCost implements proto.CostAlgorithm: N messages per critical
// section, 0 when the requester holds the idle token (survey, §4 and
// Table 1).
func (Algorithm) StatedCost(n int) proto.Cost {
	return proto.Cost{Low: 0, High: float64(n), Text: "N (0 with the idle token)", Source: "survey T1, §4", Kind: proto.Range}
}
