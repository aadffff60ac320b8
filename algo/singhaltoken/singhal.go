package singhaltoken

import "github.com/ocbench/ocbench/proto"

// State is what a node knows of a node's state: the paper's N, R, E, H.
type State uint8

// The states of a node.
const (
	N State = iota // none: not requesting, not holding the token
	R              // requesting the critical section
	E              // executing the critical section (holds the token)
	H              // holding the idle token
)

func (s State) String() string { return [...]string{"N", "R", "E", "H"}[s&3] }

// The message types.
const (
	Request proto.MsgType = iota // REQUEST(i, sn)
	Token                        // the token, with TSV and TSN
	Relay                        // a request relayed towards the token
)

var messageTypes = []proto.MessageType{
	{Name: "request", Stamp: "sn, the requester's sequence number SN_i[i]"},
	{Name: "token", Token: true, Arg: "none", Payload: "n words, word j = serial_j<<32 | TSN[j]<<2 | TSV[j]"},
	{Name: "relay", Stamp: "sn, the relayed request's sequence number"},
}

// textbook disables the relay (decision D1), for the test that shows why
// it is there.
var textbook = false

// word packs a request record: state, sequence number, serial.
func word(st State, sn, tag uint32) int64 {
	return int64(tag)<<32 | int64(sn&(1<<30-1))<<2 | int64(st)
}

func unpack(w int64) (st State, sn, tag uint32) {
	return State(w & 3), uint32(w>>2) & (1<<30 - 1), uint32(w >> 32)
}

// Node is one node of Singhal's algorithm.
type Node struct {
	id proto.NodeID
	n  int
	proto.Life
	sv   []State  // SV_i
	sn   []uint32 // SN_i
	tags []uint32 // tags[j]: the serial of j's request number sn[j] (0 if unknown)
	tok  []int64  // the token's vectors while this node holds it (nil otherwise), packed
	tag  uint32   // the serial of this node's current (or last) request
	// tokenTo is the node this node last passed the token to (node 0, the
	// first holder, before it ever held it; Nil while it holds it).
	tokenTo proto.NodeID
	// relayed[j] is the sequence number of j's latest request this node
	// relayed towards the token.
	relayed []uint32
}

// newNode returns node id of an n-node system in its initial state.
func newNode(id proto.NodeID, n int) *Node {
	nd := &Node{id: id, n: n}
	nd.init()
	return nd
}

func (nd *Node) init() {
	nd.sv = make([]State, nd.n)
	nd.sn = make([]uint32, nd.n)
	nd.tags = make([]uint32, nd.n)
	nd.tok = nil
	nd.tag = 0
	nd.tokenTo = 0
	nd.relayed = make([]uint32, nd.n)
	for j := range nd.sv[:nd.id] {
		nd.sv[j] = R
	}
	if nd.id == 0 {
		nd.sv[0] = H
		nd.tok = make([]int64, nd.n) // TSV all N, TSN all 0
		nd.tokenTo = proto.Nil
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
		case Request, Relay:
			nd.request(in.Msg, out)
		case Token:
			nd.token(in.Msg, out)
		}
	}
}

// Recover implements proto.Recoverer.
func (nd *Node) Recover(*proto.Output) {
	nd.init()
}

func (nd *Node) send(out *proto.Output, m proto.Message) {
	m.From, m.Cause = nd.id, proto.Normal
	out.Msgs = append(out.Msgs, m)
}

// sendRequest sends this node's request to node to: a relay (a request
// that nodes in state N pass on towards the token) if to is the node this
// node last passed the token to.
func (nd *Node) sendRequest(out *proto.Output, to proto.NodeID) {
	t := Request
	if to == nd.tokenTo && !textbook {
		t = Relay
		nd.relayed[nd.id] = nd.sn[nd.id]
	}
	nd.send(out, proto.Message{Type: t, To: to, J: proto.RefTo(nd.id), Stamp: uint64(nd.sn[nd.id]), Tag: nd.tag})
}

// enterCS: the holder of the idle token enters at once; any other node
// increments SN_i[i] and requests from every node it believes requesting.
func (nd *Node) enterCS(tag uint32, out *proto.Output) {
	me := nd.id
	if nd.sv[me] != N && nd.sv[me] != H {
		return // a request is outstanding already
	}
	nd.tag = tag
	if nd.sv[me] == H {
		nd.sv[me] = E
		out.Enter = true
		return
	}
	nd.sv[me] = R
	nd.sn[me]++
	nd.tags[me] = tag
	for j, s := range nd.sv {
		if s == R && proto.NodeID(j) != me {
			nd.sendRequest(out, proto.NodeID(j))
		}
	}
	if nd.sv[nd.tokenTo] != R && !textbook { // the relay towards the token (decision D1)
		nd.sendRequest(out, nd.tokenTo)
	}
}

// request: the receipt of REQUEST(j, sn), from j or relayed.
func (nd *Node) request(m proto.Message, out *proto.Output) {
	j, sn := m.J.Node(), uint32(m.Stamp)
	if sn < nd.sn[j] || (sn == nd.sn[j] && nd.sv[j] != R) {
		return // outdated: served or superseded
	}
	late := m.Type == Relay // a node in state N passes a relay on (D1)
	if sn == nd.sn[j] {
		// Known and pending here: relay it if not done yet.
		if nd.sv[nd.id] == N && late {
			nd.relay(out, j, sn, m.Tag)
		}
		return
	}
	nd.sn[j], nd.tags[j] = sn, m.Tag
	switch nd.sv[nd.id] {
	case N:
		nd.sv[j] = R
		if late {
			nd.relay(out, j, sn, m.Tag)
		}
	case E:
		nd.sv[j] = R
	case R:
		if nd.sv[j] != R {
			nd.sv[j] = R
			nd.sendRequest(out, j)
		}
	case H:
		nd.sv[j] = R
		nd.tok[j] = word(R, sn, m.Tag)
		nd.sv[nd.id] = N
		nd.sendToken(out, j)
	}
}

