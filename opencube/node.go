package opencube

import (
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
)

// Timer kinds of the failure protocol.
const (
	timerSuspect uint8 = iota + 1 // an asking node waits for news of its request or the token
	timerLoan                     // a root waits for a lent token to come back
	timerEnquiry                  // a root waits for the answer to its enquiry
	timerPhase                    // a search phase waits for answers to its tests
	timerRetest                   // a search phase tests "try later" nodes again
	timerBeat                     // a node holding a request tells its requester (Arg: requester, Seq: serial)
	timerConfirm                  // a searcher waits for objections before regenerating
	timerQuiet                    // a recovered node stops discarding tokens
	timerProbe                    // a father waits for the answer of the son it probed
)

// Config holds the timing parameters of the failure protocol, in units of δ.
type Config struct {
	// CSEstimate is e, the root's estimate of a critical section's duration.
	CSEstimate float64
	// RetestDelay is how long a searching node waits before testing again a
	// node that answered "try later" (the paper's protocol: in the
	// project's, asking nodes below the phase do not answer).
	RetestDelay float64
	// PaperStart makes a suspicion or an anomaly start search_father at
	// phase power(i)+1, as the paper does. By default every search starts
	// at phase 1, as a recovery does: after crashes a node's power is only
	// as right as its father pointer, and a search that skips the node's
	// own subcube can attach it beside another head of that subcube
	// (docs/failures.md). The paper's replays set it.
	PaperStart bool
	// Paper keeps the paper's search rules where items 7 to 10 of
	// docs/failures.md change them: a searching node in phase d_i that
	// receives test(d_j) from a searcher j with d_i < d_j concludes at once
	// with father := j; with equal phases the larger id does not answer
	// and goes on; fathers do not check a second son at the same distance
	// nor tell the sons beyond a lowered power to search again; a search in
	// its last phase tests "try later" nodes again. The paper's replays set
	// it. It also makes a waiting node suspect on the paper's clock,
	// 2·pmax·δ after it asked, instead of watching its request's holder
	// (watch.go).
	Paper bool
	// SilentTie reads §5's tie-break for equal phases as the mechanism of
	// its example ("b would answer 'ok' to c, and c would not answer to
	// b"): the larger id stays silent on the smaller's test and searches
	// on. Without it the larger id concludes father := the smaller on that
	// test, the outcome §5 states ("the node with the 'smallest' identity
	// becomes the father of the other"), which the project's protocol does
	// too. With Paper, PaperStart and Bare it is ocbench --protocol
	// paper-mechanism (docs/failures.md).
	SilentTie bool
	// Bare drops what the project adds to the paper's regeneration: no
	// confirmation (a search whose last phase fails, or a root whose
	// enquiry concludes "lost", regenerates at once), no token generations
	// (no token is ever discarded as stale) and no quiet window after a
	// recovery. With Paper and PaperStart it is §5 as written (ocbench
	// --protocol paper): a user can watch it make a second token.
	Bare bool
}

