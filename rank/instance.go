package rank

import (
	"container/heap"
	"fmt"
	"math"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/wire"
)

// instance is one run on one rank: the nodes this rank hosts, their timers
// and workload, and the rank's counters.
type instance struct {
	j     *job
	id    uint8
	spec  bench.Spec
	n     int
	delta float64
	nodes []proto.Node // all N; only the hosted ones are stepped
	local []proto.NodeID
	down  []bool
	plan  []bench.Fault

	events  eventHeap
	seq     uint64
	out     proto.Output
	queue   []queued // messages between nodes of this rank, in sending order, from qhead on
	qhead   int
	batches [][]byte // per destination rank: the frame being filled
	counts  []int    // records in batches[r]
	listed  []bool   // r is in the job's list of frames to flush

	until, settle, watch float64
	sequential           bool // the sequential workload
	stopped              bool
	doneSent             bool
	doneRanks            int // rank 0: ranks whose workload is over

	// workload
	quota      int64 // poisson, saturated: requests per node at least
	serial     uint32
	nodeIssued []int64
	busy       []bool
	inCS       []bool
	enteredAt  []float64
	reqTag     []uint32
	issuedAt   map[uint32]float64
	life       []uint32
	thinks     []uint32
	order      func() proto.NodeID // sequential
	drawn      uint32
	lastNode   proto.NodeID
	lastServed float64 // watchdog
	stuck      string

	// counters
	stats  rankReport
	perTag []uint32 // normal messages sent per request serial (the report's PerTag)
	sent   [proto.MaxMsgTypes][proto.NumCauses]int64
	// token is the algorithm's token type (proto.NoToken: none), names its
	// message types.
	token proto.MsgType
	names []proto.MessageType

	malformed    int64
	malformedErr string
	afterStop    int64
}

type queued struct {
	m    proto.Message
	sent float64
}

func newInstance(j *job, id uint8, s bench.Spec, plan []bench.Fault) *instance {
	in := &instance{j: j, id: id, spec: s, n: s.Nodes, delta: s.Delta, plan: plan,
		nodes: bench.NewNodes(s), down: make([]bool, s.Nodes),
		batches: make([][]byte, j.size), counts: make([]int, j.size), listed: make([]bool, j.size),
		settle: bench.Settle(s), watch: bench.Watchdog(s),
		issuedAt: map[uint32]float64{}, sequential: s.Workload == "sequential"}
	for _, i := range j.place.Nodes(j.rank) {
		in.local = append(in.local, proto.NodeID(i))
	}
	in.until = bench.WorkloadEnd(s, plan)
	in.quota = (s.Requests + int64(s.Nodes) - 1) / int64(s.Nodes)
	in.nodeIssued = make([]int64, s.Nodes)
	in.busy = make([]bool, s.Nodes)
	in.inCS = make([]bool, s.Nodes)
	in.enteredAt = make([]float64, s.Nodes)
	in.reqTag = make([]uint32, s.Nodes)
	in.life = make([]uint32, s.Nodes)
	in.thinks = make([]uint32, s.Nodes)
	algo := bench.Algorithms[s.Algorithm]
	in.names = algo.MessageTypes()
	in.token = proto.TokenType(in.names)
	in.stats.Tally = bench.NewTally(len(plan))
	in.stats.Crashes = len(plan)
	return in
}

// typeName names a message type of the run's algorithm.
func (in *instance) typeName(t proto.MsgType) string {
	if int(t) < len(in.names) {
		return in.names[t].Name
	}
	return fmt.Sprintf("msgtype(%d)", t)
}

func (in *instance) hosts(id proto.NodeID) bool { return in.j.rankOf(id) == in.j.rank }

// at runs fn at time t (seconds since the start of the run).
func (in *instance) at(t float64, fn func()) {
	in.seq++
	heap.Push(&in.events, event{t: t, seq: in.seq, fn: fn})
}

// later runs fn(id) dt seconds from now unless node id crashes meanwhile.
func (in *instance) later(id proto.NodeID, dt float64, fn func(proto.NodeID)) {
	life := in.life[id]
	in.at(in.j.now()+dt, func() {
		if in.life[id] == life {
			fn(id)
		}
	})
}

