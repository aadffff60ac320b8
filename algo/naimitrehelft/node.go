package naimitrehelft

import (
	"math"
	"slices"

	"github.com/ocbench/ocbench/proto"
)

// state is a node's state in the failure protocol: the survey's five, plus
// idle (no request outstanding, or served).
type state uint8

const (
	idle       state = iota
	waiting          // the request is sent; Twait runs
	consulting       // consult(i) is broadcast; Telec runs
	querying         // query(i) is broadcast; Telec runs
	candidate        // election(i) is broadcast; Telec runs
	observer         // heard election(j): waits for candidate_elected
)

var stateNames = [...]string{"idle", "waiting", "consulting", "query", "candidate", "observer"}

func (s state) String() string { return stateNames[s] }

// Timer kinds.
const (
	timerState  uint8 = iota + 1 // the delay of the current state (Twait, Telec, the observer's wait)
	timerQuiet                   // the end of a recovered node's quiet window
	timerForget                  // a recorded question (Arg: the asker) expires
)

// question is a consult, query or election that a node recorded, to answer
// it when the answer becomes true within the asker's window: NEXT := asker
// (consult), or the token arrives (query, election).
type question struct {
	j       proto.NodeID
	round   uint64
	tag     uint32
	seq     uint32 // its expiry timer
	consult bool
}

// Node is one node of Naimi and Trehel's algorithm with its failure
// protocol.
type Node struct {
	id proto.NodeID
	n  int
	ft bool
	tm Timing
	proto.Life

	last, next proto.NodeID // the paper's LAST and NEXT (Nil for NEXT = 0)
	nextTag    uint32       // the serial of NEXT's request
	tokenHere  bool
	inCS       bool
	asked      bool         // a request of the node's own is outstanding
	tag        uint32       // its serial
	held       bool         // the request is not sent yet (observer, quiet window)
	stale      bool         // the token held in the critical section is older than gen: discard it on exit
	sends      uint8        // the sendings of requests, mod 256: a request carries it in Phase
	passedTo   proto.NodeID // the node this node last sent the token to (Nil: none known)

	st       state
	stSeq    uint32 // the live timer of st
	consults bool   // a consult of the current request was acknowledged: the next suspicion queries
	// questions recorded (one per asker, the latest).
	questions []question

	// quiet: the node recovered less than Timing.Quiet ago and discards
	// every token.
	quiet    bool
	quietSeq uint32

	// Stable storage: kept through a crash.
	gen   uint64       // the generation of the token last held, or of the last candidate_elected
	root  proto.NodeID // the root elected for gen (0 initially)
	seen  uint64       // the largest generation seen in any message
	round uint64       // the current suspicion round (consult, query, election share it)
	seq   uint32       // timer sequence numbers: a timer set before a crash never matches
}

func (n *Node) init(id proto.NodeID, size int, ft bool, tm Timing) {
	*n = Node{id: id, n: size, ft: ft, tm: tm, last: 0, next: proto.Nil, passedTo: proto.Nil}
	if id == 0 {
		n.tokenHere = true
	}
}

// View implements proto.Node. During a recovered node's quiet window Gen
// is the largest generation: the node discards every token that arrives.
func (n *Node) View() proto.View {
	if !n.Up() {
		return proto.View{Gen: n.gen}
	}
	v := proto.View{Bits: proto.Bits{Up: true, TokenHere: n.tokenHere, InCS: n.inCS, Asked: n.asked}, Tag: n.tag, Gen: n.gen}
	if n.quiet {
		v.Gen = math.MaxUint64
	}
	return v
}

// Waiting implements proto.Node: the node's own request while it waits,
// and NEXT's.
func (n *Node) Waiting(f func(j proto.NodeID)) {
	if !n.Up() {
		return
	}
	if n.asked && !n.inCS {
		f(n.id)
	}
	if n.next != proto.Nil {
		f(n.next)
	}
}

// Last returns the node's LAST (for tests and invariants).
func (n *Node) Last() proto.NodeID { return n.last }

// Next returns the node's NEXT, Nil for none.
func (n *Node) Next() proto.NodeID { return n.next }

