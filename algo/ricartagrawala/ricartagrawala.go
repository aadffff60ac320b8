package ricartagrawala

import (
	"github.com/ocbench/ocbench/algo/tsorder"
	"github.com/ocbench/ocbench/proto"
)

// The message types.
const (
	Request proto.MsgType = iota // request: Stamp = the request's timestamp
	Reply                        // reply: Stamp = the timestamp of the request answered
)

var messageTypes = []proto.MessageType{
	{Name: "request", Arg: "none", Stamp: "the request's timestamp"},
	{Name: "reply", Arg: "none", Stamp: "the timestamp of the request answered"},
}

// pending is a request whose reply a node defers.
type pending struct {
	j   proto.NodeID
	tag uint32
	ts  uint64
}

// Node is one node of the Ricart–Agrawala algorithm. Only Step changes it.
type Node struct {
	id proto.NodeID
	n  int
	proto.Life
	highest  uint64 // the highest timestamp seen
	asked    bool
	inCS     bool
	tag      uint32 // serial of the own pending request
	ts       uint64 // timestamp of the own pending request
	replies  int    // replies received for it
	deferred []pending
}

func (n *Node) init(id proto.NodeID, size int) {
	*n = Node{id: id, n: size, deferred: n.deferred[:0]}
}

func (n *Node) reply(out *proto.Output, to proto.NodeID, ts uint64, tag uint32) {
	out.Msgs = append(out.Msgs, proto.Message{Type: Reply, Cause: proto.Normal, From: n.id, To: to,
		Stamp: ts, Tag: tag})
}

// Forget implements proto.Forgetter: the highest timestamp seen is read
// only to stamp a new request, and once no node will ask again it is set
// to 0. (A reply's stamp is the timestamp of the request it answers:
// kept.)
func (n *Node) Forget() { n.highest = 0 }

// Step implements proto.Node.
func (n *Node) Step(in proto.Input, out *proto.Output) {
	switch in.Kind {
	case proto.EnterCS:
		if n.asked {
			return // one request at a time; the runtimes never ask twice
		}
		n.highest++
		n.asked, n.tag, n.ts, n.replies = true, in.Tag, n.highest, 0
		for j := range n.n {
			if proto.NodeID(j) != n.id {
				out.Msgs = append(out.Msgs, proto.Message{Type: Request, Cause: proto.Normal, From: n.id, To: proto.NodeID(j),
					Stamp: n.ts, Tag: n.tag})
			}
		}
		n.tryEnter(out)
	case proto.ExitCS:
		if !n.inCS {
			return
		}
		n.inCS, n.asked = false, false
		for _, d := range n.deferred {
			n.reply(out, d.j, d.ts, d.tag)
		}
		clear(n.deferred)
		n.deferred = n.deferred[:0]
	case proto.Receive:
		m := &in.Msg
		switch m.Type {
		case Request:
			n.highest = max(n.highest, m.Stamp)
			if n.inCS || n.asked && tsorder.Before(n.ts, n.id, m.Stamp, m.From) {
				n.deferred = append(n.deferred, pending{j: m.From, tag: m.Tag, ts: m.Stamp})
			} else {
				n.reply(out, m.From, m.Stamp, m.Tag)
			}
		case Reply:
			if n.asked && !n.inCS && m.Stamp == n.ts {
				n.replies++
				n.tryEnter(out)
			}
		}
	}
}

// Recover implements proto.Recoverer.
func (n *Node) Recover(*proto.Output) {
	n.init(n.id, n.n)
}

// tryEnter enters the critical section once every other node replied.
func (n *Node) tryEnter(out *proto.Output) {
	if n.asked && !n.inCS && n.replies == n.n-1 {
		n.inCS = true
		out.Enter = true
	}
}

// View implements proto.Node.
func (n *Node) View() proto.View {
	v := proto.View{Bits: proto.Bits{Up: n.Up(), InCS: n.inCS, Asked: n.asked}, Tag: n.tag}
	if n.asked {
		v.Gen = n.ts
	}
	return v
}

// Waiting implements proto.Node: the node itself while it asks, and every
// requester whose reply it defers.
func (n *Node) Waiting(f func(j proto.NodeID)) {
	if n.asked {
		f(n.id)
	}
	for _, d := range n.deferred {
		f(d.j)
	}
}

// Algorithm is the Ricart–Agrawala algorithm as a proto.Algorithm.
type Algorithm struct{}

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "ricart-agrawala" }

// NewNodes implements proto.Algorithm; the nodes are allocated together.
func (Algorithm) NewNodes(size int) []proto.Node {
	nodes := make([]Node, size)
	out := make([]proto.Node, size)
	for i := range nodes {
		nodes[i].init(proto.NodeID(i), size)
		out[i] = &nodes[i]
	}
	return out
}

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.PermissionBased }

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// Events implements proto.Algorithm: none.
func (Algorithm) Events() []string { return nil }

// StatedCost implements proto.CostAlgorithm: 2(N−1) (survey, Table 2).
func (Algorithm) StatedCost(n int) proto.Cost {
	c := float64(2 * (n - 1))
	return proto.Cost{Low: c, High: c, Text: "2(N−1)", Source: "survey T2", Kind: proto.Exact}
}
