package mishrasrimani

import (
	"math"
	"slices"

	"github.com/ocbench/ocbench/algo/suzukikasami"
	"github.com/ocbench/ocbench/proto"
)

// The timers (proto.Timer.Kind).
const (
	timerWait    uint8 = iota // the token did not come: check for it
	timerCheck                // the answers to PRIVILEGE_CHECK are in
	timerCreate               // the answers to CREATE_PRIVILEGE are in
	timerObserve              // another node's regeneration said nothing for too long
	timerSync                 // a recovered node's restart answers are in
	numTimers
)

// The phases of a node's own regeneration.
const (
	idle     uint8 = iota
	checking       // PRIVILEGE_CHECK sent, counting NO_CRIT
	creating       // CREATE_PRIVILEGE sent, collecting UPDATE
)

// Node is one node of Mishra–Srimani: a Suzuki–Kasami node (embedded; it
// handles requests, the token and the critical section) with the failure
// protocol around it.
type Node struct {
	suzukikasami.Node
	ft   *Config // nil: failure-free
	wait float64 // the token time-out, in δ
	proto.Life
	gen     uint64 // the newest token generation the node knows
	phase   uint8
	syncing bool // recovered, waiting for the restart answers

	// A request made while syncing, sent when the node knows its number.
	pending    bool
	pendingTag uint32

	observing proto.NodeID // the checker whose regeneration the node waits on (Nil: none)
	expired   bool         // the token time-out fired while observing

	// The node's own regeneration.
	round    int64  // the number of its latest PRIVILEGE_CHECK
	proposal uint64 // the generation it proposed in CREATE_PRIVILEGE
	answers  int    // NO_CRIT (checking) or UPDATE (creating) answers counted
	newest   uint64 // the newest generation named by a NO_CRIT
	got      []bool // got[k]: k's answer is counted
	updRN    []int64
	updTag   []uint32
	updAsk   []bool

	// Syncing: the token that arrived meanwhile, and the largest own
	// request number the others knew.
	aside    proto.Message
	hasAside bool
	syncRN   int64

	seq [numTimers]uint32
}

func (nd *Node) init(id proto.NodeID, n int, ft *Config) {
	*nd = Node{ft: ft, observing: proto.Nil}
	nd.Node.Init(id, n)
	if ft != nil {
		nd.wait = ft.Wait(n)
		nd.got = make([]bool, n)
		nd.updRN = make([]int64, n)
		nd.updTag = make([]uint32, n)
		nd.updAsk = make([]bool, n)
	}
}

// nextGen is the generation that node id proposes after generation g: a
// larger counter in the high bits, the proposer's id in the low 20, so
// that two proposals never coincide.
func nextGen(g uint64, id proto.NodeID) uint64 { return ((g>>20)+1)<<20 | uint64(id) }

// Gen returns the newest token generation the node knows.
func (nd *Node) Gen() uint64 { return nd.gen }

// View implements proto.Node. A node that is down shows nothing (the
// token it held is lost with it); a node that is syncing reports the
// largest generation: it takes no token until it knows the current one.
func (nd *Node) View() proto.View {
	if !nd.Up() {
		return proto.View{Gen: nd.gen}
	}
	v := nd.Node.View()
	v.Up, v.Gen = nd.Up(), nd.gen
	if nd.syncing {
		v.Gen = math.MaxUint64
	}
	if nd.pending {
		v.Asked, v.Tag = true, nd.pendingTag
	}
	return v
}

// Waiting implements proto.Node.
func (nd *Node) Waiting(f func(j proto.NodeID)) {
	if nd.pending {
		f(nd.ID())
	}
	nd.Node.Waiting(f)
}

func (nd *Node) waiting() bool { return nd.Asked && !nd.InCS && !nd.TokenHere }

// Step implements proto.Node.
func (nd *Node) Step(in proto.Input, out *proto.Output) {
	switch in.Kind {
	case proto.EnterCS:
		if nd.syncing {
			if !nd.pending && !nd.Asked {
				nd.pending, nd.pendingTag = true, in.Tag
			}
			return
		}
		nd.base(in, out)
		if nd.ft != nil && nd.waiting() {
			nd.setTimer(timerWait, nd.wait, out)
		}
	case proto.ExitCS:
		nd.base(in, out)
	case proto.Receive:
		nd.receive(in.Msg, out)
	case proto.Fire:
		if in.Timer.Kind < numTimers && in.Timer.Seq == nd.seq[in.Timer.Kind] {
			nd.fire(in.Timer.Kind, out)
		}
	}
}