// Node is an open-cube node with the failure protocol of §5: the general
// scheme's node (with the open-cube rule) plus suspicion, the root's
// enquiry, search_father, concurrent searches, recovery and anomalies.
// Decisions where the paper is silent are in docs/failures.md. The host
// crashes and restarts it (proto.Recoverer, proto.Crasher).
type Node struct {
	proto.Life
	core scheme.Node
	rule Rule
	cfg  Config

	seq uint32 // source of timer sequence numbers; a timer is live iff its Seq is the one recorded
	// inc is the node's incarnation: the number of times it recovered. It
	// survives a crash (stable storage) and goes out with every heartbeat,
	// so that a suspicion names the incarnation it suspects.
	inc uint32

	// suspectSeq is the live timer of the deadline by which a waiting node
	// expects news of its request (a heartbeat of its holder, the token, an
	// anomaly); holder and holderInc are the node that last said it holds
	// the request, and its incarnation (Nil: none yet). See watch.go.
	suspectSeq uint32
	pending    int // deadlines of the current request not passed yet
	holder     proto.NodeID
	holderInc  uint32
	// againTag and againFor identify the request (serial, mandator) that
	// this node last sent again to the node it suspected (watch.go): a
	// request is sent again once, a second suspicion searches.
	againTag uint32
	againFor proto.NodeID

	loanSeq        uint32
	loanTag        uint32
	loanSrc        proto.NodeID
	enquirySeq     uint32
	lastReturned   uint32       // tag of the last loan this node gave back
	lastReturnedTo proto.NodeID // and the lender it gave it back to
	sentBack       bool         // the source of the current loan said "already sent back"

	searching bool
	phase     int
	phaseSeq  uint32
	retry     []proto.NodeID // the paper's protocol: nodes to test again
	// adopter is a searcher that tested this searching node in a phase
	// adoptPhase above its own (0: none): the search concludes with
	// father := adopter when it reaches adoptPhase, unless a lower phase
	// succeeds first (docs/failures.md).
	adopter    proto.NodeID
	adoptPhase int
	// searchPower is the node's power when its search started: its sons
	// are within that distance.
	searchPower int
	// transitTop is the distance of the farthest node that was transit for
	// our request before an anomaly rejected it (0: none): those nodes are
	// our sons, whatever father the search finds.
	transitTop int

	// sons[d] is the node this node knows as its son at distance d (Nil:
	// unknown), learnt from the requests it serves, the loans it makes and
	// the tokens given up to it; nil until first needed. A request from a
	// second node at the same distance is checked by a probe of the first
	// (sons.go, docs/failures.md).
	sons []proto.NodeID
	// A probe of probeSon, the known son at distance probeD, is under way
	// (probeSeq is its timer): the request at the head of the queue waits
	// for its answer.
	probeSeq uint32
	probeSon proto.NodeID
	probeD   int
	// reattachFrom is the father that told this node, while it asked, that
	// it can no longer be its son (Nil: none): it searches once it no
	// longer asks, if that node is still its father.
	reattachFrom proto.NodeID
	// confirming: the search failed its last phase and the node announced a
	// new token generation; it regenerates unless a holder objects in 2δ.
	confirming bool
	announced  uint64 // the last generation this node announced
	// quietSeq is the live timer of the 2δ that follow a recovery, during
	// which the node discards every token and issues no request
	// (docs/failures.md: a token sent to a crashed node is lost).
	quietSeq uint32
}

func (n *Node) next() uint32 { n.seq++; return n.seq }

// roundTrip is how long a node waits for the answer to a message, in δ: 2δ
// (there and back), plus δ/2 of margin so that an answer delayed by exactly
// δ each way still comes first when it and the timer fall on the same
// instant (the bound on delays is inclusive, and under MPI nothing orders
// a delivery and a timer of the same instant). The paper's protocol
// (Config.Paper) waits exactly 2δ.
func (n *Node) roundTrip() float64 { return 2 + n.margin() }

// margin is the δ/2 added to every wait whose bound a message delayed by
// exactly δ can meet (0 under the paper's protocol).
func (n *Node) margin() float64 {
	if n.cfg.Paper {
		return 0
	}
	return 0.5
}

// Power returns the node's power: phase−1 while it searches (§5), else
// dist(i, father) − 1, or pmax at the root.
func (n *Node) Power() int {
	if n.searching {
		return n.phase - 1
	}
	return n.rule.Power(&n.core)
}

// View implements proto.Node.
func (n *Node) View() proto.View {
	v := n.core.View()
	v.Up = n.Up()
	if !v.Up {
		v.TokenHere, v.InCS, v.Asked = false, false, false
	}
	return v
}

// Tree implements scheme.TreeNode.
func (n *Node) Tree() scheme.TreeView {
	t := n.core.Tree()
	t.Searching = n.searching
	return t
}

// Waiting implements proto.Node.
func (n *Node) Waiting(f func(j proto.NodeID)) { n.core.Waiting(f) }

func (n *Node) send(out *proto.Output, m proto.Message) {
	m.From = n.core.ID
	out.Msgs = append(out.Msgs, m)
}

func (n *Node) timer(out *proto.Output, kind uint8, after float64) uint32 {
	s := n.next()
	out.Timers = append(out.Timers, proto.Timer{Kind: kind, Seq: s, After: after})
	return s
}