// relay sends j's request towards the token: to the node this node last
// passed the token to, once per request.
func (nd *Node) relay(out *proto.Output, j proto.NodeID, sn, tag uint32) {
	to := nd.tokenTo
	if nd.relayed[j] >= sn || to == proto.Nil || to == j || to == nd.id {
		return
	}
	nd.relayed[j] = sn
	nd.send(out, proto.Message{Type: Relay, To: to, J: proto.RefTo(j), Stamp: uint64(sn), Tag: tag})
}

func (nd *Node) sendToken(out *proto.Output, to proto.NodeID) {
	nd.tokenTo = to
	nd.send(out, proto.Message{Type: Token, To: to, Tag: nd.tags[to], Payload: nd.tok})
	nd.tok = nil // sent: never touched again
}

// token: the receipt of the token; the node enters the critical section.
func (nd *Node) token(m proto.Message, out *proto.Output) {
	if nd.sv[nd.id] != R || nd.tok != nil {
		panic("singhaltoken: token received by a node that is not requesting")
	}
	nd.tok = append(make([]int64, 0, len(m.Payload)), m.Payload...)
	nd.tokenTo = proto.Nil
	nd.sv[nd.id] = E
	out.Enter = true
}

// exitCS: merge the node's vectors with the token's, then grant the token
// to a requesting node or keep it idle.
func (nd *Node) exitCS(out *proto.Output) {
	me := nd.id
	if nd.sv[me] != E {
		return
	}
	nd.sv[me] = N
	_, tsn, ttag := unpack(nd.tok[me])
	nd.tok[me] = word(N, tsn, ttag)
	for j := range nd.sv {
		tsv, tsn, ttag := unpack(nd.tok[j])
		if nd.sn[j] > tsn {
			nd.tok[j] = word(nd.sv[j], nd.sn[j], nd.tags[j])
		} else {
			nd.sv[j], nd.sn[j], nd.tags[j] = tsv, tsn, ttag
		}
	}
	to := nd.choose()
	if to == proto.Nil {
		nd.sv[me] = H
		return
	}
	nd.sendToken(out, to)
}

// choose returns the requesting node (by SV) with the lowest sequence
// number, the nearest after this node on the ring of ids on a tie; Nil if
// no node is requesting.
func (nd *Node) choose() proto.NodeID {
	best := proto.Nil
	for d := 1; d < nd.n; d++ {
		j := (int(nd.id) + d) % nd.n
		if nd.sv[j] == R && (best == proto.Nil || nd.sn[j] < nd.sn[best]) {
			best = proto.NodeID(j)
		}
	}
	return best
}

// View implements proto.Node.
func (nd *Node) View() proto.View {
	if !nd.Up() {
		return proto.View{}
	}
	s := nd.sv[nd.id]
	return proto.View{Bits: proto.Bits{Up: true, TokenHere: nd.tok != nil, InCS: s == E, Asked: s == R || s == E}, Tag: nd.tag}
}

// Waiting implements proto.Node: the node's own pending request, and, at
// the token holder, every request it knows of (the token goes to one of
// them next).
func (nd *Node) Waiting(f func(j proto.NodeID)) {
	if !nd.Up() {
		return
	}
	if nd.sv[nd.id] == R {
		f(nd.id)
	}
	if nd.tok != nil {
		for j, s := range nd.sv {
			if s == R && proto.NodeID(j) != nd.id {
				f(proto.NodeID(j))
			}
		}
	}
}

// SV returns the node's state vector (for tests; do not modify).
func (nd *Node) SV() []State { return nd.sv }

// SN returns the node's sequence-number vector (for tests; do not modify).
func (nd *Node) SN() []uint32 { return nd.sn }

// Algorithm is Singhal's heuristically-aided token algorithm.
type Algorithm struct{}

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "singhal-token" }

// MemoryPerNode implements proto.MemoryEstimator: the state and request vectors at every node, and the token's, about 14 bytes
// per node of the system at each node (measured at N = 256..4096).
func (Algorithm) MemoryPerNode(n int) int64 { return 14*int64(n) + 128 }

// NewNodes implements proto.Algorithm.
func (Algorithm) NewNodes(n int) []proto.Node {
	out := make([]proto.Node, n)
	for i := range out {
		out[i] = newNode(proto.NodeID(i), n)
	}
	return out
}

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.TokenBased }

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// Events implements proto.Algorithm: none.
func (Algorithm) Events() []string { return nil }

// StatedCost implements proto.CostAlgorithm: the survey's Table 1 says N
// messages per critical section; its text (§4) says (N+1)/2 under light
// traffic and N under heavy traffic, and none for a node holding the idle
// token. The range is the text's: (N+1)/2 … N.
func (Algorithm) StatedCost(n int) proto.Cost {
	return proto.Cost{Low: float64(n+1) / 2, High: float64(n), Text: "(N+1)/2 light … N heavy", Source: "survey §4, T1", Kind: proto.Range}
}