// Recover implements proto.Recoverer.
func (nd *Node) Recover(out *proto.Output) {
	nd.restart(out)
}

// base steps the embedded Suzuki–Kasami node, stamps the tokens it sends
// with the node's generation, and stops the token time-out once the
// request is served.
func (nd *Node) base(in proto.Input, out *proto.Output) {
	k := len(out.Msgs)
	nd.Node.Step(in, out)
	for i := k; i < len(out.Msgs); i++ {
		if out.Msgs[i].Type == Token {
			out.Msgs[i].Stamp = nd.gen
		}
	}
	if !nd.waiting() {
		nd.seq[timerWait]++
		nd.expired = false
	}
}

func (nd *Node) setTimer(kind uint8, after float64, out *proto.Output) {
	nd.seq[kind]++
	out.Timers = append(out.Timers, proto.Timer{Kind: kind, Seq: nd.seq[kind], Arg: proto.Nil, After: after})
}

func (nd *Node) stopTimer(kind uint8) { nd.seq[kind]++ }

// send sends a failure-protocol message to j.
func (nd *Node) send(t proto.MsgType, j proto.NodeID, gen uint64, reply uint8, payload []int64, out *proto.Output) {
	out.Msgs = append(out.Msgs, proto.Message{Type: t, Cause: proto.Failure, Reply: reply, From: nd.ID(), To: j,
		Stamp: gen, Payload: payload})
}

// broadcast sends a failure-protocol message to every other node.
func (nd *Node) broadcast(t proto.MsgType, gen uint64, payload []int64, out *proto.Output) {
	for j := range proto.NodeID(nd.N()) {
		if j != nd.ID() {
			nd.send(t, j, gen, 0, payload, out)
		}
	}
}

func (nd *Node) receive(m proto.Message, out *proto.Output) {
	switch m.Type {
	case Request:
		nd.base(proto.Input{Kind: proto.Receive, Msg: m}, out)
	case Token:
		nd.token(m, out)
	case PrivilegeCheck:
		nd.privilegeCheck(m, out)
	case RepCritical:
		if nd.phase == checking && len(m.Payload) == 1 && m.Payload[0] == nd.round {
			// The token exists: a false alarm. Tell the holder the request
			// again, in case it never heard it.
			nd.abort(nd.wait, out)
			if nd.waiting() {
				r, tag := nd.RN(nd.ID())
				out.Msgs = append(out.Msgs, proto.Message{Type: Request, Cause: proto.Failure, From: nd.ID(), To: m.From,
					Stamp: uint64(r), Tag: tag})
			}
		}
	case NoCrit:
		if nd.phase == checking && len(m.Payload) == 1 && m.Payload[0] == nd.round && !nd.got[m.From] {
			nd.got[m.From] = true
			nd.answers++
			nd.newest = max(nd.newest, m.Stamp)
			if nd.answers >= max(nd.N()-2, 1) {
				nd.create(out)
			}
		}
	case FalseAlarm, Recovered:
		if m.Type == Recovered {
			nd.gen = max(nd.gen, m.Stamp)
		}
		if nd.observing != proto.Nil {
			nd.observing = proto.Nil
			nd.stopTimer(timerObserve)
		}
		if nd.phase == idle && nd.waiting() {
			nd.expired = false
			nd.setTimer(timerWait, nd.wait, out)
		}
	case CreatePrivilege:
		nd.createPrivilege(m, out)
	case Update:
		nd.update(m, out)
	case Restart:
		r, tag := nd.RN(nd.ID())
		rj, _ := nd.RN(m.From)
		rj = max(rj, nd.LN(m.From)) // the holder knows j's last grant
		nd.send(RestartReply, m.From, nd.gen, 0, []int64{r, int64(tag), rj}, out)
	case RestartReply:
		if nd.syncing && len(m.Payload) == 3 {
			nd.gen = max(nd.gen, m.Stamp)
			nd.learn(m.From, m.Payload[0], uint32(m.Payload[1]), out)
			nd.syncRN = max(nd.syncRN, m.Payload[2])
		}
	}
}

// learn records k's request number r (of serial tag), as a request from
// k would.
func (nd *Node) learn(k proto.NodeID, r int64, tag uint32, out *proto.Output) {
	nd.base(proto.Input{Kind: proto.Receive, Msg: proto.Message{Type: Request, From: k, To: nd.ID(), Stamp: uint64(r), Tag: tag}}, out)
}

