package raynal

import (
	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/proto"
)

// The message types.
const (
	Request proto.MsgType = iota // REQUEST(i); Reply = 1: a pass request, Stamp = the m seen
	Reply                        // REPLY(j, X_j): Stamp = m_j
)

// Pass is the Reply code of a pass request.
const Pass uint8 = 1

// DefaultWait is the registered algorithm's wait between two rounds of
// requests, in δ.
const DefaultWait = 1.0

// timerRetry is the kind of the timer that ends the wait.
const timerRetry uint8 = 0

var messageTypes = []proto.MessageType{
	{Name: "request", Arg: "reply", Stamp: "on a pass request (Reply = 1), the receiver's m seen by the sender"},
	{Name: "reply", Arg: "none", Stamp: "m of the sender: how many times it passed the permission"},
}

// Node is one node of Raynal's algorithm. Only Step changes it.
type Node struct {
	id proto.NodeID
	n  int
	proto.Life
	m       uint64 // times this node passed the permission: X_i = A_i^(m+[i≠0]) / A_{i+1}^m
	asked   bool
	inCS    bool
	waiting bool     // between a failed round and the next one
	tag     uint32   // serial of the own pending request
	replies int      // replies received in the current round
	seq     uint32   // the current wait's timer
	wait    float64  // δ between a failed round and the next
	seen    []uint64 // m_j from j's last reply
}

func (n *Node) init(id proto.NodeID, size int, wait float64) {
	seen := n.seen
	if seen == nil {
		seen = make([]uint64, size)
	}
	clear(seen)
	*n = Node{id: id, n: size, seen: seen, seq: n.seq, wait: wait}
}

// Exponent returns c_p, the exponent of A_p in the product of the X_j of
// the nodes whose m_j m gives: m_p + [p≠0] − m_{p−1}.
func Exponent(m func(j int) uint64, n, p int) int64 {
	c := int64(m(p)) - int64(m((p+n-1)%n))
	if p != 0 {
		c++
	}
	return c
}

// Privileged returns the node h whose test T = Q/A_h the values m give
// (c_h = 0, c_p = 1 elsewhere), or Nil if they give none.
func Privileged(m func(j int) uint64, n int) proto.NodeID {
	h := proto.Nil
	for p := range n {
		switch Exponent(m, n, p) {
		case 1:
		case 0:
			if h != proto.Nil {
				return proto.Nil
			}
			h = proto.NodeID(p)
		default:
			return proto.Nil
		}
	}
	return h
}

// view returns m_j as this node knows it: its own, or the last reply's.
func (n *Node) view(j int) uint64 {
	if j == int(n.id) {
		return n.m
	}
	return n.seen[j]
}

// Step implements proto.Node.
func (n *Node) Step(in proto.Input, out *proto.Output) {
	switch in.Kind {
	case proto.EnterCS:
		if n.asked {
			return // one request at a time; the runtimes never ask twice
		}
		n.asked, n.tag = true, in.Tag
		n.round(out)
	case proto.ExitCS:
		if !n.inCS {
			return
		}
		n.inCS, n.asked = false, false
		n.m++ // X_i := X_i · A_i / A_{i+1}
	case proto.Fire:
		if n.asked && n.waiting && in.Timer.Kind == timerRetry && in.Timer.Seq == n.seq {
			n.waiting = false
			n.round(out)
		}
	case proto.Receive:
		m := &in.Msg
		switch m.Type {
		case Request:
			if m.Reply == Pass && !n.asked && !n.inCS && m.Stamp == n.m {
				n.m++ // behave as if leaving the critical section
			}
			out.Msgs = append(out.Msgs, proto.Message{Type: Reply, Cause: proto.Normal, From: n.id, To: m.From,
				Stamp: n.m, Tag: m.Tag})
		case Reply:
			if !n.asked || n.inCS || n.waiting || m.Tag != n.tag || n.replies == n.n-1 {
				return // not awaited: cannot happen (package doc)
			}
			n.seen[m.From] = m.Stamp
			if n.replies++; n.replies == n.n-1 {
				n.endRound(out)
			}
		}
	}
}

