package skbounded

import (
	"fmt"

	"github.com/ocbench/ocbench/algo/suzukikasami"
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// DefaultL is the round length L of the registered algorithm.
const DefaultL = 3

// The message types.
const (
	Request proto.MsgType = iota // request(j, RN[j] mod M)
	Token                        // PRIVILEGE(Q, LN mod M)
	Ack                          // a whole round of the receiver's requests arrived
)

var messageTypes = []proto.MessageType{
	{Name: "request", Payload: "none", Arg: "none", Stamp: "the request number RN[j] mod 2L"},
	{Name: "token", Token: true, Payload: "LN[0..N−1] mod 2L, then Q: one word j<<32 | serial per queued node, head first", Arg: "none"},
	{Name: "ack", Payload: "none", Arg: "none", Stamp: "the acknowledged request number mod 2L (a multiple of L)"},
}

// Node is one node of Suzuki–Kasami with bounded sequence numbers.
type Node struct {
	id        proto.NodeID
	n         int
	l, m      int64 // the round length L and the modulus M = 2L
	up        bool
	tokenHere bool
	asked     bool
	inCS      bool
	pending   bool   // asked, and its request waits for the previous round's acks
	owed      int    // acks of its last complete round not yet received
	tag       uint32 // the serial of the node's current (or last) request

	rn    []int64  // RN[j] mod M: the highest request number received from j (own for j = id)
	rnTag []uint32 // the serial of j's request rn[j]
	cnt   []int64  // the requests received from j, mod M

	// The token, while held (allocated when first received).
	ln  []int64 // LN[j] mod M: the number of j's request granted most recently
	q   []int64 // Q, head first: suzukikasami.Entry(j, serial)
	inQ []bool  // inQ[j]: j is in q
}

func (nd *Node) init(id proto.NodeID, n, l int) {
	*nd = Node{id: id, n: n, l: int64(l), m: 2 * int64(l), up: true,
		rn: make([]int64, n), rnTag: make([]uint32, n), cnt: make([]int64, n)}
	if id == 0 {
		nd.tokenHere = true
		nd.ln = make([]int64, n)
		nd.inQ = make([]bool, n)
	}
}

// mod returns x modulo M, in 0..M−1.
func (nd *Node) mod(x int64) int64 { return ((x % nd.m) + nd.m) % nd.m }

// unserved reports whether j's latest request known here is not granted by
// the held token: RN[j] = LN[j]+1 (mod M).
func (nd *Node) unserved(j proto.NodeID) bool { return nd.mod(nd.rn[j]-nd.ln[j]) == 1 }

// Step implements proto.Node.
func (nd *Node) Step(in proto.Input, out *proto.Output) {
	switch in.Kind {
	case proto.Crash:
		nd.up = false
		return
	case proto.Recover:
		nd.init(nd.id, nd.n, int(nd.l))
		return
	}
	if !nd.up {
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
		case Token:
			nd.token(in.Msg, out)
		case Ack:
			nd.ack(out)
		}
	}
}

func (nd *Node) enterCS(tag uint32, out *proto.Output) {
	if nd.asked {
		return // one request at a time
	}
	nd.asked, nd.tag = true, tag
	switch {
	case nd.tokenHere:
		nd.inCS, out.Enter = true, true
	case nd.owed > 0:
		nd.pending = true // the previous round is not acknowledged yet
	default:
		nd.sendRequests(out)
	}
}

// sendRequests sends the node's next request to every other node; the
// last request of a round makes the node wait for N−1 acks before its
// next.
func (nd *Node) sendRequests(out *proto.Output) {
	r := nd.mod(nd.rn[nd.id] + 1)
	nd.rn[nd.id], nd.rnTag[nd.id] = r, nd.tag
	if r%nd.l == 0 {
		nd.owed = nd.n - 1
	}
	for j := range proto.NodeID(nd.n) {
		if j != nd.id {
			out.Msgs = append(out.Msgs, proto.Message{Type: Request, From: nd.id, To: j, Stamp: uint64(r), Tag: nd.tag})
		}
	}
}

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
			nd.q = append(nd.q, suzukikasami.Entry(j, nd.rnTag[j]))
			nd.inQ[j] = true
		}
	}
	if len(nd.q) > 0 {
		j, tag := suzukikasami.Unpack(nd.q[0])
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
		k, _ := suzukikasami.Unpack(e)
		nd.inQ[k] = false
	}
	nd.q = nd.q[:0]
	nd.tokenHere = false
	out.Msgs = append(out.Msgs, proto.Message{Type: Token, From: nd.id, To: j, Tag: tag, Payload: p})
}

