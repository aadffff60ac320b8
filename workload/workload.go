// Package workload drives a run's requests for the critical section: who
// asks, when and for how long (Kinds: sequential, poisson, saturated,
// each), on any runtime that hosts nodes (a Host: the simulator, a part of
// a split run, a wall-clock MPI rank), and what their service measures
// (waits, synchronization delays). It issues requests and counts them; the
// controller (package bench) decides from its Observation when the run is
// over or stuck.
package workload

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ocbench/ocbench/internal/hugepage"

	"github.com/ocbench/ocbench/internal/field"
	"github.com/ocbench/ocbench/internal/stream"
	"github.com/ocbench/ocbench/proto"
)

// Kinds lists the workloads; the first is the default.
//
//   - sequential: one request at a time from a uniformly random live node;
//     the next starts once the previous CS has ended and any lent token is
//     back.
//   - poisson: every node thinks for an exponential time, requests, holds the
//     CS, and thinks again; requests overlap.
//   - saturated: every node requests again as soon as it leaves the CS.
//   - each: one lone request from every node, each from the initial
//     configuration (the paper's per-node cost c(i); N ≤ 4096; --requests is
//     ignored).
var Kinds = []Kind{Sequential, Poisson, Saturated, Each}

// Valid returns an error unless name is a workload.
func Valid(name Kind) error { return field.OneOf("workload", name, Kinds) }

// Host is what a workload drives: a runtime hosting the nodes. Times are in
// seconds.
type Host interface {
	// Input schedules an input for a node dt seconds from now.
	Input(dt float64, id proto.NodeID, kind proto.InputKind, tag uint32)
	// After calls fn dt seconds from now.
	After(dt float64, fn func())
	// Now returns the current time.
	Now() float64
	// Down reports whether a node is crashed.
	Down(id proto.NodeID) bool
}

// Driver issues CS requests according to a workload and follows them: the
// one implementation of the workloads that every runtime uses. The
// simulator drives all nodes with one Workload; each rank of an MPI job
// drives the nodes it hosts with its own (Config.Hosted, PerNode).
type Driver struct {
	kind     Kind
	host     Host
	order    *Order // sequential
	seed     uint64
	n        int
	hosted   []proto.NodeID
	requests int64   // issue at least this many (all hosted nodes together)
	quota    int64   // PerNode: each hosted node issues at least this many
	until    float64 // and keep issuing until this time (seconds)
	csTime   float64 // seconds
	think    float64 // mean think time, seconds
	tagBase  uint32
	stride   uint32
	// neverQuiet: Config.NeverQuiet
	neverQuiet bool
	// nodeTags: Config.NodeTags; seqIssued counts the sequential
	// requests the controller issued.
	nodeTags  bool
	seqIssued int64
	// nbusy counts the hosted nodes busy, left the live hosted nodes with
	// requests of their quota to issue.
	nbusy, left int64
	// ctlDown, if not nil, is the controller's view of the crashed nodes,
	// from which the sequential order draws (Part).
	ctlDown func(proto.NodeID) bool

	issued, served, abandoned int64
	pending                   bool      // sequential: a request is outstanding
	waits                     []float64 // seconds, by served request
	// nd is each node's state, which a request reads and writes: one
	// cache line of it.
	nd   []nodeLoad
	sync SyncDelay
	// OnDone is called once no more requests will be issued and every
	// issued request is served or abandoned.
	OnDone func()
	// OnExit, if not nil, is called when node id leaves the critical
	// section of request tag, before anything else is issued.
	OnExit func(id proto.NodeID, tag uint32)
	done   bool
	// The method values next, issue and exited, made once: each method
	// value taken allocates.
	nextFn            func()
	issueFn, exitedFn func(proto.NodeID)
	// caller is the host as a nodeCaller (nil: it is not one), and
	// issueCall, exitedCall the handles of issue and exited there.
	caller                nodeCaller
	issueCall, exitedCall uint8
}