// runDue runs the events due by now and the messages queued between local
// nodes; it reports whether it did anything.
//
// Messages go first: before each event, the local queue is emptied and the
// frames waiting in MPI are received. A timer that fires late (the rank was
// descheduled, or busy with many nodes) thus never overtakes a message that
// reached the rank before its deadline: the node sees the order that the
// δ bound promises, only later.
func (in *instance) runDue(now float64) bool {
	did := false
	for !in.stopped && in.j.err == nil {
		if in.qhead < len(in.queue) {
			did = true
			q := in.queue[in.qhead]
			in.qhead++
			t := in.j.now()
			in.noteDelay(t - q.sent)
			in.deliver(&q.m, t)
			continue
		}
		if len(in.events) == 0 || in.events[0].t > now {
			break
		}
		got, err := in.j.receive()
		if err != nil {
			in.j.fail(err)
			break
		}
		did = true
		if got {
			continue
		}
		e := heap.Pop(&in.events).(event)
		e.fn()
	}
	if in.qhead == len(in.queue) { // all delivered: reuse the buffer
		in.queue, in.qhead = in.queue[:0], 0
	}
	return did
}

func (in *instance) noteDelay(d float64) {
	if in.stats.Delivered == 0 || d < in.stats.MinDelay {
		in.stats.MinDelay = d
	}
	in.stats.Delivered++
	if d > in.stats.MaxDelay {
		in.stats.MaxDelay = d
	}
	if d > in.delta {
		in.stats.OverDelta++
	}
}

// deliver steps m's destination with m, now being the time of its arrival.
func (in *instance) deliver(m *proto.Message, now float64) {
	if in.down[m.To] {
		in.stats.Dropped++
		return
	}
	in.stepAt(m.To, proto.Input{Kind: proto.Receive, Msg: *m}, now)
}

// step runs one input through a hosted node and carries out its output.
func (in *instance) step(id proto.NodeID, input proto.Input) {
	in.stepAt(id, input, in.j.now())
}

// stepAt is step at time now (read by the caller: one clock read serves
// every message of a frame).
func (in *instance) stepAt(id proto.NodeID, input proto.Input, now float64) {
	n := in.nodes[id]
	in.out.Reset()
	n.Step(input, &in.out)
	in.stats.Steps++
	// The node's view, only where something below reads it: an interface
	// call and a copy that most steps (a message in, a message out) do not
	// need. Up changes only with a crash or a recovery.
	rest := in.sequential && len(in.out.Msgs) == 0 &&
		(input.Kind == proto.ExitCS || input.Kind == proto.Receive && input.Msg.Type == in.token)
	var after proto.View
	if rest || in.out.Enter || input.Kind == proto.Crash || input.Kind == proto.Recover {
		after = n.View()
		in.down[id] = !after.Up
	}
	if in.out.Events != ([proto.MaxEvents]int32{}) { // events are rare: one comparison for most steps
		for k, c := range in.out.Events {
			in.stats.Events[k] += int64(c)
		}
	}
	for k := range in.out.Msgs {
		if m := &in.out.Msgs[k]; m.To < 0 || int(m.To) >= in.n {
			// A state the simulator's invariants rule out (a root that
			// forwards a request: two tokens met). It is counted as a
			// safety violation and the message dropped; the run goes on.
			in.stats.Broken++
			if in.stats.BrokenWhy == "" {
				in.stats.BrokenWhy = fmt.Sprintf("rank %d, t=%.6fs: node %d, stepping %s, sent a %s message to no node (%d); state after: %+v (seed %d)",
					in.j.rank, now, id, input.Kind, in.typeName(m.Type), m.To, n.View(), in.spec.Seed)
			}
			continue
		}
		in.send(&in.out.Msgs[k], now)
	}
	for _, t := range in.out.Timers {
		t := t
		in.at(now+t.After*in.delta, func() {
			if !in.down[id] {
				in.step(id, proto.Input{Kind: proto.Fire, Timer: t})
			}
		})
	}
	if in.out.Enter {
		in.entered(id, after.Tag, now)
	}
	if rest && after.TokenHere && !after.InCS {
		if input.Kind == proto.ExitCS {
			in.restAfter(input.Tag)
		} else {
			in.restAfter(input.Msg.Tag)
		}
	}
}