// Step implements proto.Node.
func (n *Node) Step(in proto.Input, out *proto.Output) {
	start := len(out.Msgs)
	// A request received in this step that the node still holds at its end
	// gets heartbeats (watch.go).
	heldJ, heldTag := proto.Nil, uint32(0)
	switch in.Kind {
	case proto.EnterCS:
		n.core.Enqueue(n.core.ID, n.core.ID, in.Tag)
	case proto.ExitCS:
		if n.core.InCS && n.core.Lender != n.core.ID {
			n.lastReturned, n.lastReturnedTo = n.core.Tag, n.core.Lender
		}
		n.core.ExitCS(out)
	case proto.Receive:
		n.receive(in.Msg, out)
		if in.Msg.Type == scheme.Request {
			heldJ, heldTag = in.Msg.J.Node(), in.Msg.Tag
		}
	case proto.Fire:
		n.fire(in.Timer, out)
	}
	if !n.searching && n.quietSeq == 0 {
		n.drain(out)
	}
	n.trimSons()
	n.reattachLater(out)
	n.arm(out, start)
	if heldJ != proto.Nil && n.core.Holds(heldJ, heldTag) {
		n.hold(heldJ, heldTag, out)
	}
}

// arm looks at what the step sent and sets the timers of §5: a node that
// sent a request on its own account waits for news of it (watch.go); a root
// that lent the token enquires if it has not come back 2δ+e later (lent to
// the source itself) or (pmax+1)δ+e later.
func (n *Node) arm(out *proto.Output, start int) {
	for _, m := range out.Msgs[start:] {
		switch {
		case m.Type == scheme.Request && m.J.Is(n.core.ID):
			n.watch(out)
		case m.Type == scheme.Token && m.J.Is(n.core.ID):
			n.loanTag, n.loanSrc = m.Tag, m.Src.Node()
			// The token comes back by then unless it is lost: with every
			// delay exactly δ it comes back at that very instant, so the
			// margin (an enquiry sent then is answered "sent back" and
			// costs two messages for nothing).
			wait := float64(n.rule.PMax+1) + n.cfg.CSEstimate + n.margin()
			if m.Src.Is(m.To) {
				wait = n.roundTrip() + n.cfg.CSEstimate
			}
			n.loanSeq = n.timer(out, timerLoan, wait)
			n.enquirySeq, n.sentBack = 0, false
		}
	}
}

