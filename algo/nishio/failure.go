package nishio

import "github.com/ocbench/ocbench/proto"

// requestTimeout is how long a requester waits for the token before it
// suspects it lost, in δ: its request reaches every node within δ; from
// then on every holder knows it, the token moves round the ring and serves
// each node at most once before it (N−1 critical sections and hops), beside
// the one in progress; one δ of margin.
func (nd *Node) requestTimeout() float64 {
	return float64(nd.n)*(nd.ft.CSEstimate+1) + 2
}

// answerTimeout is how long a round waits for the N−1 answers, in δ: a
// TOKEN_MISSING and its answer take 2δ; one δ of margin.
const answerTimeout = 3

// await starts (again) the wait for the token of the node's request.
func (nd *Node) await(out *proto.Output) {
	if nd.ft == nil {
		return
	}
	nd.seq++
	out.Timers = append(out.Timers, proto.Timer{Kind: timerRequest, Seq: nd.seq, Arg: proto.Nil, After: nd.requestTimeout()})
}

// waiting reports whether the node waits for the token.
func (nd *Node) waiting() bool { return nd.asked && !nd.inCS && !nd.tokenHere }

// Crash implements proto.Crasher: the processor's state is lost (the
// request, the critical section, the token held, a round in progress); the
// controller's counters (RN, the request granted, the age) are kept.
func (nd *Node) Crash(*proto.Output) {
	nd.tokenHere, nd.asked, nd.inCS, nd.cand = false, false, false, false
	nd.seq++ // every timer set before is void
}

// Recover implements proto.Recoverer: the node is back, asks for nothing
// and holds no token; it keeps its age, so it discards a token older than
// the most recent one it knew.
func (nd *Node) Recover(*proto.Output) {
	nd.seq++
}

func (nd *Node) fire(t proto.Timer, out *proto.Output) {
	if nd.ft == nil || t.Seq != nd.seq {
		return
	}
	switch t.Kind {
	case timerRequest:
		if !nd.waiting() || nd.cand {
			return
		}
		out.Suspect = proto.Suspicion{Yes: true, Of: proto.Nil, Window: t.After}
		out.Events[EvSuspicion]++
		nd.startRound(out)
	case timerAnswers:
		if !nd.cand {
			return
		}
		// A node did not answer (it is down, or its answer is slow): ask
		// again those that have not answered, with the same proposal, at
		// gaps that double up to the request time-out. The ACKs received
		// stay valid: each is a promise its sender keeps (its age stays at
		// least the proposal).
		out.Events[EvUnanswered]++
		for j := range proto.NodeID(nd.n) {
			if j != nd.id && !nd.acked[j] {
				nd.send(out, proto.Message{Type: TokenMissing, Cause: proto.Failure, To: j, Stamp: nd.proposal, Tag: nd.tag})
			}
		}
		nd.seq++
		next := min(2*t.After, nd.requestTimeout())
		out.Timers = append(out.Timers, proto.Timer{Kind: timerAnswers, Seq: nd.seq, Arg: proto.Nil, After: next})
	}
}

// startRound sends TOKEN_MISSING(proposed_age) to the N−1 other nodes; the
// proposal is above every age the node knows of, and its own (low bits).
func (nd *Node) startRound(out *proto.Output) {
	nd.cand = true
	nd.proposal = (max(nd.age, nd.seen)>>ageShift+1)<<ageShift | uint64(nd.id)
	nd.seen = max(nd.seen, nd.proposal) // a later round proposes more
	nd.acks = 0
	if nd.acked == nil {
		nd.acked, nd.ackLN = make([]bool, nd.n), make([]int64, nd.n)
	}
	clear(nd.acked)
	out.Events[EvRound]++
	nd.broadcast(out, proto.Message{Type: TokenMissing, Cause: proto.Failure, Stamp: nd.proposal, Tag: nd.tag})
	nd.seq++
	out.Timers = append(out.Timers, proto.Timer{Kind: timerAnswers, Seq: nd.seq, Arg: proto.Nil, After: answerTimeout})
}

// tokenMissing answers TOKEN_MISSING(p) from a candidate: ACK if the node
// does not hold the token and p is above every age it knows of (its own
// proposal included): it then promises p (its age becomes p, so that it
// discards any older token) and gives its most recent granted request.
// NACK otherwise, with its age. A holder's NACK raises the token's age to
// p: the nodes that acknowledged p still accept it.
func (nd *Node) tokenMissing(m proto.Message, out *proto.Output) {
	p := m.Stamp
	nd.seen = max(nd.seen, p)
	top := nd.age
	if nd.cand {
		top = max(top, nd.proposal)
	}
	switch {
	case nd.tokenHere:
		nd.send(out, proto.Message{Type: Nack, Cause: proto.Failure, To: m.From, Stamp: nd.age, Reply: NackHolder, Tag: m.Tag, Payload: []int64{int64(p)}})
		nd.age = max(nd.age, p)
	case p <= top:
		nd.send(out, proto.Message{Type: Nack, Cause: proto.Failure, To: m.From, Stamp: top, Reply: NackConflict, Tag: m.Tag, Payload: []int64{int64(p)}})
	default:
		nd.age = p
		nd.cand = false // a higher proposal wins
		nd.send(out, proto.Message{Type: Ack, Cause: proto.Failure, To: m.From, Stamp: p, Tag: m.Tag,
			Payload: []int64{nd.granted, nd.rn[nd.id], int64(nd.rnTag[nd.id])}})
		if nd.waiting() {
			nd.await(out) // give the candidate time
		}
	}
}

// ack counts an ACK of the node's round; with N−1 of them it regenerates
// the token with the proposed age, LN from the ACKs, and enters.
func (nd *Node) ack(m proto.Message, out *proto.Output) {
	if !nd.cand || m.Stamp != nd.proposal || nd.acked[m.From] {
		return
	}
	j := m.From
	nd.acked[j], nd.ackLN[j] = true, m.Payload[0]
	if r := m.Payload[1]; r > nd.rn[j] { // a request this node missed (it was down)
		nd.rn[j], nd.rnTag[j] = r, uint32(m.Payload[2])
	}
	if nd.acks++; nd.acks < nd.n-1 {
		return
	}
	nd.cand = false
	nd.age = nd.proposal
	if nd.ln == nil {
		nd.ln = make([]int64, nd.n)
	}
	copy(nd.ln, nd.ackLN)
	nd.ln[nd.id] = nd.granted
	nd.tokenHere = true
	out.Events[EvTokenRegenerated]++
	nd.seq++
	nd.inCS, out.Enter = true, true // a candidate waits for the token
}

// nack ends the node's round: the token is not lost, or another candidate
// has a higher proposal. The node sends its request again.
func (nd *Node) nack(m proto.Message, out *proto.Output) {
	if !nd.cand || len(m.Payload) == 0 || uint64(m.Payload[0]) != nd.proposal {
		return
	}
	nd.cand = false
	nd.seen = max(nd.seen, m.Stamp)
	out.Events[EvNack]++
	nd.sendRequest(proto.Failure, out)
}
