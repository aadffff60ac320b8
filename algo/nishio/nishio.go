package nishio

import "github.com/ocbench/ocbench/proto"

// The message types.
const (
	Request      proto.MsgType = iota // request(j, RN[j]): j asks for the token
	Token                             // the token, with LN[0..N−1] and its age
	TokenMissing                      // TOKEN_MISSING(proposed_age): the token is overdue
	Ack                               // ACK(proposed_age, granted): "regenerate, here is my last granted request"
	Nack                              // NACK(age): "no" (I hold the token, or I know a higher age)
	numTypes
)

var messageTypes = []proto.MessageType{
	{Name: "request", Payload: "none", Arg: "none", Stamp: "the request number RN[j]"},
	{Name: "token", Token: true, Payload: "LN[0..N−1]: the number of each node's request granted most recently", Arg: "none", Stamp: "the token's age"},
	{Name: "token_missing", Payload: "none", Arg: "none", Stamp: "the proposed age"},
	{Name: "ack", Payload: "3 words: the sender's most recent granted request number, its own RN and that request's serial", Arg: "none", Stamp: "the proposed age acknowledged"},
	{Name: "nack", Payload: "one word: the proposed age refused", Arg: "reply", Stamp: "the sender's age"},
}

// Why a node refuses a TOKEN_MISSING (Nack's Reply).
const (
	NackHolder   uint8 = 1 // the token is not lost: the sender holds it
	NackConflict uint8 = 2 // the sender knows an age at least as high as the proposal
)

// The events the nodes count (proto.Output.Events), named as records name
// them.
const (
	EvTokenRegenerated proto.Event = iota
	EvStaleToken
	EvSuspicion  // a request's time-out passed without the token
	EvRound      // a TOKEN_MISSING round started
	EvNack       // a round ended with a NACK: the request is sent again
	EvUnanswered // a round's answer time-out passed with answers missing
	EvClosed     // a token closed a request its node abandoned in a crash
	numEvents
)

var eventNames = [numEvents]string{"tokens_regenerated", "stale_tokens_discarded", "suspicions",
	"token_missing_rounds", "rounds_nacked", "rounds_unanswered", "abandoned_requests_closed"}

// Timer kinds.
const (
	timerRequest uint8 = iota // the token is overdue: start a TOKEN_MISSING round
	timerAnswers              // the round's answers are overdue
)

// ageShift: an age is round<<ageShift | proposer, so that two nodes never
// propose the same age (ids are below 2^20).
const ageShift = 20

// Config is the failure protocol's timing, in δ.
type Config struct {
	// CSEstimate is an upper bound of a critical section's duration.
	CSEstimate float64
}

// Node is one node of Nishio, Li and Manning's algorithm.
type Node struct {
	id proto.NodeID
	n  int
	ft *Config // nil: the failure-free algorithm, no timer
	proto.Life
	tokenHere bool
	asked     bool
	inCS      bool
	tag       uint32 // the serial of the node's current (or last) request

	// The controller's state, kept in a crash (stable storage).
	rn      []int64  // RN[j]: the highest request number received from j (own for j = id)
	rnTag   []uint32 // the serial of j's request number rn[j]
	granted int64    // the number of this node's request granted most recently
	age     uint64   // the age of the most recent token this node knows of (or has promised)
	seen    uint64   // the highest age heard in a TOKEN_MISSING or NACK
	seq     uint32   // the current timer's sequence number; older timers are void

	ln []int64 // the token's LN, while held (allocated when first held)

	// A TOKEN_MISSING round this node runs (volatile).
	cand     bool
	proposal uint64
	acks     int
	acked    []bool
	ackLN    []int64
}

func (nd *Node) init(id proto.NodeID, n int, ft *Config) {
	*nd = Node{id: id, n: n, ft: ft, rn: make([]int64, n), rnTag: make([]uint32, n)}
	if id == 0 {
		nd.tokenHere = true
		nd.ln = make([]int64, n)
	}
}

// Step implements proto.Node.
func (nd *Node) Step(in proto.Input, out *proto.Output) {
	switch in.Kind {
	case proto.EnterCS:
		nd.enterCS(in.Tag, out)
	case proto.ExitCS:
		nd.exitCS(out)
	case proto.Fire:
		nd.fire(in.Timer, out)
	case proto.Receive:
		switch m := in.Msg; m.Type {
		case Request:
			nd.request(m, out)
		case Token:
			nd.token(m, out)
		case TokenMissing:
			nd.tokenMissing(m, out)
		case Ack:
			nd.ack(m, out)
		case Nack:
			nd.nack(m, out)
		}
	}
}

