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
	id proto.NodeID
	proto.Life
	holding bool         // holds the idle token
	inCS    bool         // in its critical section (holds the token)
	asked   bool         // has a request outstanding (waiting or in its CS)
	last    proto.NodeID // the paper's LAST; Nil: a sink
	next    proto.NodeID // the paper's NEXT; Nil: none
	nextTag uint32       // the serial of next's request
	tag     uint32       // the serial of this node's current (or last) request
	father  proto.NodeID // the node's father in the static tree (Nil at the root, node 0)
}

func (nd *Node) init() {
	id := nd.id
	*nd = Node{id: id, last: nd.father, next: proto.Nil, father: nd.father}
	if id == 0 {
		nd.last, nd.holding = proto.Nil, true
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
			nd.token(out)
		}
	}
}

// Recover implements proto.Recoverer.
func (nd *Node) Recover(*proto.Output) {
	nd.init()
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
	if !nd.Up() {
		return proto.View{}
	}
	return proto.View{Bits: proto.Bits{Up: true, TokenHere: nd.holding || nd.inCS, InCS: nd.inCS, Asked: nd.asked}, Tag: nd.tag}
}

// Waiting implements proto.Node: the node's own request while it waits for
// the token, and the request it will pass the token to (next).
func (nd *Node) Waiting(f func(j proto.NodeID)) {
	if !nd.Up() {
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

// Algorithm is the Neilsen–Mizuno algorithm on a static tree: Tree, or the
// binomial spanning tree of the hypercube if Tree is nil.
type Algorithm struct{ Tree Tree }

// The algorithm on the trees of the survey's Table 1 besides the
// binomial one.
var (
	OnStar = Algorithm{Tree: Star{}}
	OnLine = Algorithm{Tree: Line{}}
)

func (a Algorithm) tree() Tree {
	if a.Tree == nil {
		return Binomial{}
	}
	return a.Tree
}

// Name implements proto.Algorithm.
func (a Algorithm) Name() string { return a.tree().Name() }

// NewNodes implements proto.Algorithm; the nodes are allocated together.
func (a Algorithm) NewNodes(n int) []proto.Node {
	t := a.tree()
	nodes := make([]Node, n)
	out := make([]proto.Node, n)
	for i := range nodes {
		nodes[i].id = proto.NodeID(i)
		nodes[i].father = proto.Nil
		if i > 0 {
			nodes[i].father = proto.NodeID(t.Father(i, n))
		}
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
// diameter of the tree (3 on the star, N on the line, as the survey
// writes them); a request from the holder of the idle token costs
// nothing.
func (a Algorithm) StatedCost(n int) proto.Cost {
	t := a.tree()
	return proto.Cost{Low: 0, High: float64(t.Diameter(n) + 1), Text: t.CostText(), Source: "survey T1", Kind: proto.Range}
}

// Tree is the static tree the nodes are arranged in; node 0 is its root
// and holds the token at the start.
type Tree interface {
	// Name is the algorithm's flag value on this tree.
	Name() string
	// Father returns node i's father, 0 ≤ Father(i, n) < n, for 0 < i < n.
	Father(i, n int) int
	// Diameter returns the tree's diameter D for n nodes.
	Diameter(n int) int
	// CostText is the survey's cost on this tree, D + 1, as it writes it.
	CostText() string
}

// Binomial is the binomial spanning tree of the hypercube: father(i) = i
// with its lowest set bit cleared; every edge is a hypercube link.
type Binomial struct{}

// Name implements Tree.
func (Binomial) Name() string { return "neilsen-mizuno" }

// Father implements Tree.
func (Binomial) Father(i, _ int) int { return hypercube.Father(i) }

// Diameter implements Tree: 2·log2 N − 1.
func (Binomial) Diameter(n int) int { return Diameter(n) }

// CostText implements Tree.
func (Binomial) CostText() string { return "D + 1" }

// Star is the star with node 0 at its centre: D = 2 (N > 2).
type Star struct{}

// Name implements Tree.
func (Star) Name() string { return "neilsen-mizuno-star" }

// Father implements Tree: node 0.
func (Star) Father(int, int) int { return 0 }

// Diameter implements Tree.
func (Star) Diameter(n int) int { return min(2, n-1) }

// CostText implements Tree: the survey's "3".
func (Star) CostText() string { return "3 (star)" }

// Line is the line 0 – 1 – … – N−1: D = N − 1.
type Line struct{}

// Name implements Tree.
func (Line) Name() string { return "neilsen-mizuno-line" }

// Father implements Tree: i − 1.
func (Line) Father(i, _ int) int { return i - 1 }

// Diameter implements Tree.
func (Line) Diameter(n int) int { return n - 1 }

// CostText implements Tree: the survey's "N".
func (Line) CostText() string { return "N (line)" }

// AnySize implements proto.AnySizeAlgorithm: the star and the line take
// any N ≥ 2; the binomial tree needs N a power of two.
func (a Algorithm) AnySize() bool {
	_, binomial := a.tree().(Binomial)
	return !binomial
}
