package lamport

import (
	"github.com/ocbench/ocbench/algo/tsorder"
	"github.com/ocbench/ocbench/proto"
)

// The message types.
const (
	Request proto.MsgType = iota // request(ts): Stamp = the request's timestamp
	Reply                        // reply: Stamp = the replier's clock
	Release                      // release: Stamp = the releaser's clock
)

var messageTypes = []proto.MessageType{
	{Name: "request", Arg: "none", Stamp: "the request's Lamport timestamp"},
	{Name: "reply", Arg: "none", Stamp: "the replier's Lamport clock"},
	{Name: "release", Arg: "none", Stamp: "the releaser's Lamport clock"},
}

// Node is one node of Lamport's algorithm. Only Step changes it.
type Node struct {
	id proto.NodeID
	proto.Life
	clock uint64
	// queue[j] is the timestamp of node j's request in this node's queue,
	// 0 if none (timestamps start at 1).
	queue   []uint64
	queued  int // requests in queue
	asked   bool
	inCS    bool
	tag     uint32 // serial of the own pending request
	ts      uint64 // timestamp of the own pending request
	replies int    // replies received for it
}

func (n *Node) init(id proto.NodeID, size int) {
	q := n.queue
	if len(q) != size {
		q = make([]uint64, size)
	}
	clear(q)
	*n = Node{id: id, queue: q}
}

func (n *Node) broadcast(out *proto.Output, m proto.Message) {
	m.Cause, m.From, m.J, m.Src = proto.Normal, n.id, proto.Ref{}, proto.Ref{}
	for j := range n.queue {
		if proto.NodeID(j) != n.id {
			m.To = proto.NodeID(j)
			out.Msgs = append(out.Msgs, m)
		}
	}
}

func (n *Node) enqueue(j proto.NodeID, ts uint64) {
	if n.queue[j] == 0 {
		n.queued++
	}
	n.queue[j] = ts
}

func (n *Node) dequeue(j proto.NodeID) {
	if n.queue[j] != 0 {
		n.queued--
	}
	n.queue[j] = 0
}

// Step implements proto.Node.
func (n *Node) Step(in proto.Input, out *proto.Output) {
	switch in.Kind {
	case proto.EnterCS:
		if n.asked {
			return // one request at a time; the runtimes never ask twice
		}
		n.clock++
		n.asked, n.tag, n.ts, n.replies = true, in.Tag, n.clock, 0
		n.enqueue(n.id, n.ts)
		n.broadcast(out, proto.Message{Type: Request, Stamp: n.ts, Tag: n.tag})
		n.tryEnter(out)
	case proto.ExitCS:
		if !n.inCS {
			return
		}
		n.inCS, n.asked = false, false
		n.dequeue(n.id)
		n.clock++
		n.broadcast(out, proto.Message{Type: Release, Stamp: n.clock, Tag: n.tag})
	case proto.Receive:
		m := &in.Msg
		n.clock = max(n.clock, m.Stamp)
		switch m.Type {
		case Request:
			n.enqueue(m.From, m.Stamp)
			n.clock++
			out.Msgs = append(out.Msgs, proto.Message{Type: Reply, Cause: proto.Normal, From: n.id, To: m.From,
				Stamp: n.clock, Tag: m.Tag})
		case Reply:
			if n.asked && !n.inCS && m.Stamp > n.ts {
				n.replies++
				n.tryEnter(out)
			}
		case Release:
			n.dequeue(m.From)
			n.tryEnter(out)
		}
	}
}

// Forget implements proto.Forgetter: once no node will ask again, the
// clock is read only to stamp replies and releases (a new request's
// timestamp is the one use that matters, and none is to come), so it is
// set to 0.
func (n *Node) Forget() { n.clock = 0 }

// ForgetMessage implements proto.MessageForgetter. Once no node will ask
// again: a release's stamp only raises its receiver's clock (forgotten);
// a reply's is compared with its receiver's request timestamp, and is
// always the greater (the replier's clock passed the request's stamp when
// it received the request, and a node asks again only after every reply
// to its last request arrived), so it becomes the greatest stamp, which
// keeps the comparison's answer. A request's stamp is its timestamp: kept.
func (Algorithm) ForgetMessage(m *proto.Message) {
	switch m.Type {
	case Reply:
		m.Stamp = ^uint64(0)
	case Release:
		m.Stamp = 0
	}
}

// Recover implements proto.Recoverer.
func (n *Node) Recover(*proto.Output) {
	n.init(n.id, len(n.queue))
}

// tryEnter enters the critical section if the node has every reply and its
// request heads its queue.
func (n *Node) tryEnter(out *proto.Output) {
	if !n.asked || n.inCS || n.replies < len(n.queue)-1 || !n.first() {
		return
	}
	n.inCS = true
	out.Enter = true
}

// first reports whether the node's own request heads its queue.
func (n *Node) first() bool {
	for j, ts := range n.queue {
		if ts != 0 && tsorder.Before(ts, proto.NodeID(j), n.ts, n.id) {
			return false
		}
	}
	return true
}

// View implements proto.Node.
func (n *Node) View() proto.View {
	v := proto.View{Bits: proto.Bits{Up: n.Up(), InCS: n.inCS, Asked: n.asked}, Tag: n.tag}
	if n.asked {
		v.Gen = n.ts
	}
	return v
}

// Waiting implements proto.Node: every request in the node's queue (its
// own included).
func (n *Node) Waiting(f func(j proto.NodeID)) {
	for j, ts := range n.queue {
		if ts != 0 {
			f(proto.NodeID(j))
		}
	}
}

// Algorithm is Lamport's algorithm as a proto.Algorithm.
type Algorithm struct{}

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "lamport" }

// MemoryPerNode implements proto.MemoryEstimator: every node keeps the latest timestamp of every other node, about 8 bytes
// per node of the system at each node (measured at N = 256..4096).
func (Algorithm) MemoryPerNode(n int) int64 { return 8*int64(n) + 64 }

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

// NeedsFIFO implements proto.FIFOAlgorithm: a release must not overtake
// the request it releases, and a reply must not overtake a request its
// sender made before it.
func (Algorithm) NeedsFIFO() bool { return true }

// StatedCost implements proto.CostAlgorithm: 3(N−1) (survey, Table 2).
func (Algorithm) StatedCost(n int) proto.Cost {
	c := float64(3 * (n - 1))
	return proto.Cost{Low: c, High: c, Text: "3(N−1)", Source: "survey T2", Kind: proto.Exact}
}
