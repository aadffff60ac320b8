package rank

import (
	"fmt"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/internal/eventq"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/wire"
	"github.com/ocbench/ocbench/workload"
)

// instance is one run on one rank: the nodes this rank hosts, their timers
// and workload, and the rank's counters.
type instance struct {
	j     *job
	id    uint8
	spec  bench.Spec
	n     int
	delta float64
	place hypercube.Placement
	owner []int32      // owner[i]: the rank that hosts node i (place.Rank, without the interface call)
	nodes []proto.Node // all N; only the hosted ones are stepped
	local []proto.NodeID
	down  []bool
	plan  []faults.Fault
	// res is the run's plan, resolved once (the controller's and the
	// algorithm's).
	res *bench.Plan
	tgt *targeting // targeted crashes (target.go)
	tr  *tracer    // --trace (trace.go)

	events  eventq.Queue // the timed actions, in (time, scheduling order) …
	actions []func()     // … by eventq.Item.Idx; free lists the unused
	free    []int32
	seq     uint64
	out     proto.Output
	queue   []queued // messages between nodes of this rank, in sending order, from qhead on
	qhead   int
	batches [][]byte // per destination rank: the frame being filled
	counts  []int    // records in batches[r]
	listed  []bool   // r is in the job's list of frames to flush

	until      float64
	sequential bool // the sequential workload
	stopped    bool
	doneSent   bool
	doneRanks  int // rank 0: ranks whose workload is over
	// ctl is the run's controller (bench.Controller, in its wall-clock
	// realisation): every rank runs it on the fault plan's crashes with a
	// fixed victim, rank 0 on targeted crashes, the sequential turn and
	// the end of the workload; each rank's watchdog ticks through it.
	ctl *bench.Controller

	// invented ends the critical sections a transient fault invented
	// (kexclusion.go).
	invented *bench.InventedCS

	// wl is the workload of the hosted nodes (workload.Driver, which the
	// simulator runs too); the instance is its workload.Host.
	wl        *workload.Driver
	enteredAt []float64       // when each node entered the critical section …
	staying   []bool          // … and whether that stay has not been recorded yet
	order     *workload.Order // sequential
	drawn     uint32
	lastNode  proto.NodeID
	stuck     string
	// The sequential workload's turns: every rank counts the node messages
	// its nodes sent and received; after a request's exit, rank 0 asks
	// every rank for its counts (probe) until two rounds in a row find
	// them equal and unchanged (Mattern's four-counter test): nothing is
	// in flight, and the next request may start.
	msgsSent, msgsRecv uint32
	probing            uint32 // rank 0: the request whose quiet it waits for (0: none)
	replies            int
	sumSent, sumRecv   uint32
	lastSent, lastRecv uint32
	rounds             int

	// counters
	stats  rankReport
	perTag []uint32 // normal messages sent per request serial (the report's PerTag)
	sent   [proto.MaxMsgTypes][proto.NumCauses]int64
	// names are the algorithm's message types.
	names []proto.MessageType

	malformed    int64
	malformedErr string
	afterStop    int64
}

type queued struct {
	m    proto.Message
	sent float64
}

// newInstance returns the instance of run id of the job: the run of plan
// (resolved once, with its fault schedule) on the placement pl.
func newInstance(j *job, id uint8, plan *bench.Plan, pl hypercube.Placement) *instance {
	s := plan.Spec
	in := &instance{j: j, id: id, spec: s, n: s.Nodes, delta: s.Delta, plan: plan.Faults(), res: plan, place: pl, owner: make([]int32, s.Nodes),
		nodes: plan.Algorithm.NewNodes(s.Nodes), down: make([]bool, s.Nodes),
		batches: make([][]byte, j.size), counts: make([]int, j.size), listed: make([]bool, j.size),
		sequential: s.Workload == "sequential"}
	for i := range in.owner {
		in.owner[i] = int32(pl.Rank(i))
	}
	j.nodes = max(j.nodes, s.Nodes)
	for _, i := range pl.Nodes(j.rank) {
		in.local = append(in.local, proto.NodeID(i))
	}
	in.until = plan.Until()
	in.enteredAt, in.staying = make([]float64, s.Nodes), make([]bool, s.Nodes)
	in.names = plan.Algorithm.MessageTypes()
	in.ctl = bench.NewController(plan, bench.ControlOptions{Until: in.until, Watch: true,
		NeverQuiet: plan.SelfStabilizing != nil, WallClock: true})
	in.stats.Counts = in.ctl.Counts()
	return in
}