func (n *Node) receive(m proto.Message, out *proto.Output) {
	switch m.Type {
	case scheme.Request:
		switch {
		case m.J.Is(n.core.ID):
			// A request of ours that came back to us is obsolete.
			out.Events[EvDuplicateRequest]++
		case n.core.Holds(m.J.Node(), m.Tag):
			out.Events[EvDuplicateRequest]++
		case m.Cause == proto.Failure && !n.cfg.Paper && !n.searching && n.rule.OnRequest(&n.core, m.J.Node()) == scheme.Reject:
			// A request sent again after a suspicion or a search, from
			// beyond our power: rejected at once, not when served, since
			// queued behind our own request it could wait on a node that
			// waits on us (we were transit for it, and so took its
			// requester as our father). Requests of failure-free operation
			// are never rejected on arrival: our power may grow before we
			// serve them.
			n.send(out, scheme.NewAnomaly(m.J.Node(), m.From, m.Src.Node(), m.Tag))
		default:
			if !n.cfg.Paper && m.Src == m.J {
				// A node's own requests have increasing serials, and it
				// asks for one at a time: an own request of j under a
				// smaller serial than another we queue is from before j
				// crashed or was served, and serving it could make j our
				// father while j waits on us (docs/failures.md).
				dropped, obsolete := n.core.Supersede(m.J.Node(), m.Tag)
				out.Events[EvObsoleteRequest] += int32(dropped)
				if obsolete {
					out.Events[EvObsoleteRequest]++
					break
				}
			}
			n.core.EnqueueFrom(m.J.Node(), m.From, m.Src.Node(), m.Tag)
		}
	case scheme.Token:
		n.receiveToken(m, out)
	case Enquiry:
		reply := ReplyTokenLost
		switch {
		case n.core.InCS && n.core.Tag == m.Tag:
			reply = ReplyInCS
		case n.lastReturned == m.Tag && n.lastReturnedTo == m.From:
			reply = ReplySentBack
		}
		n.send(out, proto.Message{Type: EnquiryReply, Cause: proto.Failure, To: m.From, Reply: reply, Tag: m.Tag})
	case EnquiryReply:
		if n.enquirySeq == 0 || m.Tag != n.loanTag || !n.lending() {
			return
		}
		switch m.Reply {
		case ReplyInCS:
			n.enquirySeq = 0
			n.loanSeq = n.timer(out, timerLoan, n.cfg.CSEstimate+2)
		case ReplySentBack:
			// The token was sent back and is on its way (≤ δ). If a second
			// enquiry hears the same, it was lost on the way.
			n.enquirySeq = 0
			if n.sentBack {
				n.reclaim(out)
				return
			}
			n.sentBack = true
			n.loanSeq = n.timer(out, timerLoan, n.roundTrip())
		default:
			n.reclaim(out)
		}
	case Test:
		n.receiveTest(m, out)
		n.holderRecovered(m.From, uint32(m.Stamp), out)
	case Regenerate:
		c := &n.core
		switch {
		case c.TokenHere || c.Gen >= m.Stamp || (n.confirming && c.ID < m.From):
			// The token is alive here, or a newer generation than the one
			// announced exists (its token may be in flight), or we are about
			// to regenerate too and have the smaller id: object. A held
			// token takes the announced generation, so that nodes that learned
			// it do not discard it.
			c.Gen = max(c.Gen, m.Stamp)
			n.send(out, proto.Message{Type: Answer, Cause: proto.Failure, To: m.From, Reply: AnswerHasToken, Stamp: c.Gen})
		case n.lending() && m.Stamp > c.Gen:
			// The token we lent is of an older generation: it is lost or
			// will be discarded. We are no longer the root: find a father,
			// as a recovering node does.
			c.Gen = m.Stamp
			n.abandonLoan()
			n.startSearch(1, out)
		case n.confirming && m.From < c.ID:
			// Two nodes about to regenerate: the smaller id goes on.
			c.Gen = max(c.Gen, m.Stamp)
			n.abandonLoan()
			n.startSearch(1, out)
		default:
			c.Gen = max(c.Gen, m.Stamp)
		}
	case Answer:
		if m.Reply == AnswerHasToken {
			n.core.Gen = max(n.core.Gen, m.Stamp)
			if n.confirming {
				// The token lives: search again, from phase 1 since the
				// root may now be anywhere, even close by.
				n.abandonLoan()
				n.startSearch(1, out)
			}
			return
		}
		if !n.searching || int(m.Phase) != n.phase {
			return
		}
		if m.Reply == AnswerOK {
			n.conclude(m.From, out)
			return
		}
		// "Try later" (only the paper's protocol sends it): test that node
		// again after RetestDelay.
		for _, k := range n.retry {
			if k == m.From {
				return
			}
		}
		n.retry = append(n.retry, m.From)
	case Wait:
		n.heartbeat(m, out)
	case Chase:
		n.chase(m, out)
	case Probe, Attach, Reattach:
		n.receiveSons(m, out)
	case scheme.Anomaly:
		if n.waitingToken() && !n.searching && m.Tag == n.core.Tag {
			out.Events[EvAnomaly]++
			if !n.cfg.Paper {
				// The transit nodes between us and the node that rejected
				// our request are our sons now, up to distance m.Phase.
				n.transitTop = int(m.Phase)
			}
			n.startSearch(n.firstPhase(), out)
		}
	}
}

// abandonLoan makes a lender whose token is lost for good stop waiting
// for it: a newer generation exists or is being created elsewhere.
func (n *Node) abandonLoan() {
	if n.lending() {
		n.core.Asked = false
		n.loanSeq, n.enquirySeq, n.sentBack = 0, 0, false
	}
}

// lending reports whether the node is a root waiting for its lent token.
func (n *Node) lending() bool {
	c := &n.core
	return c.Asked && c.Mandator == proto.Nil && !c.TokenHere
}

// waitingToken reports whether the node asked for the token and waits for it.
func (n *Node) waitingToken() bool {
	c := &n.core
	return c.Asked && c.Mandator != proto.Nil && !c.TokenHere
}