func (n *Node) send(out *proto.Output, m proto.Message) {
	m.From, m.Src = n.id, proto.Ref{}
	out.Msgs = append(out.Msgs, m)
}

// broadcast sends m to every other node.
func (n *Node) broadcast(out *proto.Output, m proto.Message) {
	for k := range n.n {
		if proto.NodeID(k) != n.id {
			m.To = proto.NodeID(k)
			n.send(out, m)
		}
	}
}

func (n *Node) timer(out *proto.Output, kind uint8, arg proto.NodeID, after float64) uint32 {
	n.seq++
	out.Timers = append(out.Timers, proto.Timer{Kind: kind, Seq: n.seq, Arg: arg, After: after})
	return n.seq
}

// enter puts the node in state s, with its delay if the failure protocol
// runs (a state's earlier timer no longer matches).
func (n *Node) enter(s state, out *proto.Output) {
	n.st = s
	n.stSeq = 0
	if !n.ft {
		return
	}
	var d float64
	switch s {
	case waiting:
		d = n.tm.Wait
	case consulting:
		d = n.tm.Consult
	case querying:
		d = n.tm.Query
	case candidate:
		d = n.tm.Elect
	case observer:
		d = n.tm.Observe
	default:
		n.seq++ // idle: no timer
		return
	}
	n.stSeq = n.timer(out, timerState, proto.Nil, d)
}

func (n *Node) see(g uint64) {
	if g > n.seen {
		n.seen = g
	}
}

// Step implements proto.Node.
func (n *Node) Step(in proto.Input, out *proto.Output) {
	switch in.Kind {
	case proto.EnterCS:
		n.request(in.Tag, out)
	case proto.ExitCS:
		n.exitCS(out)
	case proto.Receive:
		n.receive(in.Msg, out)
	case proto.Fire:
		n.fire(in.Timer, out)
	}
}

// Recover implements proto.Recoverer.
func (n *Node) Recover(out *proto.Output) {
	n.recover(out)
}

// request: node i wants the critical section.
func (n *Node) request(tag uint32, out *proto.Output) {
	n.asked, n.tag, n.consults = true, tag, false
	if n.tokenHere {
		n.inCS = true
		out.Enter = true
		return
	}
	if n.quiet || n.st == observer {
		n.held = true
		return
	}
	n.sendRequest(n.last, proto.Normal, out)
}

// sendRequest sends the node's request to node to, makes the node the
// tail of the queue (LAST := i) unless a request already queues behind it
// (NEXT ≠ 0: a request sent again keeps its followers), and waits for the
// token.
func (n *Node) sendRequest(to proto.NodeID, cause proto.Cause, out *proto.Output) {
	n.held = false
	n.sends++
	if to != n.id {
		n.send(out, proto.Message{Type: Request, Cause: cause, To: to, J: proto.RefTo(n.id), Stamp: n.gen, Tag: n.tag, Phase: n.sends})
	}
	if n.next == proto.Nil {
		n.last = n.id
	}
	n.enter(waiting, out)
}

func (n *Node) exitCS(out *proto.Output) {
	if !n.inCS {
		return
	}
	n.inCS, n.asked = false, false
	n.enter(idle, out)
	if n.stale {
		out.Events[EvStale]++
		n.stale, n.tokenHere = false, false
		return
	}
	if n.next != proto.Nil {
		n.passToken(n.next, n.nextTag, out)
		n.next = proto.Nil
		return
	}
	n.last = n.id // NEXT = 0: the node keeps the idle token and is the root
}

func (n *Node) passToken(to proto.NodeID, tag uint32, out *proto.Output) {
	n.send(out, proto.Message{Type: Token, To: to, Stamp: n.gen, Tag: tag})
	n.tokenHere = false
	n.passedTo = to
}

