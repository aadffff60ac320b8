package suzukikasami

import (
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/internal/tokennode"
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
	id              proto.NodeID
	n               int
	tokennode.State // the request state, and the up bit

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
		nd.TokenHere = true
		nd.ln = make([]int64, n)
		nd.inQ = make([]bool, n)
	}
}

// Step implements proto.Node: the request state's gate (tokennode), then
// Suzuki–Kasami's rules.
func (nd *Node) Step(in proto.Input, out *proto.Output) {
	switch nd.Gate(in, out) {
	case tokennode.Ask:
		if !nd.num.hold() { // else the previous round is not acknowledged yet: pending
			nd.sendRequests(out)
		}
	case tokennode.Leave:
		nd.ln[nd.id] = nd.rn[nd.id]
		nd.release(out)
	case tokennode.Deliver:
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

// sendRequests sends the node's next request to every other node. In the
// bounded variant the last request of a round makes the node wait for N−1
// acks before its next.
func (nd *Node) sendRequests(out *proto.Output) {
	r := nd.num.next(nd.rn[nd.id], nd.n)
	nd.rn[nd.id], nd.rnTag[nd.id] = r, nd.Tag
	for j := range proto.NodeID(nd.n) {
		if j != nd.id {
			out.Msgs = append(out.Msgs, proto.Message{Type: Request, From: nd.id, To: j, Stamp: uint64(r), Tag: nd.Tag})
		}
	}
}

// unserved reports whether j's latest request known here is not granted by
// the held token: RN[j] > LN[j]; RN[j] = LN[j]+1 (mod M) when bounded.
func (nd *Node) unserved(j proto.NodeID) bool { return nd.num.unserved(nd.rn[j], nd.ln[j]) }

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
	nd.TokenHere = false
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
	if nd.TokenHere && !nd.Asked && nd.unserved(j) {
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
	nd.TokenHere = true
	if nd.num.pending() {
		// Not sent to a node whose request waits for acks (its latest sent
		// request is granted): kept and released as on exit_cs.
		nd.release(out)
		return
	}
	if !nd.Asked {
		if nd.num.regrant() {
			nd.ln[nd.id] = nd.rn[nd.id] // a request of its own, if any, was given up
		}
		nd.release(out)
		return
	}
	nd.InCS, out.Enter = true, true
}

// Waiting implements proto.Node: the node itself while its request waits
// for the token; at the holder, the nodes in Q and then those whose
// request it knows is not granted.
func (nd *Node) Waiting(f func(j proto.NodeID)) {
	if nd.Waits() {
		f(nd.id)
	}
	if !nd.TokenHere {
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