// nodeCaller is a host that calls a function made once with a node and an
// argument later (sim.Sim), so that later makes no closure per call.
type nodeCaller interface {
	NodeCall(fn func(id proto.NodeID, arg uint32)) uint8
	AfterCall(dt float64, h uint8, id proto.NodeID, arg uint32)
}

// nodeLoad is the workload's state of one node.
type nodeLoad struct {
	since  float64 // when the node issued its current request, seconds
	issued int64   // PerNode: the requests the node issued
	reqTag uint32  // the tag of the node's current request
	life   uint32  // the node's incarnation, bumped at each crash
	thinks uint32  // poisson: the think times drawn for the node
	// busy: the node has a request issued and not yet finished; unbooked:
	// issued and not yet stepped (Requested books it).
	busy, inCS, unbooked bool
}

// Config says what a Workload issues. Times are in seconds.
type Config struct {
	Kind     Kind
	Seed     uint64
	Nodes    int
	Requests int64
	// Until: requests go on being issued until this time.
	Until         float64
	CSTime, Think float64
	// Hosted are the nodes this host drives (nil: all of them).
	Hosted []proto.NodeID
	// PerNode: every hosted node issues at least ⌈Requests/Nodes⌉
	// requests (a rank of an MPI job, which cannot count the others');
	// otherwise the hosted nodes issue Requests together.
	PerNode bool
	// NeverQuiet: the system is never quiet (a self-stabilizing
	// algorithm's rounds go on for ever), so the sequential workload
	// issues its next request when the previous critical section ends
	// instead of when no message is in flight.
	NeverQuiet bool
	// TagBase and TagStride number the requests: the k-th request
	// issued here (k = 1, 2, …) has tag TagBase + (k−1)·TagStride, so
	// that ranks draw disjoint tags (0: 1 and 1).
	TagBase, TagStride uint32
	// NodeTags: the workload runs on the window driver (Part). The k-th
	// request of node id (k = 0, 1, …) has tag k·N + id + 1 and the
	// sequential order's k-th request tag k; a request is booked
	// (issued, its wait started) when its node steps its enter_cs
	// (Requested), and the controller, not the workload, says when the
	// run is over.
	NodeTags bool
	// Down, if not nil, is the controller's view of the crashed nodes
	// (a split run's: the whole run's, not only the hosted nodes').
	Down func(proto.NodeID) bool
}

// New returns the driver of the workload of c on host; Start starts it.
func New(host Host, c Config) *Driver {
	if c.TagBase == 0 {
		c.TagBase = 1
	}
	if c.TagStride == 0 {
		c.TagStride = 1
	}
	n := c.Nodes
	d := &Driver{kind: c.Kind, host: host, seed: c.Seed, order: NewOrder(c.Seed, n), n: n,
		requests: c.Requests, until: c.Until, csTime: c.CSTime, think: c.Think, hosted: c.Hosted,
		tagBase: c.TagBase, stride: c.TagStride, neverQuiet: c.NeverQuiet, nodeTags: c.NodeTags, ctlDown: c.Down, nd: hugepage.Make[nodeLoad](n)}
	d.nextFn, d.issueFn, d.exitedFn = d.next, d.issue, d.exited
	if h, ok := host.(nodeCaller); ok {
		d.caller = h
		d.issueCall, d.exitedCall = h.NodeCall(d.alive(d.issueFn)), h.NodeCall(d.alive(d.exitedFn))
	}
	if c.PerNode {
		d.quota = (c.Requests + int64(n) - 1) / int64(n)
	}
	if d.hosted == nil {
		d.hosted = hugepage.Make[proto.NodeID](n)
		for i := range d.hosted {
			d.hosted[i] = proto.NodeID(i)
		}
	}
	if d.quota > 0 {
		d.left = int64(len(d.hosted))
	}
	if len(d.hosted) == n {
		d.waits = make([]float64, 0, int(min(c.Requests, 1<<20)))
	}
	return d
}