// send counts m and routes it: into the local queue, or into the frame for
// its rank.
func (in *instance) send(m *proto.Message, now float64) {
	in.sent[m.Type][m.Cause]++
	if m.Tag > 0 && m.Cause == proto.Normal {
		for int(m.Tag) >= len(in.perTag) {
			in.perTag = append(in.perTag, 0)
		}
		in.perTag[m.Tag]++
	}
	if m.Cause == proto.Failure {
		if k := in.crashIndex(now); k >= 0 {
			in.stats.PerFailure[k]++
			in.stats.ByType[m.Type]++
		} else {
			in.stats.PreCrash++
		}
	}
	r := in.j.rankOf(m.To)
	if r == in.j.rank {
		in.stats.Intra++
		in.queue = append(in.queue, queued{*m, now})
		return
	}
	if len(m.Payload) > wire.MaxPayload {
		in.j.fail(fmt.Errorf("rank %d: a %s message of %d payload words, more than the %d a frame carries between ranks (seed %d)",
			in.j.rank, in.typeName(m.Type), len(m.Payload), wire.MaxPayload, in.spec.Seed))
		return
	}
	if in.counts[r] > 0 && len(in.batches[r])+wire.RecordLen(m) > maxFrame {
		// Records with payloads: the frame would outgrow maxFrame (and
		// its buffer, MPI memory of that size); send it first.
		in.j.ring(r)
		in.flushTo(r)
	}
	in.stats.Inter++
	in.stats.Hops += int64(hypercube.Hops(in.j.rank, r))
	if in.counts[r] == 0 {
		// The frame's send time is its oldest message's: the delay a
		// message sees includes its wait in the batch.
		if in.batches[r] == nil {
			in.batches[r] = in.j.frameBuffer()
		}
		in.batches[r] = wire.AppendHeader(in.batches[r][:0], in.id, 0, now)
		if !in.listed[r] {
			in.listed[r] = true
			in.j.filled = append(in.j.filled, filled{in, r})
		}
	}
	in.batches[r] = wire.AppendMessage(in.batches[r], m)
	in.counts[r]++
	if in.counts[r] == maxBatch {
		in.j.ring(r)
		in.flushTo(r)
	}
}

func (in *instance) flushTo(r int) {
	b := in.batches[r]
	wire.SetCount(b, in.counts[r])
	in.j.send(b, r, tagData)
	in.counts[r] = 0
}

// crashIndex returns the index of the latest planned crash at or before t,
// or -1.
func (in *instance) crashIndex(t float64) int {
	k := -1
	for k+1 < len(in.plan) && in.plan[k+1].At <= t {
		k++
	}
	return k
}

func (in *instance) failures(t float64) int { return in.crashIndex(t) + 1 }

// start schedules the workload and the crashes of the hosted nodes.
func (in *instance) start() {
	for _, f := range in.plan {
		f := f
		if f.Node < 0 || !in.hosts(proto.NodeID(f.Node)) {
			continue
		}
		id := proto.NodeID(f.Node)
		in.at(f.At, func() { in.crash(id) })
		if f.Up >= 0 {
			in.at(f.Up, func() { in.recover(id) })
		}
	}
	switch in.spec.Workload {
	case "sequential":
		in.order = bench.SequentialOrder(in.spec.Seed, in.n)
		if id := in.nodeOf(1); in.hosts(id) {
			in.at(0, func() { in.issueSequential(id, 1) })
		}
	case "poisson":
		for _, id := range in.local {
			in.scheduleThink(id)
		}
	case "saturated":
		for _, id := range in.local {
			in.later(id, 0, in.issue)
		}
	}
	if in.spec.Workload != "sequential" {
		in.at(in.until, in.checkDone)
	}
	in.lastServed = 0
	in.at(in.watch, in.watchdog)
}

// nodeOf returns the requester of the k-th request of the sequential
// workload (k = 1, 2, … in increasing order).
func (in *instance) nodeOf(k uint32) proto.NodeID {
	for in.drawn < k {
		in.lastNode = in.order()
		in.drawn++
	}
	return in.lastNode
}

func (in *instance) crash(id proto.NodeID) {
	if in.inCS[id] {
		in.stats.CS = append(in.stats.CS, csInterval{id, in.enteredAt[id], in.j.now(), true})
	}
	in.step(id, proto.Input{Kind: proto.Crash})
	in.life[id]++
	if in.busy[id] && !in.inCS[id] {
		in.stats.Abandoned++
	}
	in.busy[id], in.inCS[id] = false, false
	in.checkDone()
}

func (in *instance) recover(id proto.NodeID) {
	in.stats.Recoveries++
	in.step(id, proto.Input{Kind: proto.Recover})
	switch in.spec.Workload {
	case "poisson":
		in.scheduleThink(id)
	case "saturated":
		in.issue(id)
	}
}

