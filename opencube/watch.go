package opencube

import (
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
)

// Failure detection: suspect the node that holds your request, not the
// clock (docs/failures.md, "Detection").
//
// A request is always in one of three places: on its way (at most pmax hops,
// since every transit hop takes it one unit farther from its requester), held
// by a node (queued there, or served there as a proxy), or served (the token,
// or an anomaly, is on its way to the requester). A node that still holds a
// request P = 2·pmax·δ after it received it sends the requester a heartbeat
// (a wait message), and then again after 2P, 4P, 8P ...: the gaps double, so
// a request held for a time w costs about log2(w/P) heartbeats, and none at
// all when it is served within P (light load). Each heartbeat says when the
// next one is due. The requester waits for news (a heartbeat, the token, an
// anomaly) until a deadline that covers the longest way its request can take
// from a live holder to the next one (pmax holders, each holding it less
// than P without a word, and pmax hops) plus δ of margin; only if that
// deadline passes in silence does it suspect a failure and search. While δ
// holds and no node crashes, some news always comes first: no false
// suspicion, at any load. With Config.Paper the requester suspects on the
// paper's clock instead (2·pmax·δ after it asked), with no heartbeat.

// beatPeriod is P, in δ: the first heartbeat of a held request comes P after
// the holder received it.
func (n *Node) beatPeriod() float64 { return float64(2 * max(n.rule.PMax, 1)) }

// window is W, in δ: how long a requester waits for news of its request
// beyond the time its holder promised. A request moves through at most pmax
// holders after it was sent (or after its holder's last heartbeat); each
// holds it less than P without a heartbeat and passes it on in one hop of at
// most δ, and the news takes one more hop. One δ of margin makes a delay of
// exactly δ safe when a timer and a delivery fall on the same instant.
func (n *Node) window() float64 {
	return float64(n.rule.PMax)*(n.beatPeriod()+1) + 2
}

// watch starts waiting for news of the request this node has just sent on
// its own account: the deadlines of earlier sends are void.
func (n *Node) watch(out *proto.Output) {
	n.holder, n.holderInc = proto.Nil, 0
	n.suspectSeq, n.pending = n.next(), 0
	if n.cfg.Paper {
		n.expect(out, float64(2*n.rule.PMax))
		return
	}
	n.expect(out, n.window())
}

// expect adds a deadline after·δ from now. The node suspects a failure only
// when every deadline of its current request has passed.
func (n *Node) expect(out *proto.Output, after float64) {
	n.pending++
	out.Timers = append(out.Timers, proto.Timer{Kind: timerSuspect, Seq: n.suspectSeq, After: after})
}

// deadline is a deadline's timer: if it was the last one pending and the
// node still waits for the token without searching, it suspects its
// request's holder (or, if none has spoken, the way to it) and searches.
func (n *Node) deadline(t proto.Timer, out *proto.Output) {
	if t.Seq != n.suspectSeq || n.suspectSeq == 0 {
		return
	}
	if n.pending--; n.pending > 0 || !n.waitingToken() || n.searching {
		return
	}
	out.Suspect = proto.Suspicion{Yes: true, Of: n.holder, Inc: n.holderInc, Window: t.After}
	out.Events[EvSuspicion]++
	if !n.again(out) {
		n.startSearch(n.firstPhase(), out)
	}
}

// again is a requester's first answer to a suspicion: before it searches,
// it sends its request again (same serial, cause failure) to the node it
// suspects, the holder that last spoke or, if none has, its father, and
// waits for news as after any request. A holder that crashed and recovered
// takes the request as a son's if the requester is within its power (a
// recovered node finds its former power again, as its sons find when they
// ask only after it recovered), or while it searches; otherwise it rejects
// it at once with an anomaly and the requester searches; one that still
// holds it drops the copy and starts its heartbeats again. If the node is
// still down, the next deadline passes in silence and the requester
// searches: a request is sent again once (docs/failures.md, "Sending a
// request again before searching"). It reports whether it sent it.
func (n *Node) again(out *proto.Output) bool {
	c := &n.core
	if n.cfg.Paper || (n.againTag == c.Tag && n.againFor == c.Mandator) {
		return false
	}
	x := n.holder
	if x == proto.Nil {
		x = c.Father
	}
	if x == proto.Nil || x == c.ID {
		return false
	}
	n.againTag, n.againFor = c.Tag, c.Mandator
	n.reissue(x, out)
	return true
}

// heartbeat is a holder's word that it holds this node's request: the next
// news is due within P·2^Phase, plus the window.
func (n *Node) heartbeat(m proto.Message, out *proto.Output) {
	if n.cfg.Paper || n.suspectSeq == 0 || n.searching || !n.waitingToken() || m.Tag != n.core.Tag {
		return
	}
	n.holder, n.holderInc = m.From, uint32(m.Stamp)
	n.expect(out, n.beatPeriod()*float64(uint64(1)<<min(m.Phase, 40))+n.window())
	if m.Phase >= chaseFrom && (m.Phase-chaseFrom)%2 == 0 {
		n.send(out, proto.Message{Type: Chase, Cause: proto.Liveness, To: m.From, J: proto.RefTo(n.core.ID), Phase: 1, Tag: n.core.Tag, Stamp: uint64(n.core.Tag)})
	}
}

// chaseFrom is the first heartbeat after which a requester chases its wait
// (and every second one after it): it has then waited at least
// (2^chaseFrom − 1)·P.
const chaseFrom = 4

