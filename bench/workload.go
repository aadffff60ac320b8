package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/ocbench/ocbench/proto"
)

// Workloads lists the workload names; the first is the default.
//
//   - sequential: one request at a time from a uniformly random node; the
//     next starts once the previous CS has ended and any lent token is back.
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
	// Stop ends the run.
	Stop()
	// Down reports whether a node is crashed.
	Down(id proto.NodeID) bool
}

// driver issues CS requests according to a workload and follows them.
type driver struct {
	kind     string
	host     Host
	rng      *rand.Rand
	n        int
	requests int64
	csTime   float64 // seconds
	think    float64 // mean think time, seconds

	issued, served int64
	pending        bool      // sequential: a request is outstanding
	issuedAt       []float64 // by tag
	waits          []float64 // seconds, by served request
	busy           []bool    // node has a request issued and not yet finished
	done           bool
}

func newDriver(kind string, host Host, rng *rand.Rand, n int, requests int64, csTime, think float64) *driver {
	return &driver{kind: kind, host: host, rng: rng, n: n, requests: requests, csTime: csTime, think: think,
		issuedAt: make([]float64, 1, requests+1), busy: make([]bool, n)}
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
			id := proto.NodeID(i)
			d.host.After(0, func() { d.issue(id) })
		}
	}
}

func (d *driver) scheduleThink(id proto.NodeID) {
	d.host.After(d.rng.ExpFloat64()*d.think, func() { d.issue(id) })
}

// issue makes node id call enter_cs, if requests remain.
func (d *driver) issue(id proto.NodeID) {
	if d.issued >= d.requests || d.busy[id] || d.host.Down(id) {
		return
	}
	d.issued++
	d.busy[id] = true
	d.issuedAt = append(d.issuedAt, d.host.Now())
	d.host.Input(0, id, proto.EnterCS, uint32(d.issued))
}

// next issues the sequential workload's next request from a uniformly random node.
func (d *driver) next() {
	if d.issued >= d.requests {
		d.finish()
		return
	}
	d.pending = true
	d.issue(proto.NodeID(d.rng.IntN(d.n)))
}

// entered is called when node id enters the CS for request tag.
func (d *driver) entered(id proto.NodeID, tag uint32) {
	d.served++
	if int(tag) < len(d.issuedAt) {
		d.waits = append(d.waits, d.host.Now()-d.issuedAt[tag])
	}
	d.host.Input(d.csTime, id, proto.ExitCS, 0)
	d.host.After(d.csTime, func() { d.exited(id) })
}

func (d *driver) exited(id proto.NodeID) {
	d.busy[id] = false
	switch d.kind {
	case "poisson":
		d.scheduleThink(id)
	case "saturated":
		d.issue(id)
	}
}

// quiet is called when no message is in flight and no node is in the CS.
func (d *driver) quiet() {
	if d.kind == "sequential" && d.pending && d.served == d.issued {
		d.pending = false
		d.host.After(0, d.next)
	}
}

func (d *driver) finish() {
	if !d.done {
		d.done = true
		d.host.Stop()
	}
}
