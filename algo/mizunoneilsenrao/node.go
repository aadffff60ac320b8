package mizunoneilsenrao

import (
	"slices"

	"github.com/ocbench/ocbench/internal/tokennode"
	"github.com/ocbench/ocbench/proto"
)

// The message types.
const (
	Request  proto.MsgType = iota // REQUEST(i, RN_i[i]): J = i, Stamp = RN_i[i]
	Forward                       // REQUEST(RN_k): Payload = outstanding requests (node<<32 | serial, RN)
	Token                         // the token: Stamp = its transfers, Payload = LN, then Q
	Acquired                      // ACQUIRED(j, LN): Stamp = the token's transfers, Payload = LN
)

var messageTypes = []proto.MessageType{
	{Name: "request", Arg: "", Stamp: "the requester's request number RN[i]"},
	{Name: "forward", Arg: "none", Payload: "pairs of words: node<<32 | serial, then its request number, one pair per request not granted"},
	{Name: "token", Token: true, Arg: "none", Stamp: "the token's transfers so far", Payload: "LN[0..N−1], then Q: node<<32 | serial per queued node, head first"},
	{Name: "acquired", Arg: "none", Stamp: "the token's transfers so far", Payload: "LN[0..N−1]"},
}

func entry(j proto.NodeID, tag uint32) int64 { return int64(j)<<32 | int64(tag) }

func unpack(e int64) (proto.NodeID, uint32) { return proto.NodeID(e >> 32), uint32(e) }

// Node is one node of the Mizuno–Neilsen–Rao algorithm. Only Step
// changes it.
type Node struct {
	tokennode.State
	id       proto.NodeID
	n        int
	request  []proto.NodeID // R_i
	acquired []proto.NodeID // A_i
	// knowsStart: the node knows that node 0 holds the token initially
	// (it is in A_0, or node 0 is in A_i); inA0: it is in A_0.
	knowsStart, inA0 bool

	rn    []int64  // RN: the highest request number known of every node
	rnTag []uint32 // the serial of that request
	ln    []int64  // LN as last seen in an ACQUIRED or the token
	// holder is the node that, as far as this node knows, holds the token
	// (the sender of the ACQUIRED with the most transfers seen); Nil if it
	// never heard.
	holder proto.NodeID
	hcount uint64
	// relay: the node knows holder from the holder's own ACQUIRED (or, at
	// the start, as a member of A_0): it is the relation link between the
	// holder's acquired set and any request set it is in.
	relay bool

	count uint64  // the token's transfers, while held
	q     []int64 // the token's queue, while held
	inQ   []bool
}

// init gives the node its sets; a0 is A_0.
func (nd *Node) init(a Agreement, a0 []proto.NodeID) {
	nd.request, nd.acquired = a.Sets(nd.id, nd.n)
	nd.inA0 = slices.Contains(a0, nd.id)
	nd.knowsStart = nd.inA0 || slices.Contains(nd.acquired, 0)
	nd.reset()
}

// reset puts the node in its initial state: node 0 holds the idle token;
// the members of A_0 know it (as if node 0 had sent them its ACQUIRED),
// and so do the nodes whose A_i holds node 0 (on the grid these are the
// same nodes; on the binary tree every A_i holds the root, node 0).
func (nd *Node) reset() {
	*nd = Node{State: tokennode.State{}, id: nd.id, n: nd.n, request: nd.request, acquired: nd.acquired,
		knowsStart: nd.knowsStart, inA0: nd.inA0, rn: nd.rn, rnTag: nd.rnTag, ln: nd.ln, inQ: nd.inQ, q: nd.q[:0], holder: proto.Nil}
	clear(nd.rn)
	clear(nd.rnTag)
	clear(nd.ln)
	clear(nd.inQ)
	if nd.id == 0 {
		nd.TokenHere = true
	}
	if nd.knowsStart {
		nd.holder = 0
	}
	nd.relay = nd.inA0
}

// Step implements proto.Node.
func (nd *Node) Step(in proto.Input, out *proto.Output) {
	switch nd.Gate(in, out) {
	case tokennode.Ask:
		nd.rn[nd.id]++
		nd.rnTag[nd.id] = in.Tag
		for _, k := range nd.request {
			if k != nd.id {
				out.Msgs = append(out.Msgs, proto.Message{Type: Request, From: nd.id, To: k, J: proto.RefTo(nd.id),
					Stamp: uint64(nd.rn[nd.id]), Tag: in.Tag})
			}
		}
		nd.member(nd.id, out) // i is a member of R_i too
	case tokennode.Leave:
		nd.ln[nd.id] = nd.rn[nd.id]
		nd.release(out)
	case tokennode.Deliver:
		m := &in.Msg
		switch m.Type {
		case Request:
			j := m.J.Node()
			nd.learn(j, int64(m.Stamp), m.Tag)
			nd.member(j, out)
		case Forward:
			for k := 0; k+1 < len(m.Payload); k += 2 {
				j, tag := unpack(m.Payload[k])
				nd.learn(j, m.Payload[k+1], tag)
			}
			if nd.TokenHere {
				nd.collect(out)
			}
		case Acquired:
			nd.heard(m.From, m.Stamp, m.Payload)
			nd.forward(out)
		case Token:
			nd.takeToken(m, out)
		}
	}
}

