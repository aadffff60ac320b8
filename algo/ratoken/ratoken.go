package ratoken

import (
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/internal/tokennode"
	"github.com/ocbench/ocbench/proto"
)

// The message types.
const (
	Request proto.MsgType = iota // request(t, j): j asks for the token
	Token                        // the token, with token[0..N−1]
)

var messageTypes = []proto.MessageType{
	{Name: "request", Payload: "none", Arg: "none", Stamp: "the request's timestamp"},
	{Name: "token", Token: true, Payload: "token[0..N−1]: the timestamp of each node's request granted most recently", Arg: "none"},
}

// Node is one node of Ricart–Agrawala's token algorithm.
type Node struct {
	id              proto.NodeID
	n               int
	tokennode.State        // the request state, and the up bit
	clock           uint64 // Lamport clock

	req    []int64  // request[j]: the highest timestamp received from j (own for j = id)
	reqTag []uint32 // the serial of j's request req[j]

	tok []int64 // the token's array, while held (allocated when first received)
}

func (nd *Node) init(id proto.NodeID, n int) {
	*nd = Node{id: id, n: n, req: make([]int64, n), reqTag: make([]uint32, n)}
	if id == 0 {
		nd.TokenHere = true
		nd.tok = make([]int64, n)
	}
}

// Step implements proto.Node: the request state's gate (tokennode), then
// Ricart and Agrawala's rules.
func (nd *Node) Step(in proto.Input, out *proto.Output) {
	switch nd.Gate(in, out) {
	case tokennode.Ask:
		nd.clock++
		nd.req[nd.id], nd.reqTag[nd.id] = int64(nd.clock), in.Tag
		for j := range proto.NodeID(nd.n) {
			if j != nd.id {
				out.Msgs = append(out.Msgs, proto.Message{Type: Request, From: nd.id, To: j,
					Stamp: nd.clock, Tag: in.Tag})
			}
		}
	case tokennode.Leave:
		nd.tok[nd.id] = nd.req[nd.id]
		nd.release(out)
	case tokennode.Deliver:
		switch in.Msg.Type {
		case Request:
			nd.request(in.Msg, out)
		case Token:
			nd.token(in.Msg, out)
		}
	}
}

// Recover implements proto.Recoverer.
func (nd *Node) Recover(*proto.Output) {
	nd.init(nd.id, nd.n)
}

// release sends the token to the first node after this one, in circular
// order, whose latest request is not granted; or keeps it.
func (nd *Node) release(out *proto.Output) {
	for k := 1; k < nd.n; k++ {
		j := proto.NodeID((int(nd.id) + k) % nd.n)
		if nd.req[j] > nd.tok[j] {
			nd.TokenHere = false
			out.Msgs = append(out.Msgs, proto.Message{Type: Token, From: nd.id, To: j,
				Tag: nd.reqTag[j], Payload: append([]int64(nil), nd.tok...)})
			return
		}
	}
}

func (nd *Node) request(m proto.Message, out *proto.Output) {
	j, t := m.From, m.Stamp
	nd.clock = max(nd.clock, t)
	if int64(t) > nd.req[j] {
		nd.req[j], nd.reqTag[j] = int64(t), m.Tag
	}
	if nd.TokenHere && !nd.Asked {
		nd.release(out)
	}
}

func (nd *Node) token(m proto.Message, out *proto.Output) {
	if nd.tok == nil {
		nd.tok = make([]int64, nd.n)
	}
	copy(nd.tok, m.Payload)
	nd.TokenHere = true
	if !nd.Asked {
		nd.release(out)
		return
	}
	nd.InCS, out.Enter = true, true
}

// Waiting implements proto.Node: the node itself while its request waits
// for the token; at the holder, the nodes whose request it knows is not
// granted, in the order it would serve them.
func (nd *Node) Waiting(f func(j proto.NodeID)) {
	if nd.Waits() {
		f(nd.id)
	}
	if !nd.TokenHere {
		return
	}
	for k := 1; k < nd.n; k++ {
		if j := proto.NodeID((int(nd.id) + k) % nd.n); nd.req[j] > nd.tok[j] {
			f(j)
		}
	}
}

// Algorithm is Ricart–Agrawala's token algorithm.
type Algorithm struct{}

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "ricart-agrawala-token" }

// MemoryPerNode implements proto.MemoryEstimator: the request numbers at every node, and the token's, about 12 bytes
// per node of the system at each node (measured at N = 256..4096).
func (Algorithm) MemoryPerNode(n int) int64 { return 12*int64(n) + 64 }

// NewNodes implements proto.Algorithm: node 0 holds the token.
func (Algorithm) NewNodes(n int) []proto.Node {
	return nodecast.New(n, func(nd *Node, id proto.NodeID) { nd.init(id, n) })
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
