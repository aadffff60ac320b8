package neilsenmizuno

import (
	"math/bits"

	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/proto"
)

// The message types.
const (
	Request proto.MsgType = iota // REQUEST(k, origin)
	Token                        // PRIVILEGE
)

var messageTypes = []proto.MessageType{
	{Name: "request"},
	{Name: "token", Token: true, Arg: "none"},
}

// Node is one node of the Neilsen–Mizuno algorithm.
type Node struct {
	id      proto.NodeID
	up      bool
	holding bool         // holds the idle token
	inCS    bool         // in its critical section (holds the token)
	asked   bool         // has a request outstanding (waiting or in its CS)
	last    proto.NodeID // the paper's LAST; Nil: a sink
	next    proto.NodeID // the paper's NEXT; Nil: none
	nextTag uint32       // the serial of next's request
	tag     uint32       // the serial of this node's current (or last) request
}

func (nd *Node) init() {
	id := nd.id
	*nd = Node{id: id, up: true, last: proto.NodeID(hypercube.Father(int(id))), next: proto.Nil}
	if id == 0 {
		nd.last, nd.holding = proto.Nil, true
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
		case Token:
			nd.token(out)
		}
	}
}

func (nd *Node) send(out *proto.Output, m proto.Message) {
	m.From, m.Cause, m.Src = nd.id, proto.Normal, proto.Ref{}
	out.Msgs = append(out.Msgs, m)
}

func (nd *Node) enterCS(tag uint32, out *proto.Output) {
	if nd.asked {
		return
	}
	nd.asked, nd.tag = true, tag
	if nd.holding {
		nd.holding, nd.inCS = false, true
		out.Enter = true
		return
	}
	nd.send(out, proto.Message{Type: Request, To: nd.last, J: proto.RefTo(nd.id), Tag: tag})
	nd.last = proto.Nil
}

func (nd *Node) request(m proto.Message, out *proto.Output) {
	origin := m.J.Node()
	switch {
	case nd.last == proto.Nil && nd.holding:
		nd.holding = false
		nd.send(out, proto.Message{Type: Token, To: origin, Tag: m.Tag})
	case nd.last == proto.Nil:
		nd.next, nd.nextTag = origin, m.Tag
	default:
		nd.send(out, proto.Message{Type: Request, To: nd.last, J: proto.RefTo(origin), Tag: m.Tag})
	}
	nd.last = m.From
}

func (nd *Node) token(out *proto.Output) {
	if !nd.asked || nd.inCS || nd.holding {
		panic("neilsenmizuno: token received by a node that does not wait for it")
	}
	nd.inCS = true
	out.Enter = true
}

func (nd *Node) exitCS(out *proto.Output) {
	if !nd.inCS {
		return
	}
	nd.inCS, nd.asked = false, false
	if nd.next == proto.Nil {
		nd.holding = true
		return
	}
	nd.send(out, proto.Message{Type: Token, To: nd.next, Tag: nd.nextTag})
	nd.next, nd.nextTag = proto.Nil, 0
}

// View implements proto.Node.
func (nd *Node) View() proto.View {
	if !nd.up {
		return proto.View{}
	}
	return proto.View{Up: true, TokenHere: nd.holding || nd.inCS, InCS: nd.inCS, Asked: nd.asked, Tag: nd.tag}
}

// Waiting implements proto.Node: the node's own request while it waits for
// the token, and the request it will pass the token to (next).
func (nd *Node) Waiting(f func(j proto.NodeID)) {
	if !nd.up {
		return
	}
	if nd.asked && !nd.inCS {
		f(nd.id)
	}
	if nd.next != proto.Nil {
		f(nd.next)
	}
}

// Last returns the node's last pointer (Nil for a sink).
func (nd *Node) Last() proto.NodeID { return nd.last }

// Next returns the node's next pointer (Nil for none).
func (nd *Node) Next() proto.NodeID { return nd.next }

// Algorithm is the Neilsen–Mizuno algorithm on the binomial spanning tree of
// the hypercube.
type Algorithm struct{}

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "neilsen-mizuno" }

// NewNodes implements proto.Algorithm; the nodes are allocated together.
func (Algorithm) NewNodes(n int) []proto.Node {
	nodes := make([]Node, n)
	out := make([]proto.Node, n)
	for i := range nodes {
		nodes[i].id = proto.NodeID(i)
		nodes[i].init()
		out[i] = &nodes[i]
	}
	return out
}

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.TokenBased }

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// Events implements proto.Algorithm: none.
func (Algorithm) Events() []string { return nil }

// Diameter returns the diameter of the binomial spanning tree of n = 2^p
// nodes: 2p − 1 (the path from 2^p − 1, at depth p, to 2^(p−1) − 1, at
// depth p − 1 in the other half); 0 for n = 1.
func Diameter(n int) int {
	p := bits.Len(uint(n)) - 1
	if p == 0 {
		return 0
	}
	return 2*p - 1
}

// StatedCost implements proto.CostAlgorithm: the survey's D + 1, D the
// diameter of the tree; a request from the holder of the idle token costs
// nothing.
func (Algorithm) StatedCost(n int) proto.Cost {
	return proto.Cost{Low: 0, High: float64(Diameter(n) + 1), Text: "0…D+1", Source: "survey T1", Kind: proto.Range}
}
