package raynal

import (
	"fmt"

	"github.com/ocbench/ocbench/algo"

	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// InformMsg is the INFORM variant's one message type: INFORM(i, X_i),
// Stamp = m_i.
const InformMsg proto.MsgType = 0

var informTypes = []proto.MessageType{
	{Name: "inform", Arg: "none", Stamp: "m of the sender after it passed the permission"},
}

// Inform is the survey's own variant of Raynal's algorithm (Velazquez
// 1993, §5, "We propose a modification to the algorithm to avoid deadlock
// situations and reduce the number of messages exchanged"): no request and
// no reply. Every node knows every X_j; a node that leaves the critical
// section, or that becomes privileged while it does not ask, passes the
// permission (X_i := X_i · A_i / A_{i+1}) and sends INFORM(i, X_i) to the
// N−1 others; a node that receives an INFORM computes T and, if T = Q/A_i,
// enters if it asks and passes the permission on if it does not. The
// survey's bound is (N−1)² messages per entry, "when the next node wishing
// to enter the CS is the farthest node in the circular ring".
//
// Where the survey is silent, ocbench decides:
//   - The start: node 0 holds the permission (X_0 = 1) and no INFORM
//     reaches it, so it passes the permission at once unless it asks
//     (proto.Starter), as the survey's rule for a privileged node that does
//     not ask says; a node that asks while privileged enters at once.
//   - The test T = Q/A_i uses X_i, exact, and X_{i−1} as the last INFORM of
//     node i−1 gives it: its exponent c_i = m_i + [i≠0] − m_{i−1} is 0 only
//     if node i is privileged (a known m_{i−1} is never ahead of the true
//     one, and the true c_i is 0 or 1), so a stale knowledge of the other
//     X_j cannot make a node enter wrongly, nor keep it out.
//   - The permission circulates for ever while nobody asks, N−1 messages
//     a step (the survey's rule, which it does not bound). So the variant
//     is not registered: a run never falls quiet (the runtimes and the
//     explorer end a run on quiet), and its messages per entry are set by
//     the think time, not by the algorithm.
//   - INFORMs need not arrive in order: a node keeps the largest m_j.
type Inform struct{}

// InformNode is one node of the INFORM variant.
type InformNode struct {
	id proto.NodeID
	n  int
	proto.Life
	m     uint64   // times this node passed the permission
	seen  []uint64 // m_j from j's INFORMs
	asked bool
	inCS  bool
	tag   uint32
}

// Name implements proto.Algorithm.
func (Inform) Name() string { return "raynal-inform" }

// NewNodes implements proto.Algorithm.
func (Inform) NewNodes(size int) []proto.Node {
	nodes := make([]InformNode, size)
	seen := make([]uint64, size*size)
	out := make([]proto.Node, size)
	for i := range nodes {
		nodes[i] = InformNode{id: proto.NodeID(i), n: size, seen: seen[i*size : (i+1)*size : (i+1)*size]}
		out[i] = &nodes[i]
	}
	return out
}

// Family implements proto.Algorithm.
func (Inform) Family() proto.Family { return proto.PermissionBased }

// MessageTypes implements proto.Algorithm.
func (Inform) MessageTypes() []proto.MessageType { return informTypes }

// Events implements proto.Algorithm: none.
func (Inform) Events() []string { return nil }

// Invariants implements proto.Algorithm: InformPermission after every
// step, without crashes.
func (Inform) Invariants(crashes bool) []proto.Invariant {
	return proto.WithoutCrashes(crashes,
		proto.Invariant{Name: "permission", When: proto.EveryStep, Check: InformPermission})
}

// StatedCost implements proto.CostAlgorithm: at most (N−1)² (survey §5,
// the modified algorithm).
func (Inform) StatedCost(n int) proto.Cost {
	return proto.Cost{High: float64((n - 1) * (n - 1)), Text: "at most (N−1)²", Source: "survey §5 (its modification)", Kind: algo.AtMost}
}

// view returns m_j as this node knows it.
func (nd *InformNode) view(j int) uint64 {
	if j == int(nd.id) {
		return nd.m
	}
	return nd.seen[j]
}

// privileged reports whether X tells the node it holds the permission:
// c_i = 0 from its own m and what it knows of m_{i−1}.
func (nd *InformNode) privileged() bool { return Exponent(nd.view, nd.n, int(nd.id)) == 0 }

// Start implements proto.Starter: node 0, privileged at the start, passes
// the permission on unless it asks.
func (nd *InformNode) Start(out *proto.Output) {
	if nd.n > 1 && nd.privileged() && !nd.asked {
		nd.pass(out)
	}
}

// pass moves the permission one step on and tells the others.
func (nd *InformNode) pass(out *proto.Output) {
	nd.m++
	for j := range nd.n {
		if j != int(nd.id) {
			out.Msgs = append(out.Msgs, proto.Message{Type: InformMsg, Cause: proto.Normal, From: nd.id, To: proto.NodeID(j), Stamp: nd.m, Tag: nd.tag})
		}
	}
}

// Step implements proto.Node.
func (nd *InformNode) Step(in proto.Input, out *proto.Output) {
	switch in.Kind {
	case proto.EnterCS:
		if nd.asked {
			return
		}
		nd.asked, nd.tag = true, in.Tag
		if nd.privileged() {
			nd.inCS, out.Enter = true, true
		}
	case proto.ExitCS:
		if !nd.inCS {
			return
		}
		nd.inCS, nd.asked = false, false
		if nd.n > 1 {
			nd.pass(out)
		}
	case proto.Receive:
		m := &in.Msg
		nd.seen[m.From] = max(nd.seen[m.From], m.Stamp)
		if !nd.privileged() || nd.inCS {
			return
		}
		if nd.asked {
			nd.inCS, out.Enter = true, true
			return
		}
		nd.pass(out)
	}
}

// Recover implements proto.Recoverer: the node restarts from the initial
// state (the variant is failure-free; the runtimes refuse crashes).
func (nd *InformNode) Recover(*proto.Output) {
	clear(nd.seen)
	*nd = InformNode{id: nd.id, n: nd.n, seen: nd.seen}
}

// View implements proto.Node. Gen is m.
func (nd *InformNode) View() proto.View {
	return proto.View{Bits: proto.Bits{Up: nd.Up(), InCS: nd.inCS, Asked: nd.asked}, Tag: nd.tag, Gen: nd.m}
}

// Waiting implements proto.Node: the node itself while it asks.
func (nd *InformNode) Waiting(f func(j proto.NodeID)) {
	if nd.asked && !nd.inCS {
		f(nd.id)
	}
}

// InformPermission checks that the nodes' m give exactly one privileged
// node, that a node in the critical section is it, and that no node knows
// an m ahead of its owner's. O(n²).
func InformPermission(s proto.System) error {
	ns := nodecast.All[*InformNode](s)
	h := Privileged(func(j int) uint64 { return ns[j].m }, len(ns))
	if h == proto.Nil {
		return fmt.Errorf("permission: the product of the X is Q/A_h for no node h")
	}
	for _, nd := range ns {
		if nd.inCS && nd.id != h {
			return fmt.Errorf("permission: node %d is in the critical section, node %d holds the permission", nd.id, h)
		}
		for j, m := range nd.seen {
			if j != int(nd.id) && m > ns[j].m {
				return fmt.Errorf("permission: node %d knows m = %d of node %d, which has %d", nd.id, m, j, ns[j].m)
			}
		}
	}
	return nil
}