// token receives the token: a syncing node sets it aside, a node that
// knows a newer generation discards it.
func (nd *Node) token(m proto.Message, out *proto.Output) {
	if nd.ft == nil {
		nd.base(proto.Input{Kind: proto.Receive, Msg: m}, out)
		return
	}
	if nd.syncing {
		if nd.hasAside {
			out.Events[EvStaleToken]++
		}
		nd.aside, nd.hasAside = m, true
		nd.aside.Payload = slices.Clone(m.Payload) // kept: a copy
		return
	}
	if m.Stamp < nd.gen {
		out.Events[EvStaleToken]++
		return
	}
	nd.gen = m.Stamp
	nd.base(proto.Input{Kind: proto.Receive, Msg: m}, out)
	if nd.phase != idle {
		nd.abort(nd.wait, out) // the token came while checking: a false alarm
	}
}

func (nd *Node) privilegeCheck(m proto.Message, out *proto.Output) {
	if len(m.Payload) != 1 {
		return
	}
	j := m.From
	if nd.TokenHere {
		nd.send(RepCritical, j, nd.gen, 0, m.Payload, out)
		return
	}
	if nd.phase != idle {
		if j > nd.ID() {
			return // j stops when it hears this node's check
		}
		out.Events[EvStopped]++ // a smaller-numbered checker: stop
		nd.phase = idle
		nd.stopTimer(timerCheck)
		nd.stopTimer(timerCreate)
		nd.expired = nd.waiting()
	}
	nd.send(NoCrit, j, nd.gen, 0, m.Payload, out)
	nd.observing = j
	nd.setTimer(timerObserve, ObserveWait, out)
}

func (nd *Node) createPrivilege(m proto.Message, out *proto.Output) {
	g, j := m.Stamp, m.From
	aside := nd.syncing && nd.hasAside && nd.aside.Stamp >= g
	switch {
	case nd.TokenHere || aside:
		// The token exists: it takes the proposed generation.
		nd.gen = max(nd.gen, g)
		if aside {
			nd.aside.Stamp = nd.gen
		}
		nd.send(Update, j, g, ReplyHolder, nil, out)
		return
	case g < nd.gen:
		nd.send(Update, j, g, ReplyNewer, []int64{int64(nd.gen)}, out)
		return
	}
	if nd.phase != idle { // a newer proposal than its own: it gives way
		out.Events[EvStopped]++
		nd.phase = idle
		nd.stopTimer(timerCheck)
		nd.stopTimer(timerCreate)
		nd.expired = nd.waiting()
	}
	nd.gen = g
	if nd.syncing && nd.hasAside {
		out.Events[EvStaleToken]++ // older than g
		nd.hasAside = false
	}
	r, tag := nd.RN(nd.ID())
	asking := int64(0)
	if nd.waiting() {
		asking = 1
	}
	nd.send(Update, j, g, ReplyUpdate, []int64{r, int64(tag), asking}, out)
	nd.observing = j
	nd.setTimer(timerObserve, ObserveWait, out)
}

func (nd *Node) update(m proto.Message, out *proto.Output) {
	k := m.From
	if nd.phase != creating || m.Stamp != nd.proposal || nd.got[k] {
		return
	}
	nd.got[k] = true
	switch m.Reply {
	case ReplyHolder:
		out.Events[EvFalseAlarm]++
		nd.abort(nd.wait, out)
	case ReplyNewer:
		out.Events[EvRefused]++
		if len(m.Payload) == 1 {
			nd.gen = max(nd.gen, uint64(m.Payload[0]))
		}
		nd.abort(RetryWait, out)
	case ReplyUpdate:
		if len(m.Payload) != 3 {
			return
		}
		nd.updRN[k], nd.updTag[k], nd.updAsk[k] = m.Payload[0], uint32(m.Payload[1]), m.Payload[2] == 1
		nd.answers++
		if nd.answers == nd.N()-1 {
			nd.regenerate(out)
		}
	}
}

func (nd *Node) fire(kind uint8, out *proto.Output) {
	switch kind {
	case timerWait:
		if !nd.waiting() || nd.phase != idle {
			return
		}
		if nd.observing != proto.Nil {
			out.Events[EvWaitStalled]++
			nd.expired = true // wait for the other's outcome
			return
		}
		out.Suspect = proto.Suspicion{Yes: true, Of: proto.Nil, Window: nd.wait}
		nd.check(out)
	case timerObserve:
		nd.observing = proto.Nil
		if nd.expired && nd.waiting() && nd.phase == idle {
			nd.expired = false
			nd.check(out)
		}
	case timerCheck:
		if nd.phase != checking {
			return
		}
		if !nd.waiting() {
			nd.abort(0, out)
			return
		}
		nd.create(out) // fewer than N−2 answers: several nodes are down
	case timerCreate:
		if nd.phase == creating {
			nd.regenerate(out) // the nodes that did not answer are down
		}
	case timerSync:
		nd.synced(out)
	}
}