func (nd *Node) send(out *proto.Output, m proto.Message) {
	m.From, m.J, m.Src = nd.id, proto.Ref{}, proto.Ref{}
	out.Msgs = append(out.Msgs, m)
}

// broadcast sends m to the N−1 other nodes.
func (nd *Node) broadcast(out *proto.Output, m proto.Message) {
	for j := range proto.NodeID(nd.n) {
		if j != nd.id {
			m.To = j
			nd.send(out, m)
		}
	}
}

func (nd *Node) enterCS(tag uint32, out *proto.Output) {
	if nd.asked {
		return // one request at a time
	}
	nd.asked, nd.tag = true, tag
	if nd.tokenHere {
		nd.inCS, out.Enter = true, true
		return
	}
	nd.rn[nd.id]++
	nd.rnTag[nd.id] = tag
	nd.sendRequest(proto.Normal, out)
}

// sendRequest sends the node's current request to the N−1 others and
// (with the failure protocol) waits for the token until the time-out.
func (nd *Node) sendRequest(cause proto.Cause, out *proto.Output) {
	nd.broadcast(out, proto.Message{Type: Request, Cause: cause, Stamp: uint64(nd.rn[nd.id]), Tag: nd.tag})
	nd.await(out)
}

func (nd *Node) exitCS(out *proto.Output) {
	if !nd.inCS {
		return
	}
	nd.inCS, nd.asked = false, false
	nd.ln[nd.id] = nd.rn[nd.id]
	nd.granted = nd.rn[nd.id]
	nd.release(out)
}

// release sends the token to the first node after this one, in circular
// order, whose latest request is not granted (RN[j] > LN[j]); or keeps it.
func (nd *Node) release(out *proto.Output) {
	for k := 1; k < nd.n; k++ {
		j := proto.NodeID((int(nd.id) + k) % nd.n)
		if nd.rn[j] > nd.ln[j] {
			nd.tokenHere = false
			nd.send(out, proto.Message{Type: Token, To: j, Stamp: nd.age, Tag: nd.rnTag[j], Payload: append([]int64(nil), nd.ln...)})
			return
		}
	}
}

func (nd *Node) request(m proto.Message, out *proto.Output) {
	j, r := m.From, int64(m.Stamp)
	if r > nd.rn[j] {
		nd.rn[j], nd.rnTag[j] = r, m.Tag
	}
	if nd.tokenHere && !nd.asked {
		nd.release(out)
	}
}

func (nd *Node) token(m proto.Message, out *proto.Output) {
	if m.Stamp < nd.age || nd.tokenHere {
		// A duplicate: a token older than the most recent one this node
		// knows of. Discard it, and send the request again.
		out.Events[EvStaleToken]++
		if nd.asked && !nd.inCS && !nd.tokenHere && !nd.cand {
			nd.sendRequest(proto.Failure, out)
		}
		return
	}
	nd.age = m.Stamp
	if nd.cand {
		// The token came while this node ran a round: it stops, and the
		// token takes the proposed age, which the nodes that acknowledged
		// the proposal now hold.
		nd.cand = false
		nd.age = max(nd.age, nd.proposal)
	}
	if nd.ln == nil {
		nd.ln = make([]int64, nd.n)
	}
	copy(nd.ln, m.Payload[:nd.n])
	nd.tokenHere = true
	if nd.asked {
		nd.seq++ // the time-out is void
		nd.inCS, out.Enter = true, true
		return
	}
	if nd.rn[nd.id] > nd.ln[nd.id] {
		// A request this node abandoned when it crashed: close it.
		nd.ln[nd.id], nd.granted = nd.rn[nd.id], nd.rn[nd.id]
		out.Events[EvClosed]++
	}
	nd.release(out)
}

// View implements proto.Node: Gen is the node's age.
func (nd *Node) View() proto.View {
	return proto.View{Bits: proto.Bits{Up: nd.Up(), TokenHere: nd.tokenHere, InCS: nd.inCS, Asked: nd.asked}, Tag: nd.tag, Gen: nd.age}
}

// Waiting implements proto.Node: the node itself while its request waits
// for the token; at the holder, the nodes whose request it knows is not
// granted, in the order it would serve them.
func (nd *Node) Waiting(f func(j proto.NodeID)) {
	if nd.asked && !nd.inCS {
		f(nd.id)
	}
	if !nd.tokenHere {
		return
	}
	for k := 1; k < nd.n; k++ {
		if j := proto.NodeID((int(nd.id) + k) % nd.n); nd.rn[j] > nd.ln[j] {
			f(j)
		}
	}
}