// TimerSeq returns the serial of the node's live timer: a timer of
// another serial does nothing when it fires (Step), so the explorer may
// rename the live one and drop the others.
func (n *Node) TimerSeq() uint32 { return n.seq }

// SetTimerSeq renames the node's live timer (TimerSeq).
func (n *Node) SetTimerSeq(s uint32) { n.seq = s }

// Recover implements proto.Recoverer.
func (n *Node) Recover(*proto.Output) {
	n.init(n.id, n.n, n.wait)
}

// round sends REQUEST(i) to every other node, a pass request to those
// that what the node knows (its last replies, of this request or an
// earlier one) shows privileged.
func (n *Node) round(out *proto.Output) {
	n.replies = 0
	if n.n == 1 {
		n.endRound(out)
		return
	}
	for j := range n.n {
		if j == int(n.id) {
			continue
		}
		msg := proto.Message{Type: Request, Cause: proto.Normal, From: n.id, To: proto.NodeID(j), Tag: n.tag}
		if Exponent(n.view, n.n, j) == 0 {
			msg.Reply, msg.Stamp = Pass, n.seen[j]
		}
		out.Msgs = append(out.Msgs, msg)
	}
}

// endRound takes the last reply of a round: the node enters if T = Q/A_i,
// else it waits and asks again.
func (n *Node) endRound(out *proto.Output) {
	if Privileged(n.view, n.n) == n.id {
		n.inCS = true
		out.Enter = true
		return
	}
	if n.wait == 0 {
		n.round(out)
		return
	}
	n.waiting = true
	n.seq++
	out.Timers = append(out.Timers, proto.Timer{Kind: timerRetry, Seq: n.seq, Arg: proto.Nil, After: n.wait})
}

// View implements proto.Node. Gen is m, the times the node passed the
// permission.
func (n *Node) View() proto.View {
	return proto.View{Bits: proto.Bits{Up: n.Up(), InCS: n.inCS, Asked: n.asked}, Tag: n.tag, Gen: n.m}
}

// Waiting implements proto.Node: the node itself while it asks.
func (n *Node) Waiting(f func(j proto.NodeID)) {
	if n.asked {
		f(n.id)
	}
}

// Algorithm is Raynal's algorithm as a proto.Algorithm.
type Algorithm struct {
	// Wait is the wait between a failed round of requests and the next,
	// in δ; 0 asks again at once.
	Wait float64
}

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "raynal" }

// NewNodes implements proto.Algorithm; the nodes are allocated together.
func (a Algorithm) NewNodes(size int) []proto.Node {
	nodes := make([]Node, size)
	seen := make([]uint64, size*size)
	out := make([]proto.Node, size)
	for i := range nodes {
		nodes[i].seen = seen[i*size : (i+1)*size : (i+1)*size]
		nodes[i].init(proto.NodeID(i), size, a.Wait)
		out[i] = &nodes[i]
	}
	return out
}

// MemoryPerNode implements proto.MemoryEstimator: every node keeps the m
// of every other node, 8 bytes per node of the system, and about 100
// bytes of its own.
func (Algorithm) MemoryPerNode(n int) int64 { return 8*int64(n) + 120 }

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.PermissionBased }

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// Events implements proto.Algorithm: none.
func (Algorithm) Events() []string { return nil }

// StatedCost implements proto.CostAlgorithm: at most 2(N−1)², an upper
// bound (survey §4, "an upper bound of 2(N−1)²"; Table 2 prints
// 2*(N-1)2), so of kind algo.AtMost: the survey states no least cost, and
// none is recorded.
func (Algorithm) StatedCost(n int) proto.Cost {
	return proto.Cost{High: float64(2 * (n - 1) * (n - 1)), Text: "at most 2(N−1)²", Source: "survey §4, T2", Kind: algo.AtMost}
}

// AnySize implements proto.AnySizeAlgorithm: it needs no hypercube.
func (Algorithm) AnySize() bool { return true }