func (n *Node) receive(m proto.Message, out *proto.Output) {
	if m.Type == Request || m.Type == Token || m.Type == Elected {
		n.see(m.Stamp) // the others carry a round in Stamp
	}
	switch m.Type {
	case Request:
		n.receiveRequest(m, out)
	case Token:
		n.receiveToken(m, out)
	case Consult:
		if n.next == m.J.Node() && (n.asked || n.tokenHere) {
			n.send(out, proto.Message{Type: ConsultAck, Cause: proto.Failure, To: m.J.Node(), J: proto.RefTo(n.id), Stamp: m.Stamp, Tag: m.Tag})
			return
		}
		n.record(question{j: m.J.Node(), round: m.Stamp, tag: m.Tag, consult: true}, n.tm.Consult+n.tm.Query, out)
	case ConsultAck:
		if n.asked && !n.tokenHere && m.Stamp == n.round && (n.st == consulting || n.st == querying) {
			out.Events[EvConsultAcked]++
			n.consults = true
			n.enter(waiting, out)
		}
	case Query:
		if n.tokenHere {
			n.send(out, proto.Message{Type: QueryAck, Cause: proto.Failure, To: m.J.Node(), J: proto.RefTo(n.id), Stamp: m.Stamp, Tag: m.Tag})
			return
		}
		n.record(question{j: m.J.Node(), round: m.Stamp, tag: m.Tag}, n.tm.Query+n.tm.Elect, out)
	case QueryAck:
		if n.asked && !n.tokenHere && m.Stamp == n.round && (n.st == querying || n.st == candidate) {
			if n.st == candidate {
				out.Events[EvElectionAborted]++
			}
			out.Events[EvResent]++
			n.consults = false
			n.resend(m.J.Node(), out)
		}
	case Election:
		n.receiveElection(m, out)
	case Elected:
		n.receiveElected(m, out)
	case Resend:
		n.receiveResend(m, out)
	}
}

// resend sends the node's request again, as a resend message, to the
// token's holder h that answered its query; the node waits for the token
// again (as the tail of the queue unless a request queues behind it).
func (n *Node) resend(h proto.NodeID, out *proto.Output) {
	n.held = false
	n.sends++
	n.send(out, proto.Message{Type: Resend, Cause: proto.Failure, To: h, J: proto.RefTo(n.id), Tag: n.tag})
	if n.next == proto.Nil {
		n.last = n.id
	}
	n.enter(waiting, out)
}

// receiveResend places j's request sent again at the tail of the token's
// queue: from the holder it follows NEXT (Phase 1) to the last node that
// waits, and from a node that held the token it follows the token's path
// (passedTo) to the holder. Stamp counts its hops; after 2n it is dropped.
func (n *Node) receiveResend(m proto.Message, out *proto.Output) {
	j := m.J.Node()
	fwd := func(to proto.NodeID, viaNext uint8) {
		n.send(out, proto.Message{Type: Resend, Cause: proto.Failure, To: to, J: proto.RefTo(j), Tag: m.Tag, Stamp: m.Stamp + 1, Phase: viaNext})
	}
	switch {
	case j == n.id:
		out.Events[EvOwnRequest]++
	case n.next == j: // queued here already
		n.nextTag = m.Tag
	case n.tokenHere && !n.inCS:
		n.passToken(j, m.Tag, out)
		n.last = j
	case m.Stamp >= uint64(2*n.n):
		out.Events[EvResendDropped]++
	case n.next != proto.Nil:
		fwd(n.next, 1)
	case n.tokenHere || (n.asked && m.Phase == 1): // the tail of the token's queue
		n.next, n.nextTag, n.last = j, m.Tag, j
		n.answerConsult(j, out)
	case n.passedTo != proto.Nil && n.passedTo != j:
		fwd(n.passedTo, 0)
	case n.asked:
		n.next, n.nextTag, n.last = j, m.Tag, j
		n.answerConsult(j, out)
	default:
		out.Events[EvResendDropped]++
	}
}