func (nd *Node) request(m proto.Message, out *proto.Output) {
	j, r := m.From, int64(m.Stamp)
	if d := nd.mod(r - nd.rn[j]); d >= 1 && d <= nd.l { // higher than any received
		nd.rn[j], nd.rnTag[j] = r, m.Tag
	}
	nd.cnt[j] = nd.mod(nd.cnt[j] + 1)
	if nd.cnt[j]%nd.l == 0 {
		out.Msgs = append(out.Msgs, proto.Message{Type: Ack, From: nd.id, To: j, Stamp: uint64(nd.cnt[j]), Tag: nd.rnTag[j]})
	}
	if nd.tokenHere && !nd.asked && nd.unserved(j) {
		nd.sendToken(j, nd.rnTag[j], 0, out) // Q is empty at an idle holder
	}
}

func (nd *Node) ack(out *proto.Output) {
	if nd.owed == 0 {
		return // cannot happen without failures: a round is acked once
	}
	nd.owed--
	if nd.owed == 0 && nd.pending {
		nd.pending = false
		nd.sendRequests(out)
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
		k, _ := suzukikasami.Unpack(e)
		nd.inQ[k] = true
	}
	nd.tokenHere = true
	if !nd.asked || nd.pending {
		// Not sent to a node that does not wait for it (its latest request
		// is granted): kept and released as on exit_cs.
		nd.release(out)
		return
	}
	nd.inCS, out.Enter = true, true
}

// View implements proto.Node.
func (nd *Node) View() proto.View {
	return proto.View{Up: nd.up, TokenHere: nd.tokenHere, InCS: nd.inCS, Asked: nd.asked, Tag: nd.tag}
}

// Waiting implements proto.Node: the node itself while its request waits
// (for the token, or for the acks before it is sent); at the holder, the
// nodes in Q and then those whose request it knows is not granted.
func (nd *Node) Waiting(f func(j proto.NodeID)) {
	if nd.asked && !nd.inCS {
		f(nd.id)
	}
	if !nd.tokenHere {
		return
	}
	for _, e := range nd.q {
		j, _ := suzukikasami.Unpack(e)
		f(j)
	}
	for j := range proto.NodeID(nd.n) {
		if j != nd.id && !nd.inQ[j] && nd.unserved(j) {
			f(j)
		}
	}
}

// Algorithm is Suzuki–Kasami's algorithm with request numbers bounded by
// rounds of L requests.
type Algorithm struct {
	// L is the round length, at least 2.
	L int
}

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "suzuki-kasami-bounded" }

// MemoryPerNode implements proto.MemoryEstimator: RN, its serials and the
// counts at every node, and the token's LN: about 20 bytes per node of the
// system at each node.
func (Algorithm) MemoryPerNode(n int) int64 { return 20*int64(n) + 96 }

// NewNodes implements proto.Algorithm: node 0 holds the token.
func (a Algorithm) NewNodes(n int) []proto.Node {
	l := a.round()
	return nodecast.New(n, func(nd *Node, id proto.NodeID) { nd.init(id, n, l) })
}

// round returns L, DefaultL for the zero Algorithm.
func (a Algorithm) round() int {
	if a.L < 2 {
		return DefaultL
	}
	return a.L
}

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.TokenBased }

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// Events implements proto.Algorithm: none.
func (Algorithm) Events() []string { return nil }

// StatedCost implements proto.CostAlgorithm: the survey's L·N + (N−1)
// messages for L entries (§4 on Suzuki–Kasami; Table 1), per entry
// (L·N + (N−1))/L; 0 when the requester holds the idle token.
func (a Algorithm) StatedCost(n int) proto.Cost {
	l := a.round()
	return proto.Cost{Low: 0, High: float64(l*n+n-1) / float64(l), Text: fmt.Sprintf("L·N+(N−1) per L entries, L=%d", l),
		Source: "survey T1, §4", Kind: proto.Range}
}
