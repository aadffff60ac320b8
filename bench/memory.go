package bench

import (
	"fmt"
	"math"

	"github.com/ocbench/ocbench/internal/memsize"
	"github.com/ocbench/ocbench/proto"
)

// The simulator's memory model, in bytes (measured with
// runtime.ReadMemStats: TestMemoryEstimates).
const (
	// NodeBytes is a node's state when its algorithm is not a
	// proto.MemoryEstimator (O(1) per node: 40 to 210 bytes measured).
	NodeBytes = 512
	// SimNodeBytes is the runtime's own per node: the node's slot, its up
	// flag, the workload's and the tally's entries, its FIFO channels.
	SimNodeBytes = 256
	// MessageBytes is a message in flight: its payload in the event slab
	// and its heap entry.
	MessageBytes = 256
	// PlanBytes is a planned crash or corruption event.
	PlanBytes = 64
	// RequestBytes is what a run keeps per request until its record is
	// made: the stay in the critical section, the wait, the request's tag
	// and message count, their sorted copies and the synchronization
	// delays. Measured: a run's peak resident memory grows by 170 to 240
	// bytes per request (N = 8, 10^6 and 2·10^6 requests, sequential,
	// poisson and saturated: TestMemoryPerRequest), of which the collector's
	// headroom is about half.
	RequestBytes = 128
)

// Memory estimates the heap a simulated run of p needs, in bytes:
// N times (the algorithm's state per node, MemoryPerNode or NodeBytes, and
// the runtime's SimNodeBytes), the messages in flight (the stated cost of
// a critical section for every request that may be pending at once: one
// in the sequential and each workloads, N in the others; kofl's 2ℓ tokens
// and counts), the fault plan's events. Go's collector lets the heap grow
// to about twice the live data, which the default budget (half the
// machine's memory) leaves room for. A run keeps RequestBytes per
// request: Requests of them, the minimum a run issues (a run with crashes
// issues requests until its fault plan is over, and may issue more).
func Memory(p *Plan) float64 {
	s, a := &p.Spec, p.Registered
	n := float64(s.Nodes)
	perNode := float64(NodeBytes)
	if m, ok := a.(proto.MemoryEstimator); ok {
		perNode = float64(m.MemoryPerNode(s.Nodes))
	}
	cost := 2 * math.Log2(max(n, 2))
	if c, ok := a.(proto.CostAlgorithm); ok {
		cost = max(cost, c.StatedCost(s.Nodes).High)
	}
	pending := n
	if s.Workload == "sequential" || s.Workload == "each" {
		pending = 1
	}
	inFlight := cost*pending + 2*float64(s.Ell)
	events := float64(s.Faults.Crashes)
	if s.Transient.Mode == "during" {
		events += float64(s.Transient.Events)
	}
	return n*(perNode+SimNodeBytes) + inFlight*MessageBytes + events*PlanBytes + float64(s.Requests)*RequestBytes
}

// Budget returns an error, one line, if the run of p is
// estimated to need more memory than max bytes (Memory): it names the
// estimate, the budget and how to raise it. A run above it would end in
// Go's fatal out-of-memory dump (Lamport's state is quadratic in N).
func (p *Plan) Budget(max float64) error {
	s := &p.Spec
	if need := Memory(p); need > max {
		return fmt.Errorf("%s at N = %d with %d requests needs about %s of memory (estimate), more than the budget of %s: lower --nodes or --requests, or raise --max-memory if the machine has it",
			s.Algorithm, s.Nodes, s.Requests, memsize.Format(need), memsize.Format(max))
	}
	return nil
}