// receiveRequest: the request of j reaches node i.
func (n *Node) receiveRequest(m proto.Message, out *proto.Output) {
	j := m.J.Node()
	switch {
	case j == n.id: // it went round a cycle of LAST pointers
		out.Events[EvOwnRequest]++
		if n.ft && n.asked && !n.tokenHere && n.st == waiting && m.Tag == n.tag && m.Phase == n.sends {
			// The latest sending of the request is lost: no node can have
			// it as NEXT. Query at once.
			n.round++
			n.query(out)
		}
	case n.next == j: // already queued here (a request sent again)
		n.nextTag = m.Tag
	case n.tokenHere && !n.inCS: // the idle token: it goes to j
		n.passToken(j, m.Tag, out)
		n.last = j
	case n.last == n.id: // the tail of the queue: j is next
		n.next, n.nextTag, n.last = j, m.Tag, j
		n.answerConsult(j, out)
	default: // forward along LAST; j is the new LAST
		n.send(out, proto.Message{Type: Request, Cause: m.Cause, To: n.last, J: proto.RefTo(j), Stamp: n.gen, Tag: m.Tag, Phase: m.Phase})
		n.last = j
	}
}

// receiveToken: the token arrives.
func (n *Node) receiveToken(m proto.Message, out *proto.Output) {
	if n.quiet {
		out.Events[EvRecoveryDiscard]++
		return
	}
	if m.Stamp < n.gen {
		out.Events[EvStale]++
		return
	}
	n.gen = m.Stamp
	n.tokenHere = true
	n.answerToken(out)
	if n.asked && !n.inCS {
		n.held = false
		n.inCS = true
		out.Enter = true
		n.enter(idle, out)
		return
	}
	out.Events[EvUnexpectedToken]++
	if n.st == observer {
		n.enter(idle, out)
	}
	if n.next != proto.Nil {
		n.passToken(n.next, n.nextTag, out)
		n.next = proto.Nil
		return
	}
	n.last = n.id
}

func (n *Node) receiveElection(m proto.Message, out *proto.Output) {
	if n.tokenHere {
		n.send(out, proto.Message{Type: QueryAck, Cause: proto.Failure, To: m.J.Node(), J: proto.RefTo(n.id), Stamp: m.Stamp, Tag: m.Tag})
		return
	}
	n.record(question{j: m.J.Node(), round: m.Stamp, tag: m.Tag}, n.tm.Observe, out)
	if n.st == candidate {
		if m.J.Node() > n.id {
			return // the smaller candidate stays
		}
		out.Events[EvElectionLost]++
	}
	n.enter(observer, out)
}

// receiveElected: candidate_elected(E) with the new generation.
func (n *Node) receiveElected(m proto.Message, out *proto.Output) {
	if m.Stamp <= n.gen {
		return // the node has the generation already (its token came first)
	}
	n.gen, n.root = m.Stamp, m.J.Node()
	n.last, n.next, n.passedTo = m.J.Node(), proto.Nil, m.J.Node()
	n.questions = n.questions[:0]
	if n.tokenHere && !n.inCS {
		out.Events[EvStale]++
		n.tokenHere = false
	}
	n.stale = n.inCS
	if !n.asked || n.inCS {
		n.enter(idle, out)
		return
	}
	cause := proto.Failure
	if n.held {
		cause = proto.Normal // never sent: this is its first sending
	}
	if n.quiet {
		n.held = true
		n.enter(idle, out)
		return
	}
	n.consults = false
	n.sendRequest(m.J.Node(), cause, out)
}

func (n *Node) fire(t proto.Timer, out *proto.Output) {
	switch t.Kind {
	case timerQuiet:
		if t.Seq != n.quietSeq || !n.quiet {
			return
		}
		n.quiet = false
		if n.asked && n.held && n.st != observer {
			n.sendRequest(n.last, proto.Normal, out)
		}
	case timerForget:
		n.questions = slices.DeleteFunc(n.questions, func(q question) bool { return q.seq == t.Seq })
	case timerState:
		if t.Seq != n.stSeq {
			return
		}
		n.expire(out)
	}
}