// Recover implements proto.Recoverer: the node starts again as NewNodes
// made it.
func (nd *Node) Recover(*proto.Output) { nd.reset() }

// learn records request number r of node j, of serial tag.
func (nd *Node) learn(j proto.NodeID, r int64, tag uint32) {
	if r > nd.rn[j] {
		nd.rn[j], nd.rnTag[j] = r, tag
	}
}

// heard records an ACQUIRED: h got the token at its count-th transfer.
func (nd *Node) heard(h proto.NodeID, count uint64, ln []int64) {
	if nd.holder != proto.Nil && count < nd.hcount {
		return // an older holder's
	}
	nd.holder, nd.hcount, nd.relay = h, count, true
	for j, v := range ln {
		nd.ln[j] = max(nd.ln[j], v)
	}
}

// member handles, as a member of R_j, node j's request: the holder queues
// it or sends the idle token; a relay (a node that heard the holder's
// ACQUIRED, or a member of A_0 at the start) passes it on to that holder at
// once; any other node keeps it for the next ACQUIRED it gets.
func (nd *Node) member(j proto.NodeID, out *proto.Output) {
	switch {
	case nd.TokenHere:
		nd.collect(out)
	case nd.relay && nd.holder != proto.Nil && nd.holder != nd.id && nd.rn[j] > nd.ln[j]:
		out.Msgs = append(out.Msgs, proto.Message{Type: Forward, From: nd.id, To: nd.holder, Tag: nd.rnTag[j],
			Payload: []int64{entry(j, nd.rnTag[j]), nd.rn[j]}})
	}
}

// forward sends the holder, after its ACQUIRED, every request this node
// knows is not granted.
func (nd *Node) forward(out *proto.Output) {
	if nd.holder == nd.id || nd.TokenHere {
		return
	}
	var p []int64
	for j := range nd.n {
		if nd.rn[j] > nd.ln[j] && proto.NodeID(j) != nd.holder {
			p = append(p, entry(proto.NodeID(j), nd.rnTag[j]), nd.rn[j])
		}
	}
	if len(p) > 0 {
		_, tag := unpack(p[0])
		out.Msgs = append(out.Msgs, proto.Message{Type: Forward, From: nd.id, To: nd.holder, Tag: tag, Payload: p})
	}
}

// collect, at the holder, queues every request it knows is not granted
// (ascending ids), and sends the idle token to the head of the queue.
func (nd *Node) collect(out *proto.Output) {
	for j := range proto.NodeID(nd.n) {
		if j != nd.id && !nd.inQ[j] && nd.rn[j] > nd.ln[j] {
			nd.q = append(nd.q, entry(j, nd.rnTag[j]))
			nd.inQ[j] = true
		}
	}
	if !nd.Asked && len(nd.q) > 0 {
		nd.sendToken(out)
	}
}

// release is the holder's exit: queue what it knows, pass the token on.
func (nd *Node) release(out *proto.Output) { nd.collect(out) }

// sendToken sends the token to the head of the queue.
func (nd *Node) sendToken(out *proto.Output) {
	j, tag := unpack(nd.q[0])
	p := make([]int64, nd.n+len(nd.q)-1)
	copy(p, nd.ln)
	copy(p[nd.n:], nd.q[1:])
	for _, e := range nd.q {
		k, _ := unpack(e)
		nd.inQ[k] = false
	}
	nd.q = nd.q[:0]
	nd.TokenHere = false
	nd.count++
	nd.holder, nd.hcount, nd.relay = j, nd.count, false // it knows where the token went, not as a relay
	out.Msgs = append(out.Msgs, proto.Message{Type: Token, From: nd.id, To: j, Tag: tag, Stamp: nd.count, Payload: p})
}

// takeToken receives the token: the node enters, and tells A_i.
func (nd *Node) takeToken(m *proto.Message, out *proto.Output) {
	copy(nd.ln, m.Payload[:nd.n])
	nd.q = append(nd.q[:0], m.Payload[nd.n:]...)
	for _, e := range nd.q {
		k, _ := unpack(e)
		nd.inQ[k] = true
	}
	nd.TokenHere, nd.count = true, m.Stamp
	nd.holder, nd.hcount = nd.id, m.Stamp
	for _, k := range nd.acquired {
		if k != nd.id {
			out.Msgs = append(out.Msgs, proto.Message{Type: Acquired, From: nd.id, To: k, Tag: m.Tag, Stamp: m.Stamp, Payload: m.Payload[:nd.n]})
		}
	}
	if !nd.Asked {
		nd.ln[nd.id] = nd.rn[nd.id]
		nd.collect(out)
		return
	}
	nd.InCS, out.Enter = true, true
	nd.collect(out)
}

// View implements proto.Node. Gen is the token's transfers.
func (nd *Node) View() proto.View {
	v := nd.State.View()
	v.Gen = nd.count
	return v
}

// Waiting implements proto.Node: the node itself while it waits for the
// token; at the holder, the nodes in its queue.
func (nd *Node) Waiting(f func(j proto.NodeID)) {
	if nd.Waits() {
		f(nd.id)
	}
	if nd.TokenHere {
		for _, e := range nd.q {
			j, _ := unpack(e)
			f(j)
		}
	}
}