func (in *instance) scheduleThink(id proto.NodeID) {
	k := in.thinks[id]
	in.thinks[id]++
	in.later(id, bench.ThinkTime(in.spec.Seed, id, k, in.spec.Think*in.delta), in.issue)
}

func (in *instance) more(id proto.NodeID) bool {
	return in.nodeIssued[id] < in.quota || in.j.now() < in.until
}

// issue makes node id call enter_cs (poisson, saturated), if it has
// requests left. Tags are unique over the job: rank + 1 + serial·ranks.
func (in *instance) issue(id proto.NodeID) {
	if !in.more(id) || in.busy[id] || in.down[id] || uint64(in.serial+1)*uint64(in.j.size) >= math.MaxUint32 {
		in.checkDone()
		return
	}
	tag := uint32(in.j.rank) + 1 + in.serial*uint32(in.j.size)
	in.serial++
	in.nodeIssued[id]++
	in.enter(id, tag)
}

func (in *instance) enter(id proto.NodeID, tag uint32) {
	in.stats.Issued = append(in.stats.Issued, tag)
	in.busy[id] = true
	in.reqTag[id] = tag
	in.issuedAt[tag] = in.j.now()
	in.step(id, proto.Input{Kind: proto.EnterCS, Tag: tag})
}

func (in *instance) issueSequential(id proto.NodeID, k uint32) {
	if in.busy[id] || in.down[id] {
		in.j.fail(fmt.Errorf("rank %d: sequential request %d at node %d, which is busy or down", in.j.rank, k, id))
		return
	}
	in.nodeIssued[id]++
	in.enter(id, k)
}

// restAfter is called when the token has come to rest after request k of
// the sequential workload: the next request may start.
func (in *instance) restAfter(k uint32) {
	if int64(k) >= in.spec.Requests {
		in.j.control(ctlDone, in.id, 0, 0, 0)
		return
	}
	next := in.nodeOf(k + 1)
	in.j.control(ctlBaton, in.id, k+1, next, in.j.rankOf(next))
}

func (in *instance) entered(id proto.NodeID, tag uint32, now float64) {
	in.stats.Served++
	in.lastServed = now
	in.inCS[id] = true
	in.enteredAt[id] = now
	if t, ok := in.issuedAt[tag]; ok {
		in.stats.Waits = append(in.stats.Waits, (now-t)/in.delta)
		delete(in.issuedAt, tag)
	}
	for k := in.crashIndex(now); k >= 0 && in.stats.FirstEntry[k] < 0; k-- {
		in.stats.FirstEntry[k] = now - in.plan[k].At
	}
	in.later(id, in.spec.CSTime*in.delta, in.exit)
}

func (in *instance) exit(id proto.NodeID) {
	in.stats.CS = append(in.stats.CS, csInterval{id, in.enteredAt[id], in.j.now(), false})
	in.inCS[id] = false
	in.busy[id] = false
	in.step(id, proto.Input{Kind: proto.ExitCS, Tag: in.reqTag[id]})
	switch in.spec.Workload {
	case "poisson":
		in.scheduleThink(id)
	case "saturated":
		in.issue(id)
	}
	in.checkDone()
}

// checkDone tells rank 0 once this rank's workload is over: no hosted node
// will issue another request and none waits.
func (in *instance) checkDone() {
	if in.doneSent || in.spec.Workload == "sequential" || in.j.now() < in.until {
		return
	}
	for _, id := range in.local {
		if in.busy[id] || (!in.down[id] && in.nodeIssued[id] < in.quota) {
			return
		}
	}
	in.doneSent = true
	in.j.control(ctlDone, in.id, 0, 0, 0)
}

// watchdog ends the rank's workload when none of its waiting requests has
// been served for 4 watchdog periods: a liveness violation.
func (in *instance) watchdog() {
	if in.stopped || in.doneSent {
		return
	}
	now := in.j.now()
	waiting := 0
	for _, id := range in.local {
		if in.busy[id] && !in.inCS[id] {
			waiting++
		}
	}
	if waiting > 0 && now-in.lastServed > 4*in.watch {
		in.stuck = fmt.Sprintf("rank %d: no request of its nodes served for %.0fδ while %d wait (t=%.4fs, seed %d)",
			in.j.rank, (now-in.lastServed)/in.delta, waiting, now, in.spec.Seed)
		in.doneSent = true
		in.j.control(ctlDone, in.id, 0, 0, 0)
		return
	}
	if waiting == 0 {
		in.lastServed = now
	}
	in.at(now+in.watch, in.watchdog)
}