// Served counts the requests served.
func (d *Driver) Served() int64 { return d.served }

// Abandoned counts the requests abandoned by a crash of their node.
func (d *Driver) Abandoned() int64 { return d.abandoned }

// Waits returns the waits of the served requests, from enter_cs to the
// entry, in seconds.
func (d *Driver) Waits() []float64 { return d.waits }

// SyncDelays returns the synchronization delays measured among the hosted
// nodes (SyncDelay), in seconds: the whole run's when the workload hosts
// every node.
func (d *Driver) SyncDelays() []float64 { return d.sync.Samples() }

// IssuedAt returns when node id issued its current (or last) request.
func (d *Driver) IssuedAt(id proto.NodeID) float64 { return d.nd[id].since }

// Start schedules the workload's first requests. A rank of an MPI job does
// not start a sequential workload: rank 0 gives each request its turn
// (IssueSequential).
func (d *Driver) Start() {
	switch d.kind {
	case "sequential":
		d.host.After(0, d.nextFn)
	case "poisson":
		for _, id := range d.hosted {
			d.as(id, func() { d.scheduleThink(id) })
		}
	case "saturated":
		for _, id := range d.hosted {
			d.as(id, func() { d.later(id, 0, false) })
		}
	}
}

// as runs fn as node id on a host that tells nodes' events from the
// controller's (the simulator: sim.Sim.As), else just runs it.
func (d *Driver) as(id proto.NodeID, fn func()) {
	if h, ok := d.host.(interface{ As(proto.NodeID, func()) }); ok {
		h.As(id, fn)
		return
	}
	fn()
}

// later calls issue(id), or with exit exited(id), dt seconds from now
// unless node id crashes meanwhile.
func (d *Driver) later(id proto.NodeID, dt float64, exit bool) {
	life := d.nd[id].life
	if d.caller != nil {
		h := d.issueCall
		if exit {
			h = d.exitedCall
		}
		d.caller.AfterCall(dt, h, id, life)
		return
	}
	f := d.issueFn
	if exit {
		f = d.exitedFn
	}
	d.host.After(dt, func() {
		if d.nd[id].life == life {
			f(id)
		}
	})
}

// alive returns f called for node id only if the node's life is still
// life (later on a nodeCaller).
func (d *Driver) alive(f func(proto.NodeID)) func(proto.NodeID, uint32) {
	return func(id proto.NodeID, life uint32) {
		if d.nd[id].life == life {
			f(id)
		}
	}
}