func (n *Node) receiveToken(m proto.Message, out *proto.Output) {
	c := &n.core
	if !n.cfg.Bare && (m.Stamp < c.Gen || n.quietSeq != 0) {
		// Older than a generation we know, or sent to us before we
		// recovered (it may be older than a generation announced while we
		// were down): lost, as a token sent to a crashed node is.
		out.Events[EvStaleToken]++
		return
	}
	if !m.J.IsNil() && (!c.Asked || (m.Tag != c.Tag && !n.cfg.Paper)) {
		// Not waiting for this loan: a loan for a request that was served
		// already (a request re-issued after a search, served twice), or
		// for a request of ours from before a crash while we now ask for
		// another (a loan serves one request, and every node it passes
		// through serves that same one: a serial that differs means the
		// loan is not ours to use or pass on; two nodes that took each
		// other for their mandators after crashes passed such a token
		// back and forth while its lender, told it was lost, made a
		// second). It goes back to its lender at once, and nothing else
		// changes: the node's father may have changed since it asked (it
		// was transit for a son), and a search it runs goes on.
		out.Events[EvUnexpectedToken]++
		c.Gen = m.Stamp
		n.send(out, proto.Message{Type: scheme.Token, To: m.J.Node(), Src: m.Src, Stamp: m.Stamp, Tag: m.Tag})
		return
	}
	n.stopSearch()
	switch {
	case c.Asked:
		n.suspectSeq, n.loanSeq, n.enquirySeq = 0, 0, 0
		gift := m.J.IsNil() && c.Mandator != proto.Nil
		c.ReceiveToken(m, out)
		if gift {
			// Its sender gave the token up to us: it is our son now.
			n.setSon(n.dist(m.From), m.From)
		}
	default:
		// Not waiting, a token given up (token(nil)) for a request served
		// already: it makes this node the root (its sender made this node
		// its father).
		out.Events[EvUnexpectedToken]++
		c.Gen = m.Stamp
		c.TokenHere, c.Lender, c.Father = true, c.ID, proto.Nil
		n.setSon(n.dist(m.From), m.From)
	}
}

// receiveTest answers test(d) from j (§5, search_father and concurrent searches).
func (n *Node) receiveTest(m proto.Message, out *proto.Output) {
	d, j := int(m.Phase), m.From
	answer := func(r uint8) {
		n.send(out, proto.Message{Type: Answer, Cause: proto.Failure, To: j, Phase: m.Phase, Reply: r})
	}
	if n.searching {
		switch {
		case n.phase > d:
			answer(AnswerOK)
		case n.phase < d && n.cfg.Paper:
			n.conclude(j, out)
		case n.phase < d:
			// J's phases below d failed: j heads its (d−1)-subcube, and
			// makes the head of ours its son of power d−1. Whether we are
			// that head, our phases below d tell (a head there answers
			// "ok"; another searcher there is resolved by the rules
			// above). Concluding at once, as the paper does, let two
			// searchers of our subcube both become j's sons of power d−1.
			// The closest such searcher wins, then the smallest id.
			if n.adoptPhase == 0 || d < n.adoptPhase || (d == n.adoptPhase && j < n.adopter) {
				n.adopter, n.adoptPhase = j, d
			}
		case n.core.ID < j:
			answer(AnswerOK)
		case !n.cfg.SilentTie:
			// Equal phases, and j has the smaller id: j becomes our
			// father, as §5 states. Our test may never reach it (j was
			// down or not searching yet when we sent it): j's test is
			// as good a sign, so conclude now. With SilentTie we stay
			// silent and search on, the mechanism of §5's example.
			n.conclude(j, out)
		}
		return
	}
	switch {
	case n.rule.Power(&n.core) >= d:
		answer(AnswerOK)
	case n.core.Asked && n.cfg.Paper:
		// The paper: an asking node's power may grow once its request is
		// served, so it says "try later" and is tested again. The
		// project's protocol has it stay silent, like any node of a power
		// below d: waiting for it can wait for ever (its request may wait,
		// through live holders, on this very search), and the head of
		// that half of the cube, of power ≥ d, answers "ok" even while it
		// asks (docs/failures.md).
		n.send(out, proto.Message{Type: Answer, Cause: proto.Failure, To: j, Phase: m.Phase, Reply: AnswerTryLater, J: proto.RefTo(n.core.Father)})
	}
}

func (n *Node) fire(t proto.Timer, out *proto.Output) {
	switch t.Kind {
	case timerSuspect:
		n.deadline(t, out)
	case timerBeat:
		n.beat(t, out)
	case timerLoan:
		if t.Seq == n.loanSeq && n.lending() {
			out.Events[EvEnquiry]++
			n.send(out, proto.Message{Type: Enquiry, Cause: proto.Failure, To: n.loanSrc, Tag: n.loanTag, Src: proto.RefTo(n.loanSrc)})
			n.enquirySeq = n.timer(out, timerEnquiry, n.roundTrip())
		}
	case timerEnquiry:
		if t.Seq == n.enquirySeq && n.lending() {
			n.reclaim(out) // no answer within 2.5δ: the source is down
		}
	case timerPhase:
		if t.Seq != n.phaseSeq || !n.searching {
			return
		}
		if len(n.retry) > 0 {
			n.phaseSeq = n.timer(out, timerRetest, n.cfg.RetestDelay)
			return
		}
		n.phase++
		n.startPhase(out)
	case timerConfirm:
		if t.Seq == n.phaseSeq && n.confirming {
			n.stopSearch()
			n.core.Father = proto.Nil
			n.regenerate(out)
		}
	case timerQuiet:
		if t.Seq == n.quietSeq {
			n.quietSeq = 0
		}
	case timerProbe:
		if t.Seq == n.probeSeq {
			n.probed(false, out)
		}
	case timerRetest:
		if t.Seq != n.phaseSeq || !n.searching {
			return
		}
		for _, k := range n.retry {
			n.test(k, out)
		}
		n.retry = n.retry[:0]
		n.phaseSeq = n.timer(out, timerPhase, n.roundTrip())
	}
}

