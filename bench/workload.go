package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/ocbench/ocbench/proto"
)

// Workloads lists the workload names; the first is the default.
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
var Workloads = []string{"sequential", "poisson", "saturated", "each"}

// ValidWorkload returns an error unless name is a workload.
func ValidWorkload(name string) error {
	for _, w := range Workloads {
		if w == name {
			return nil
		}
	}
	return fmt.Errorf("unknown workload %q (allowed: %s)", name, strings.Join(Workloads, ", "))
}

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

// driver issues CS requests according to a workload and follows them.
type driver struct {
	kind     string
	host     Host
	rng      *rand.Rand
	seed     uint64
	n        int
	requests int64   // issue at least this many
	until    float64 // and keep issuing until this time (seconds)
	csTime   float64 // seconds
	think    float64 // mean think time, seconds

	issued, served, abandoned int64
	pending                   bool // sequential: a request is outstanding
	issuedAt                  []float64
	since                     []float64 // when each node issued its current request, seconds
	waits                     []float64 // seconds, by served request
	busy                      []bool    // node has a request issued and not yet finished
	inCS                      []bool
	life                      []uint32 // incarnation of each node, bumped at each crash
	thinks                    []uint32 // poisson: number of think times drawn per node
	lastEntry                 float64
	onDone                    func()
	done                      bool
	// poll, if not nil, is called at every request issued (the run's
	// budget: budgetCheck).
	poll func()
}

func newDriver(kind string, host Host, seed uint64, n int, requests int64, until, csTime, think float64) *driver {
	return &driver{kind: kind, host: host, seed: seed, rng: rand.New(rand.NewPCG(seed, streamWorkload)), n: n,
		requests: requests, until: until, csTime: csTime, think: think,
		issuedAt: make([]float64, 1, requests+1), busy: make([]bool, n), inCS: make([]bool, n),
		life: make([]uint32, n), thinks: make([]uint32, n), since: make([]float64, n)}
}

func (d *driver) start() {
	switch d.kind {
	case "sequential":
		d.host.After(0, d.next)
	case "poisson":
		for i := 0; i < d.n; i++ {
			d.scheduleThink(proto.NodeID(i))
		}
	case "saturated":
		for i := 0; i < d.n; i++ {
			d.later(proto.NodeID(i), 0, d.issue)
		}
	}
}

// later calls f(id) dt seconds from now unless node id crashes meanwhile.
func (d *driver) later(id proto.NodeID, dt float64, f func(proto.NodeID)) {
	life := d.life[id]
	d.host.After(dt, func() {
		if d.life[id] == life {
			f(id)
		}
	})
}

// thinkTime returns the k-th think time of node id. It is a hash of (seed,
// id, k), not a draw from a shared stream, so a node's requests come at the
// same times whatever happens elsewhere (crashes included): a run and its
// crash-free baseline issue the same requests.
func (d *driver) thinkTime(id proto.NodeID) float64 {
	k := d.thinks[id]
	d.thinks[id]++
	return ThinkTime(d.seed, id, k, d.think)
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func (d *driver) scheduleThink(id proto.NodeID) {
	d.later(id, d.thinkTime(id), d.issue)
}

func (d *driver) more() bool {
	return d.issued < d.requests || d.host.Now() < d.until
}

// issue makes node id call enter_cs, if requests remain.
func (d *driver) issue(id proto.NodeID) {
	if !d.more() || d.busy[id] || d.host.Down(id) || d.issued >= math.MaxUint32-1 {
		d.check()
		return
	}
	if d.poll != nil {
		d.poll()
	}
	d.issued++
	d.busy[id] = true
	d.since[id] = d.host.Now()
	d.issuedAt = append(d.issuedAt, d.host.Now())
	d.host.Input(0, id, proto.EnterCS, uint32(d.issued))
}

// next issues the sequential workload's next request from a uniformly random live node.
func (d *driver) next() {
	if !d.more() {
		d.check()
		return
	}
	for tries := 0; tries < 64*d.n; tries++ {
		id := proto.NodeID(d.rng.IntN(d.n))
		if !d.host.Down(id) {
			d.pending = true
			d.issue(id)
			return
		}
	}
	d.host.After(d.csTime+1e-9, d.next) // every node is down: try later
}

// entered is called when node id enters the CS for request tag.
func (d *driver) entered(id proto.NodeID, tag uint32) {
	d.served++
	d.lastEntry = d.host.Now()
	d.inCS[id] = true
	if int(tag) < len(d.issuedAt) {
		d.waits = append(d.waits, d.host.Now()-d.issuedAt[tag])
	}
	d.host.Input(d.csTime, id, proto.ExitCS, 0)
	d.later(id, d.csTime, d.exited)
}

func (d *driver) exited(id proto.NodeID) {
	d.busy[id], d.inCS[id] = false, false
	switch d.kind {
	case "poisson":
		d.scheduleThink(id)
	case "saturated":
		d.issue(id)
	}
	d.check()
}

// crashed is called when node id crashes: its pending request is abandoned
// (a CS it was in ends with it).
func (d *driver) crashed(id proto.NodeID) {
	d.life[id]++
	if d.busy[id] && !d.inCS[id] {
		d.abandoned++
	}
	d.busy[id], d.inCS[id] = false, false
	d.check()
}

// recovered is called when node id is up again.
func (d *driver) recovered(id proto.NodeID) {
	switch d.kind {
	case "poisson":
		d.scheduleThink(id)
	case "saturated":
		d.issue(id)
	}
}

// oldestWait returns the node whose request has waited longest for the CS
// (issued, not yet entered) and when it was issued; proto.Nil if none waits.
func (d *driver) oldestWait() (proto.NodeID, float64) {
	id, at := proto.Nil, 0.0
	for i, b := range d.busy {
		if b && !d.inCS[i] && (id == proto.Nil || d.since[i] < at) {
			id, at = proto.NodeID(i), d.since[i]
		}
	}
	return id, at
}

// quiet is called when no message is in flight and no node is in the CS.
func (d *driver) quiet() {
	if d.kind == "sequential" && d.pending && d.served+d.abandoned == d.issued {
		d.pending = false
		d.host.After(0, d.next)
	}
}

// check calls onDone once no more requests will be issued and every issued
// request is served or abandoned.
func (d *driver) check() {
	if !d.done && !d.more() && d.served+d.abandoned == d.issued {
		d.done = true
		if d.onDone != nil {
			d.onDone()
		}
	}
}