// thinkTime returns the k-th think time of node id. It is a hash of (seed,
// id, k), not a draw from a shared stream, so a node's requests come at the
// same times whatever happens elsewhere (crashes included): a run and its
// crash-free baseline issue the same requests.
func (d *Driver) thinkTime(id proto.NodeID) float64 {
	k := d.nd[id].thinks
	d.nd[id].thinks++
	return ThinkTime(d.seed, id, k, d.think)
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func (d *Driver) scheduleThink(id proto.NodeID) {
	d.later(id, d.thinkTime(id), false)
}

// more reports whether node id (any node: Nil) may issue another request.
func (d *Driver) more(id proto.NodeID) bool {
	if d.host.Now() < d.until {
		return true
	}
	if d.quota > 0 {
		return id != proto.Nil && d.nd[id].issued < d.quota
	}
	return d.issued < d.requests
}

// issue makes node id call enter_cs, if requests remain.
func (d *Driver) issue(id proto.NodeID) {
	if d.nodeTags {
		k := uint64(d.issued)
		if d.quota > 0 {
			k = uint64(d.nd[id].issued)
		}
		if !d.more(id) || d.nd[id].busy || d.host.Down(id) || k*uint64(d.n)+uint64(id)+1 >= math.MaxUint32 {
			return
		}
		d.setBusy(id, true)
		d.nd[id].unbooked, d.nd[id].reqTag = true, uint32(k*uint64(d.n)+uint64(id)+1)
		d.host.Input(0, id, proto.EnterCS, d.nd[id].reqTag)
		return
	}
	if !d.more(id) || d.nd[id].busy || d.host.Down(id) || uint64(d.tagBase)+uint64(d.issued+1)*uint64(d.stride) >= math.MaxUint32 {
		d.check()
		return
	}
	d.enter(id, d.tagBase+uint32(d.issued)*d.stride)
}

// Requested books the request of serial tag when node id steps its
// enter_cs (NodeTags), and reports whether it was a new request: not an
// enter_cs again for a request booked already, nor an input that is no
// workload's (tag 0), nor one at a node that is down.
func (d *Driver) Requested(id proto.NodeID, tag uint32) bool {
	if tag == 0 || d.host.Down(id) || d.nd[id].busy && !d.nd[id].unbooked {
		return false
	}
	d.setBusy(id, true)
	d.nd[id].unbooked, d.nd[id].reqTag = false, tag
	d.issued++
	if d.quota > 0 {
		d.nd[id].issued++
		if d.nd[id].issued == d.quota {
			d.left--
		}
	}
	d.nd[id].since = d.host.Now()
	return true
}

// busyNodes counts the hosted nodes with a request not yet over.
func (d *Driver) Busy() int64 { return d.nbusy }

// setBusy marks node id busy (a request not yet over) or not.
func (d *Driver) setBusy(id proto.NodeID, b bool) {
	if d.nd[id].busy != b {
		d.nbusy += int64(b2i(b)) - int64(b2i(!b))
	}
	d.nd[id].busy = b
}

// quotaLeft counts the live hosted nodes with requests of their quota
// still to issue (PerNode; 0 otherwise).
func (d *Driver) QuotaLeft() int64 { return d.left }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// enter makes node id call enter_cs for request tag.
func (d *Driver) enter(id proto.NodeID, tag uint32) {
	d.issued++
	if d.quota > 0 {
		d.nd[id].issued++
	}
	d.setBusy(id, true)
	d.nd[id].reqTag = tag
	d.nd[id].since = d.host.Now()
	d.host.Input(0, id, proto.EnterCS, tag)
}

// next issues the sequential workload's next request from a uniformly random live node.
func (d *Driver) next() {
	if d.nodeTags {
		if d.host.Now() >= d.until && d.seqIssued >= d.requests {
			return
		}
	} else if !d.more(proto.Nil) {
		d.check()
		return
	}
	down := d.host.Down
	if d.ctlDown != nil {
		down = d.ctlDown
	}
	id := d.order.Next(down)
	switch {
	case id == proto.Nil:
		d.host.After(d.csTime+1e-9, d.nextFn) // every node is down: try later
	case d.nodeTags:
		d.pending = true
		d.seqIssued++
		d.host.Input(0, id, proto.EnterCS, uint32(d.seqIssued))
	default:
		d.pending = true
		d.issue(id)
	}
}

// IssueSequential makes node id call enter_cs for the k-th request of the
// sequential workload, on a host that does not draw the order itself (a
// rank, told by rank 0). It fails if the node is busy or down.
func (d *Driver) IssueSequential(id proto.NodeID, k uint32) error {
	if d.nd[id].busy || d.host.Down(id) {
		return fmt.Errorf("sequential request %d at node %d, which is busy or down", k, id)
	}
	d.enter(id, k)
	return nil
}

// Entered is called when node id enters the CS for request tag.
func (d *Driver) Entered(id proto.NodeID, tag uint32) {
	d.served++
	d.nd[id].inCS = true
	d.sync.Entered(d.host.Now())
	d.waits = append(d.waits, d.host.Now()-d.nd[id].since)
	d.host.Input(d.csTime, id, proto.ExitCS, 0)
	d.later(id, d.csTime, true)
}

func (d *Driver) exited(id proto.NodeID) {
	d.setBusy(id, false)
	d.nd[id].inCS = false
	d.sync.Left(d.host.Now(), d.issued > d.served+d.abandoned)
	if d.OnExit != nil {
		d.OnExit(id, d.nd[id].reqTag)
	}
	switch d.kind {
	case "poisson":
		d.scheduleThink(id)
	case "saturated":
		d.issue(id)
	case "sequential":
		if d.neverQuiet && d.pending && !d.nodeTags { // NodeTags: the controller's
			d.pending = false
			d.host.After(0, d.nextFn)
		}
	}
	d.check()
}

// Crashed is called when node id crashes: its pending request is abandoned
// (a CS it was in ends with it).
func (d *Driver) Crashed(id proto.NodeID) {
	d.nd[id].life++
	if d.nd[id].busy && !d.nd[id].inCS && !d.nd[id].unbooked {
		d.abandoned++
	}
	d.nd[id].unbooked = false
	if d.quota > 0 && d.nd[id].issued < d.quota {
		d.left-- // a node down issues nothing
	}
	if d.nd[id].inCS {
		d.sync.Left(d.host.Now(), false)
	}
	d.setBusy(id, false)
	d.nd[id].inCS = false
	d.check()
}

// Recovered is called when node id is up again.
func (d *Driver) Recovered(id proto.NodeID) {
	if d.quota > 0 && d.nd[id].issued < d.quota {
		d.left++
	}
	switch d.kind {
	case "poisson":
		d.scheduleThink(id)
	case "saturated":
		d.issue(id)
	}
}

// InCS reports whether node id is in the critical section.
func (d *Driver) InCS(id proto.NodeID) bool { return d.nd[id].inCS }

// Waiting reports whether node id has issued a request that is not served
// yet.
func (d *Driver) Waiting(id proto.NodeID) bool { return d.nd[id].busy && !d.nd[id].inCS }

// waitingAt returns when the hosted request that has waited longest was issued
// (+Inf: none waits), and the smallest hosted node whose request was issued
// at cut or before (proto.Nil: none).
func (d *Driver) WaitingAt(cut float64) (float64, proto.NodeID) {
	oldest, id := math.Inf(1), proto.Nil
	for _, i := range d.hosted {
		if d.nd[i].busy && !d.nd[i].inCS && !d.nd[i].unbooked {
			oldest = min(oldest, d.nd[i].since)
			if d.nd[i].since <= cut && (id == proto.Nil || i < id) {
				id = i
			}
		}
	}
	return oldest, id
}

// oldestWait returns the node whose request has waited longest for the CS
// (issued, not yet entered) and when it was issued; proto.Nil if none waits.
func (d *Driver) oldestWait() (proto.NodeID, float64) {
	id, at := proto.Nil, 0.0
	for _, i := range d.hosted {
		if d.nd[i].busy && !d.nd[i].inCS && (id == proto.Nil || d.nd[i].since < at) {
			id, at = i, d.nd[i].since
		}
	}
	return id, at
}

// Observe returns what the controller reads of the hosted nodes' requests
// now (a wall-clock rank's watchdog tick, Controller.Tick): the counts, the
// busy nodes, and the request that has waited longest (WaitingSince +Inf:
// none waits).
func (d *Driver) Observe() Observation {
	id, at := d.oldestWait()
	if id == proto.Nil {
		at = math.Inf(1)
	}
	return Observation{Issued: d.issued, Served: d.served, Abandoned: d.abandoned, Busy: d.nbusy, WaitingSince: at, Waiting: id}
}

// Quiet is called when no message is in flight and no node is in the CS:
// the sequential workload's next request may start.
func (d *Driver) Quiet() {
	if d.kind == "sequential" && d.pending && d.served+d.abandoned == d.issued {
		d.pending = false
		d.host.After(0, d.nextFn)
	}
}

// check calls OnDone once no more requests will be issued and every issued
// request is served or abandoned.
func (d *Driver) check() {
	if d.done || d.served+d.abandoned != d.issued {
		return
	}
	if d.quota > 0 {
		if d.host.Now() < d.until {
			return
		}
		for _, id := range d.hosted {
			if !d.host.Down(id) && d.nd[id].issued < d.quota {
				return
			}
		}
	} else if d.more(proto.Nil) {
		return
	}
	d.done = true
	if d.OnDone != nil {
		d.OnDone()
	}
}

// Check calls OnDone if the workload is over (a host calls it at Until:
// requests may have ended before, waiting only for time to pass).
func (d *Driver) Check() { d.check() }

// Observation is what the controller reads of the whole run when it
// decides.
type Observation struct {
	// Issued, Served and Abandoned count the requests; Busy the nodes
	// with a request not yet over.
	Issued, Served, Abandoned, Busy int64
	// Quiet: no message is in flight and no node is in the critical
	// section.
	Quiet bool
	// Pending: the sequential workload's next request waits for its turn.
	Pending bool
	// More: requests are still to be issued (per-node quotas left, or the
	// sequential workload's count not reached).
	More bool
	// At a watchdog tick: WaitingSince is when the request that has
	// waited longest was issued (+Inf: none waits), and Waiting the
	// smallest node whose request has waited a whole period.
	WaitingSince float64
	Waiting      proto.NodeID
}

// ThinkTime returns the k-th think time (k = 0, 1, …) of node id in a
// poisson workload of the given seed and mean (in any unit: the result is in
// the same unit). It is a hash of (seed, id, k), so a node's requests come at
// the same times whatever the rest of the run does, in every runtime.
func ThinkTime(seed uint64, id proto.NodeID, k uint32, mean float64) float64 {
	x := splitmix(seed ^ splitmix(uint64(id)<<32|uint64(k)))
	u := (float64(x>>11) + 0.5) / (1 << 53)
	return -math.Log(u) * mean
}

// Order draws the requesters of the sequential workload from the seed, in
// every runtime: the Driver of a host that runs the whole order, and rank
// 0 of a wall-clock MPI job, which gives each request its turn.
type Order struct {
	rng *rand.Rand
	n   int
}

// NewOrder returns the order of the sequential workload of a run of n
// nodes with the given seed.
func NewOrder(seed uint64, n int) *Order {
	return &Order{rng: rand.New(rand.NewPCG(seed, stream.Workload)), n: n}
}

// Next returns the requester of the next request: a node drawn at random,
// drawn again while down says it is down, up to 64·N draws (proto.Nil if
// every draw found a node down).
func (o *Order) Next(down func(proto.NodeID) bool) proto.NodeID {
	for tries := 0; tries < 64*o.n; tries++ {
		if id := proto.NodeID(o.rng.IntN(o.n)); !down(id) {
			return id
		}
	}
	return proto.Nil
}

// Kind names a workload (Kinds).
type Kind string

// The workloads.
const (
	Sequential Kind = "sequential"
	Poisson    Kind = "poisson"
	Saturated  Kind = "saturated"
	Each       Kind = "each"
)

// Issued returns the number of requests issued on this host.
func (d *Driver) Issued() int64 { return d.issued }

// RequestTag returns the tag of node id's current (or last) request.
func (d *Driver) RequestTag(id proto.NodeID) uint32 { return d.nd[id].reqTag }

// Pending reports whether the sequential workload's next request waits
// for the controller's turn (Release).
func (d *Driver) Pending() bool { return d.pending }

// Hold makes the sequential workload's first request wait for the
// controller's turn (Release) instead of starting with Start.
func (d *Driver) Hold() { d.pending = true }

// Release starts the sequential workload's next request now: the
// controller gave its turn.
func (d *Driver) Release() {
	d.pending = false
	d.host.After(0, d.nextFn)
}

// SequentialMore reports whether the sequential workload has requests
// left to issue (the controller's count of those it issued).
func (d *Driver) SequentialMore() bool { return d.seqIssued < d.requests }

// PerNode reports whether every hosted node issues a quota of requests
// (Config.PerNode).
func (d *Driver) PerNode() bool { return d.quota > 0 }