// firstPhase is the phase at which a suspicion or an anomaly starts
// search_father: 1, or power(i)+1 with Config.PaperStart.
func (n *Node) firstPhase() int {
	if n.cfg.PaperStart {
		return n.rule.Power(&n.core) + 1
	}
	return 1
}

// startSearch starts search_father at phase d.
func (n *Node) startSearch(d int, out *proto.Output) {
	out.Events[EvSearchStarted]++
	if !n.searching {
		n.searchPower = n.rule.Power(&n.core)
	}
	n.searching, n.phase, n.suspectSeq, n.confirming = true, d, 0, false
	n.adopter, n.adoptPhase = proto.Nil, 0
	n.probeSeq = 0
	n.startPhase(out)
}

// startPhase sends test(d) to the 2^(d−1) nodes at distance d, or, after
// phase pmax, makes the node the root. If a searcher at distance d tested
// this node in phase d while it searched a lower phase, the search
// concludes with that father instead (receiveTest).
func (n *Node) startPhase(out *proto.Output) {
	if n.adoptPhase != 0 && n.phase >= n.adoptPhase {
		n.conclude(n.adopter, out)
		return
	}
	if n.phase > n.rule.PMax {
		n.becomeRoot(out)
		return
	}
	out.Events[EvSearchPhase]++
	n.retry = n.retry[:0]
	lo, hi := hypercube.AtDistance(int(n.core.ID), n.phase)
	for k := lo; k < hi; k++ {
		n.test(proto.NodeID(k), out)
	}
	n.phaseSeq = n.timer(out, timerPhase, n.roundTrip())
}

// test sends test(phase) to node k. It carries the node's incarnation: a
// requester whose request this node held before it crashed learns from it
// that the request is lost (holderRecovered in watch.go).
func (n *Node) test(k proto.NodeID, out *proto.Output) {
	n.send(out, proto.Message{Type: Test, Cause: proto.Failure, To: k, Phase: uint8(n.phase), Stamp: uint64(n.inc)})
}

func (n *Node) stopSearch() {
	n.searching, n.phaseSeq, n.confirming = false, 0, false
	n.adopter, n.adoptPhase = proto.Nil, 0
	n.retry = n.retry[:0]
}

// conclude ends the search with father := k and issues the pending request
// again to k.
func (n *Node) conclude(k proto.NodeID, out *proto.Output) {
	n.stopSearch()
	c := &n.core
	c.Father = k
	if n.waitingToken() {
		n.reissue(k, out)
	}
	n.attached(k, out)
}

// reissue sends the request the node waits for again to k, on its own
// account, with the same serial (cause failure): after a search, or to the
// node it suspects (watch.go).
func (n *Node) reissue(k proto.NodeID, out *proto.Output) {
	c := &n.core
	n.send(out, proto.Message{Type: scheme.Request, Cause: proto.Failure, To: k, J: proto.RefTo(c.ID), Src: proto.RefTo(c.Src), Stamp: c.Gen, Tag: c.Tag})
}

// becomeRoot ends a search whose last phase failed: the node will become
// the root and regenerate the token. The paper regenerates at once; we first
// announce the new generation to every node and regenerate only if no node
// answers that it holds the token within 2δ (docs/failures.md: a token that
// moves during a long search can escape its tests).
func (n *Node) becomeRoot(out *proto.Output) {
	out.Events[EvSearchRoot]++
	n.announce(out)
}