// typeName names a message type of the run's algorithm.
func (in *instance) typeName(t proto.MsgType) string {
	if int(t) < len(in.names) {
		return in.names[t].Name
	}
	return fmt.Sprintf("msgtype(%d)", t)
}

func (in *instance) hosts(id proto.NodeID) bool { return in.rankOf(id) == in.j.rank }

// rankOf returns the rank that hosts node id in this run.
func (in *instance) rankOf(id proto.NodeID) int { return int(in.owner[id]) }

// at runs fn at time t (seconds since the start of the run).
func (in *instance) at(t float64, fn func()) {
	in.seq++
	var i int32
	if k := len(in.free); k > 0 {
		i, in.free = in.free[k-1], in.free[:k-1]
		in.actions[i] = fn
	} else {
		i = int32(len(in.actions))
		in.actions = append(in.actions, fn)
	}
	in.events.Push(eventq.Item{T: t, Key: in.seq, Idx: i})
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
		if len(in.events) == 0 || in.events[0].T > now {
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
		e := in.events.Pop()
		fn := in.actions[e.Idx]
		in.actions[e.Idx] = nil
		in.free = append(in.free, e.Idx)
		fn()
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
	in.msgsRecv++
	if in.tr != nil {
		in.traceDeliver(m, in.down[m.To], now)
	}
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
	if in.tr != nil {
		in.traceInput(id, input.Kind, now)
	}
	in.out.Reset()
	proto.Step(n, input, &in.out)
	in.stats.Steps++
	// The node's view, only where something below reads it: an interface
	// call and a copy that most steps (a message in, a message out) do not
	// need. Up changes only with a crash or a recovery.
	var after proto.View
	if in.out.Enter || input.Kind == proto.Crash || input.Kind == proto.Recover {
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
		if in.tr != nil {
			in.traceEvent(trEnter, id, now)
		}
		in.entered(id, after.Tag, now)
	}
}

// send counts m and routes it: into the local queue, or into the frame for
// its rank.
func (in *instance) send(m *proto.Message, now float64) {
	in.sent[m.Type][m.Cause]++
	in.msgsSent++
	if m.Tag > 0 && m.Cause == proto.Normal {
		for int(m.Tag) >= len(in.perTag) {
			in.perTag = append(in.perTag, 0)
		}
		in.perTag[m.Tag]++
	}
	if m.Cause == proto.Failure {
		in.stats.Failure(m, now)
	}
	r := in.rankOf(m.To)
	if in.tr != nil {
		in.traceSend(m, r, now)
	}
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
	in.noteToken(m, now)
	in.stats.Hops += int64(hypercube.Hops(in.j.rank, r))
	if in.counts[r] == 0 {
		// The frame's send time is its oldest message's: the delay a
		// message sees includes its wait in the batch.
		if in.batches[r] == nil {
			in.batches[r] = in.j.frameBuffer()
		}
		in.batches[r] = wire.AppendHeader(in.batches[r][:0], in.j.digest, in.id, 0, now)
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

// failures returns the number of planned crashes at or before t.
func (in *instance) failures(t float64) int { return in.stats.CrashesBy(t) }

// start schedules the workload and the controller's crashes.
func (in *instance) start() {
	s := in.spec
	for k := range in.ctl.Crashes() {
		f := in.ctl.Fault(k)
		if f.Node < 0 {
			in.planTarget(k, f)
			continue
		}
		in.planCrash(k, f)
	}
	in.wl = workload.New(in, workload.Config{Kind: s.Workload, Seed: s.Seed, Nodes: s.Nodes, Requests: s.Requests,
		Until: in.until, CSTime: s.CSTime * in.delta, Think: s.Think * in.delta, Hosted: in.local, PerNode: true,
		TagBase: uint32(in.j.rank) + 1, TagStride: uint32(in.j.size)})
	in.wl.OnDone = in.done
	if in.sequential {
		// Rank 0 gives every request its turn (ctlBaton), once the
		// previous one has left the critical section (OnExit) and nothing
		// is in flight (probe).
		in.wl.OnExit = func(_ proto.NodeID, tag uint32) { in.j.control(ctlExited, in.id, tag, 0, 0) }
		in.order = workload.NewOrder(in.spec.Seed, in.n)
		if id := in.nodeOf(1); in.hosts(id) {
			in.at(0, func() { in.issueSequential(id, 1) })
		}
	} else {
		in.wl.Start()
		in.at(in.until, in.wl.Check)
	}
	in.After(in.ctl.Period(), in.tick)
	in.startKExclusion()
}

// tick is the watchdog's: the controller's Tick on the hosted nodes'
// requests, every period (bench.WallWatch watch periods), until this
// rank's workload is over or the run stops. A stuck rank tells rank 0,
// as if its workload were over.
func (in *instance) tick() {
	if in.stopped || in.doneSent {
		return
	}
	o := in.wl.Observe()
	if why := in.ctl.Tick(&o, in.j.now(), true); why != "" {
		in.stuck = fmt.Sprintf("rank %d: %s", in.j.rank, why)
		in.doneSent = true
		in.j.control(ctlDone, in.id, 0, 0, 0)
		return
	}
	in.After(in.ctl.Period(), in.tick)
}

// Input implements workload.Host: node id is stepped with an input of kind
// dt seconds from now.
func (in *instance) Input(dt float64, id proto.NodeID, kind proto.InputKind, tag uint32) {
	in.at(in.j.now()+dt, func() {
		if kind == proto.EnterCS {
			in.stats.Issued = append(in.stats.Issued, tag)
		}
		if in.down[id] {
			return
		}
		if kind == proto.ExitCS {
			in.endStay(id, false)
		}
		in.step(id, proto.Input{Kind: kind, Tag: tag})
	})
}

// After implements workload.Host.
func (in *instance) After(dt float64, fn func()) { in.at(in.j.now()+dt, fn) }

// Now implements workload.Host: seconds since the start of the run.
func (in *instance) Now() float64 { return in.j.now() }

// Down implements workload.Host.
func (in *instance) Down(id proto.NodeID) bool { return in.down[id] }

// nodeOf returns the requester of the k-th request of the sequential
// workload (k = 1, 2, … in increasing order).
func (in *instance) nodeOf(k uint32) proto.NodeID {
	for in.drawn < k {
		in.lastNode = in.order.Next(in.ctl.Down) // no node is down: rank.Check refuses crashes with the sequential workload
		in.drawn++
	}
	return in.lastNode
}

// planCrash schedules crash k of the plan, f, whose victim is fixed: every
// rank's controller decides it at its time, and the rank that hosts the
// victim crashes it, and recovers it at f.Up.
func (in *instance) planCrash(k int, f faults.Fault) {
	id, took := proto.NodeID(f.Node), false
	in.at(f.At, func() {
		if took = in.ctl.Crash(k, nil, proto.Nil) == id; took && in.hosts(id) {
			in.crash(id)
		}
	})
	if f.Up >= 0 {
		in.at(f.Up, func() {
			if took {
				in.ctl.Recovered(id)
				if in.hosts(id) {
					in.recover(id)
				}
			}
		})
	}
}

func (in *instance) crash(id proto.NodeID) {
	in.endStay(id, true)
	in.step(id, proto.Input{Kind: proto.Crash})
	in.wl.Crashed(id)
}

func (in *instance) recover(id proto.NodeID) {
	in.stats.Recoveries++
	in.step(id, proto.Input{Kind: proto.Recover})
	in.wl.Recovered(id)
}

// issueSequential issues the k-th request of the sequential workload at
// node id, which this rank hosts.
func (in *instance) issueSequential(id proto.NodeID, k uint32) {
	if err := in.wl.IssueSequential(id, k); err != nil {
		in.j.fail(fmt.Errorf("rank %d: %w", in.j.rank, err))
	}
}

// exited is rank 0's part when request k of the sequential workload has
// left the critical section: it waits for quiet, then gives the next
// request its turn.
func (in *instance) exited(k uint32) {
	in.probing, in.rounds = k, 0
	in.probe()
}

// probe asks every rank for its message counts (rank 0).
func (in *instance) probe() {
	in.replies, in.sumSent, in.sumRecv = 0, 0, 0
	for r := 0; r < in.j.size; r++ {
		in.j.control(ctlProbe, in.id, 0, 0, r)
	}
}

// counted is rank 0's receipt of one rank's counts.
func (in *instance) counted(sent, recv uint32) {
	in.sumSent += sent
	in.sumRecv += recv
	in.replies++
	if in.replies < in.j.size {
		return
	}
	quiet := in.sumSent == in.sumRecv && in.rounds > 0 && in.sumSent == in.lastSent && in.sumRecv == in.lastRecv
	in.lastSent, in.lastRecv = in.sumSent, in.sumRecv
	in.rounds++
	// The request has left the critical section (ctlExited): no node is
	// busy, and the next waits for its turn.
	if !in.ctl.Turn(&workload.Observation{Pending: true, Quiet: quiet}) {
		in.at(in.j.now()+in.delta/4, in.probe)
		return
	}
	k := in.probing
	in.probing = 0
	if int64(k) >= in.spec.Requests {
		in.j.control(ctlDone, in.id, 0, 0, 0)
		return
	}
	next := in.nodeOf(k + 1)
	in.j.control(ctlBaton, in.id, k+1, next, in.rankOf(next))
}

func (in *instance) entered(id proto.NodeID, tag uint32, now float64) {
	in.enteredAt[id] = now
	if in.invented != nil && in.invented.Entered(id, tag) {
		return // a critical section a transient fault invented
	}
	if !in.wl.Waiting(id) {
		// Seen under MPI with δ broken: a node that crashed while it
		// waited entered after its recovery, for the abandoned request.
		// The trace checker's rule too; the stay runs, as the node's.
		in.stats.Broken++
		if in.stats.BrokenWhy == "" {
			in.stats.BrokenWhy = fmt.Sprintf("rank %d, t=%.6fs: node %d entered the critical section without a request pending (seed %d)",
				in.j.rank, now, id, in.spec.Seed)
		}
	}
	in.staying[id] = true
	in.stats.Entered(now)
	in.wl.Entered(id, tag)
}

// done tells rank 0 once this rank's workload is over: no hosted node
// will issue another request and none waits.
func (in *instance) done() {
	if in.doneSent || in.sequential {
		return
	}
	in.doneSent = true
	in.j.control(ctlDone, in.id, 0, 0, 0)
}

// endStay records the stay of node id in the critical section, if it is in
// one, as ended now by an exit or a crash. Each stay is recorded once: the
// exit of a stay that a crash ended comes after the node's recovery when
// its downtime was shorter than the rest of the stay, and a crash can come
// between the exit and the workload's note of it (targeted crashes often
// hit a node in the critical section).
func (in *instance) endStay(id proto.NodeID, crashed bool) {
	if in.staying[id] {
		in.staying[id] = false
		in.stats.CS = append(in.stats.CS, workload.Stay{Node: id, Issued: in.wl.IssuedAt(id), Enter: in.enteredAt[id], Out: in.j.now(), Crashed: crashed,
			Units: in.nodes[id].View().Units})
	}
}