// chaseHops bounds how far a chase goes: longer than any chain of waits
// in an open-cube (about 2·pmax), short enough that a chase caught in a
// cycle that does not contain its initiator soon dies.
func (n *Node) chaseHops() uint8 { return uint8(min(1<<n.rule.PMax, 4*n.rule.PMax+8, 255)) }

// chase handles a probe of a long-waiting requester (edge chasing, as in
// Chandy, Misra and Haas's deadlock detection): each node that waits passes
// it to the node that holds its own request. After crashes, searches can
// close a cycle of nodes that each hold the next one's request; each is
// alive and sends heartbeats, so no deadline ever passes. A chase that
// comes back to its initiator shows the cycle, and the initiator searches a
// father again. Without failures there is no cycle and a chase dies at the
// end of the chain (the node holding or lending the token, or a searcher).
//
// A chase carries, beside its initiator's id and serial (J, Tag), the serial
// of its last hop's own request (Stamp): each node passes it on only if it
// still holds that request. A requester learns of its holder from
// heartbeats, and its request may have moved on since the last one; a chase
// that followed such a stale edge could come back through nodes that no
// longer wait on one another (a false cycle, each costing a search).
func (n *Node) chase(m proto.Message, out *proto.Output) {
	if n.cfg.Paper || n.searching || !n.waitingToken() || !n.core.Holds(m.From, uint32(m.Stamp)) {
		return
	}
	if m.J.Is(n.core.ID) {
		if m.Tag == n.core.Tag {
			out.Events[EvWaitCycle]++
			if !n.rejectInCycle(m.From, uint32(m.Stamp), out) {
				n.startSearch(n.firstPhase(), out)
			}
		}
		return
	}
	if n.holder == proto.Nil || m.Phase >= n.chaseHops() {
		return
	}
	m.To, m.Phase, m.Stamp = n.holder, m.Phase+1, uint64(n.core.Tag)
	n.send(out, m)
}

// hold starts the heartbeats of request (j, tag), which this node has just
// received and still holds at the end of its step.
func (n *Node) hold(j proto.NodeID, tag uint32, out *proto.Output) {
	if n.cfg.Paper || j == n.core.ID {
		return
	}
	out.Timers = append(out.Timers, proto.Timer{Kind: timerBeat, Seq: tag, Arg: j, After: n.beatPeriod()})
}

// beat is the timer of a held request: if the node still holds it, it tells
// the requester so, and when the next heartbeat is due (twice the gap).
func (n *Node) beat(t proto.Timer, out *proto.Output) {
	j, tag := t.Arg, t.Seq
	if !n.core.Holds(j, tag) {
		return
	}
	next := 2 * t.After
	e := uint8(0)
	for p := n.beatPeriod(); p < next && e < 40; p *= 2 {
		e++
	}
	n.send(out, proto.Message{Type: Wait, Cause: proto.Liveness, To: j, J: proto.RefTo(n.core.ID), Phase: e, Stamp: uint64(n.inc), Tag: tag})
	out.Timers = append(out.Timers, proto.Timer{Kind: timerBeat, Seq: tag, Arg: j, After: next})
}

// rejectInCycle is the answer of a node whose chase came back from j, the
// node whose request (serial tag) it holds, when that request comes from
// beyond its power: it rejects the request at once with an anomaly, as it
// would when serving it, and reports that it did. Along a chain of waits
// in an open-cube every holder is its requester's father, of a power at
// least their distance, so powers strictly increase along it; a cycle of
// waits therefore has at least one edge where they do not, a holder with
// a request from beyond its power, which it would reject if it ever served
// it, and it never does since it waits itself. Crashes leave such an edge
// when a node serves as transit a request its requester issued before it
// crashed: it takes the requester for its father, while the requester, now
// the son of another node, sends the loan for that old request back to its
// lender (receiveToken) and so never becomes the head of that subcube
// (docs/failures.md, "Cycles of waits"). A search by the requester would
// find its own father again, still in the cycle; the anomaly makes j search
// instead, and j finds a father outside it.
func (n *Node) rejectInCycle(j proto.NodeID, tag uint32, out *proto.Output) bool {
	if n.rule.OnRequest(&n.core, j) != scheme.Reject {
		return false
	}
	from, src, ok := n.core.Remove(j, tag)
	if !ok {
		return false
	}
	out.Events[EvAnomaly]++
	n.send(out, scheme.NewAnomaly(j, from, src, tag))
	return true
}

// holderRecovered is a waiting requester's reading of test(d) from node k
// carrying k's incarnation inc: if k is the node that last said it holds
// the request, and has recovered since (a newer incarnation), the request
// was lost with k's volatile state. The requester suspects at once, as if
// its deadline had passed, instead of waiting for it: after a long wait the
// deadline is as far away as the wait was long (the heartbeats' gaps
// double), and the run would stand still that long. A recovered node's
// search tests its former sons first (phase 1 upward), and so reaches the
// requesters it held requests for before it reaches its father.
func (n *Node) holderRecovered(k proto.NodeID, inc uint32, out *proto.Output) {
	if n.cfg.Paper || n.suspectSeq == 0 || n.searching || !n.waitingToken() || k != n.holder || inc <= n.holderInc {
		return
	}
	out.Suspect = proto.Suspicion{Yes: true, Of: n.holder, Inc: n.holderInc}
	out.Events[EvSuspicion]++
	if !n.again(out) {
		n.startSearch(n.firstPhase(), out)
	}
}