// check starts a regeneration: PRIVILEGE_CHECK(j) to every node.
func (nd *Node) check(out *proto.Output) {
	out.Events[EvCheck]++
	nd.phase = checking
	nd.round++
	nd.answers, nd.newest = 0, nd.gen
	clear(nd.got)
	nd.broadcast(PrivilegeCheck, nd.gen, []int64{nd.round}, out)
	nd.setTimer(timerCheck, ReplyWait, out)
}

// create sends CREATE_PRIVILEGE with a new generation, which the node
// takes at once.
func (nd *Node) create(out *proto.Output) {
	nd.stopTimer(timerCheck)
	nd.phase = creating
	nd.proposal = nextGen(max(nd.gen, nd.newest), nd.ID())
	nd.gen = nd.proposal
	nd.answers = 0
	clear(nd.got)
	nd.broadcast(CreatePrivilege, nd.proposal, nil, out)
	nd.setTimer(timerCreate, ReplyWait, out)
}

// abort ends the node's regeneration: it tells the others (a false alarm)
// and waits for the token again, for after δ.
func (nd *Node) abort(after float64, out *proto.Output) {
	nd.phase = idle
	nd.stopTimer(timerCheck)
	nd.stopTimer(timerCreate)
	nd.broadcast(FalseAlarm, nd.gen, nil, out)
	if nd.waiting() {
		if after == 0 {
			after = nd.wait
		}
		nd.setTimer(timerWait, after, out)
	}
}

// regenerate builds the token from the UPDATE answers, takes it and
// announces the recovery.
func (nd *Node) regenerate(out *proto.Output) {
	nd.stopTimer(timerCreate)
	nd.phase = idle
	n := nd.N()
	p := make([]int64, n, 2*n)
	for k := range proto.NodeID(n) {
		if k != nd.ID() && nd.got[k] {
			nd.learn(k, nd.updRN[k], nd.updTag[k], out)
		}
	}
	for k := range proto.NodeID(n) {
		r, _ := nd.RN(k)
		switch {
		case k == nd.ID():
			if nd.waiting() {
				r-- // granted now
			}
		case nd.got[k] && nd.updAsk[k]:
			r = nd.updRN[k] - 1
			p = append(p, suzukikasami.Entry(k, nd.updTag[k]))
		case nd.got[k]:
			r = nd.updRN[k] // a request made since the UPDATE is pending
		}
		p[k] = r // RN[k] as learned: a node that did not answer is down, its request given up
	}
	out.Events[EvTokenRegenerated]++
	nd.broadcast(Recovered, nd.gen, nil, out)
	nd.base(proto.Input{Kind: proto.Receive, Msg: proto.Message{Type: Token, From: nd.ID(), To: nd.ID(),
		Stamp: nd.gen, Tag: nd.Tag, Payload: p}}, out)
}

// restart brings a crashed node back: empty state, no token; with the
// failure protocol it asks every node for its state and takes no token
// until the answers are in.
func (nd *Node) restart(out *proto.Output) {
	seq := nd.seq // a timer set before the crash may still fire: keep telling it stale
	nd.init(nd.ID(), nd.N(), nd.ft)
	nd.seq = seq
	nd.DropToken()
	if nd.ft == nil {
		return
	}
	out.Events[EvRestart]++
	nd.syncing = true
	nd.broadcast(Restart, 0, nil, out)
	nd.setTimer(timerSync, ReplyWait, out)
}

// synced ends a restart: the node knows its request number and the newest
// generation; it takes the token set aside if it is not older, and sends
// the request made meanwhile.
func (nd *Node) synced(out *proto.Output) {
	nd.syncing = false
	if r, _ := nd.RN(nd.ID()); nd.syncRN > r {
		nd.SetOwnRN(nd.syncRN)
	}
	if nd.hasAside {
		nd.hasAside = false
		nd.token(nd.aside, out)
	}
	if nd.pending {
		nd.pending = false
		nd.Step(proto.Input{Kind: proto.EnterCS, Tag: nd.pendingTag}, out)
	}
}