// reclaim regenerates the token of a root whose loan is lost: the source
// of the loan answered that it never got it, or that it sent it back twice
// without the token coming, or did not answer (it is down). As the paper
// argues, under δ that token is lost: a loan goes through at most pmax
// proxies to the source, which enters the critical section at once and
// sends it back to this root only, so by the time of the enquiry it would
// have come back or be in the source's critical section. No broadcast is
// needed: the only node the old token could still reach is this one, and
// the new generation makes it discard it (docs/failures.md). With
// Config.Paper the root regenerates in the same way (the paper's rule).
func (n *Node) reclaim(out *proto.Output) {
	n.loanSeq, n.enquirySeq, n.sentBack = 0, 0, false
	n.core.Father = proto.Nil
	n.regenerate(out)
}

// announce starts the confirmation that precedes every regeneration: the
// new generation goes to every node, and the token is regenerated 2δ later
// unless a node answers that it holds the token or knows a newer generation
// (docs/failures.md).
func (n *Node) announce(out *proto.Output) {
	if n.cfg.Bare {
		n.stopSearch()
		n.core.Father = proto.Nil
		n.regenerate(out)
		return
	}
	n.confirming = true
	// The enquiry (or loan) that led here is over: its timer must not
	// announce a second time.
	n.loanSeq, n.enquirySeq = 0, 0
	gen := nextGen(max(n.core.Gen, n.announced), n.core.ID)
	n.announced = gen
	for k := 0; k < 1<<n.rule.PMax; k++ {
		if proto.NodeID(k) != n.core.ID {
			n.send(out, proto.Message{Type: Regenerate, Cause: proto.Failure, To: proto.NodeID(k), Stamp: gen})
		}
	}
	n.phaseSeq = n.timer(out, timerConfirm, n.roundTrip())
}

// regenerate creates a token of a new generation at this node, as if it had
// received token(nil) from itself: a lender gets its token back, a node
// asking for itself enters the CS, a proxy lends it to its mandator.
func (n *Node) regenerate(out *proto.Output) {
	out.Events[EvTokenRegenerated]++
	c := &n.core
	n.suspectSeq, n.loanSeq, n.enquirySeq = 0, 0, 0
	start := len(out.Msgs)
	tok := proto.Message{Type: scheme.Token, From: c.ID, To: c.ID, Stamp: max(nextGen(c.Gen, c.ID), n.announced), Src: proto.RefTo(c.Src), Tag: c.Tag}
	if !c.Asked {
		c.TokenHere, c.Lender, c.Father, c.Gen = true, c.ID, proto.Nil, tok.Stamp
		return
	}
	c.ReceiveToken(tok, out)
	for k := start; k < len(out.Msgs); k++ {
		out.Msgs[k].Cause = proto.Failure
	}
}

// nextGen returns the generation of a token that node id regenerates when
// the newest generation it knows is gen: a counter above gen's in the high
// 32 bits and id+1 in the low ones, so that two nodes never create the same
// generation and every node can order them.
func nextGen(gen uint64, id proto.NodeID) uint64 {
	return (gen>>32+1)<<32 | uint64(id+1)
}

// Crash implements proto.Crasher: it wipes the node's volatile state and
// counts the requests it held as lost. pmax and dist (the rule and the id)
// survive, and so do the token generation (docs/failures.md), the
// incarnation and the timer numbers.
func (n *Node) Crash(out *proto.Output) {
	out.Events[EvRequestLost] += int32(n.core.Queued())
	gen := n.core.Gen
	rule := n.core.Rule()
	id := n.core.ID
	n.core = scheme.Node{}
	n.core.Init(rule, id, 1<<n.rule.PMax)
	n.core.TokenHere, n.core.Lender, n.core.Father = false, proto.Nil, proto.Nil
	n.core.Gen = gen
	*n = Node{Life: n.Life, core: n.core, rule: n.rule, cfg: n.cfg, seq: n.seq, inc: n.inc, announced: n.announced, holder: proto.Nil, againFor: proto.Nil, reattachFrom: proto.Nil}
}

// Recover implements proto.Recoverer: the node restarts as a leaf, in a new
// incarnation, that searches its father from phase 1. For 2δ it discards
// every token and issues no request of its own: a token that reaches it
// then may have been sent before it recovered, while a regeneration it did
// not hear of was being confirmed (docs/failures.md).
func (n *Node) Recover(out *proto.Output) {
	n.inc++
	if !n.cfg.Bare {
		n.quietSeq = n.timer(out, timerQuiet, n.roundTrip())
	}
	n.startSearch(1, out)
}