// expire: the delay of the current state is over.
func (n *Node) expire(out *proto.Output) {
	switch n.st {
	case waiting:
		if !n.asked || n.tokenHere {
			n.enter(idle, out)
			return
		}
		out.Events[EvSuspicion]++
		out.Suspect = proto.Suspicion{Yes: true, Of: proto.Nil, Window: n.tm.Wait}
		n.round++
		if !n.consults {
			n.broadcast(out, proto.Message{Type: Consult, Cause: proto.Failure, J: proto.RefTo(n.id), Stamp: n.round, Tag: n.tag})
			n.enter(consulting, out)
			return
		}
		n.query(out)
	case consulting:
		n.query(out)
	case querying:
		out.Events[EvElection]++
		n.broadcast(out, proto.Message{Type: Election, Cause: proto.Failure, J: proto.RefTo(n.id), Stamp: n.round, Tag: n.tag})
		n.enter(candidate, out)
	case candidate:
		n.regenerate(out)
	case observer:
		out.Events[EvObserverTimeout]++
		if !n.asked {
			n.enter(idle, out)
			return
		}
		if n.held && !n.quiet {
			n.sendRequest(n.last, proto.Normal, out)
			return
		}
		n.enter(waiting, out)
	}
}

func (n *Node) query(out *proto.Output) {
	n.broadcast(out, proto.Message{Type: Query, Cause: proto.Failure, J: proto.RefTo(n.id), Stamp: n.round, Tag: n.tag})
	n.enter(querying, out)
}

// regenerate: the candidate was elected. It holds a token of a new
// generation, is the root (LAST = i, NEXT = 0) and tells every node.
func (n *Node) regenerate(out *proto.Output) {
	out.Events[EvRegenerated]++
	n.gen = max(n.gen, n.seen) + 1
	n.seen, n.root = n.gen, n.id
	n.last, n.next, n.passedTo = n.id, proto.Nil, proto.Nil
	n.questions = n.questions[:0]
	n.broadcast(out, proto.Message{Type: Elected, Cause: proto.Failure, J: proto.RefTo(n.id), Stamp: n.gen, Tag: n.tag})
	n.tokenHere = true
	n.inCS = true
	out.Enter = true
	n.enter(idle, out)
}

// record keeps a question for its asker's window (after δ), replacing an
// earlier one of the same asker.
func (n *Node) record(q question, after float64, out *proto.Output) {
	if !n.ft {
		return
	}
	q.seq = n.timer(out, timerForget, q.j, after)
	for k := range n.questions {
		if n.questions[k].j == q.j {
			n.questions[k] = q
			return
		}
	}
	n.questions = append(n.questions, q)
}

// answerConsult: NEXT := j; a consult of j recorded is answered.
func (n *Node) answerConsult(j proto.NodeID, out *proto.Output) {
	for k, q := range n.questions {
		if q.j == j && q.consult {
			n.send(out, proto.Message{Type: ConsultAck, Cause: proto.Failure, To: j, J: proto.RefTo(n.id), Stamp: q.round, Tag: q.tag})
			n.questions = slices.Delete(n.questions, k, k+1)
			return
		}
	}
}

// answerToken: the token arrived; every query and election recorded is
// answered.
func (n *Node) answerToken(out *proto.Output) {
	k := 0
	for _, q := range n.questions {
		if q.consult {
			n.questions[k] = q
			k++
			continue
		}
		n.send(out, proto.Message{Type: QueryAck, Cause: proto.Failure, To: q.j, J: proto.RefTo(n.id), Stamp: q.round, Tag: q.tag})
	}
	n.questions = n.questions[:k]
}

// recover: the node restarts with its volatile state lost. It keeps its
// generation, the root elected for it, its round and its timer numbers
// (stable storage); it holds no token, asks nothing, has NEXT = 0 and LAST
// = the root it knows (its successor if that is itself), and discards
// every token for Timing.Quiet.
func (n *Node) recover(out *proto.Output) {
	if !n.ft {
		seq := n.seq
		n.init(n.id, n.n, false, n.tm)
		n.seq = seq
		return
	}
	n.tokenHere, n.inCS, n.asked, n.held, n.consults, n.stale = false, false, false, false, false, false
	n.next, n.nextTag, n.tag, n.passedTo = proto.Nil, 0, 0, proto.Nil
	n.questions = n.questions[:0]
	n.last = n.root
	if n.last == n.id {
		n.last = (n.id + 1) % proto.NodeID(n.n)
	}
	n.enter(idle, out)
	n.quiet = true
	n.quietSeq = n.timer(out, timerQuiet, proto.Nil, n.tm.Quiet)
}
