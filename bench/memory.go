package bench

import (
	"fmt"
	"math"

	"github.com/ocbench/ocbench/internal/memsize"
	"github.com/ocbench/ocbench/proto"
)

// The simulator's memory model, in bytes of peak resident memory
// (calibrated on the open-cube, N = 2^10 to 2^22, each workload: the peak
// VmHWM of a process running one run, TestMemoryEstimateRange).
const (
	// NodeBytes is a node's state when its algorithm is not a
	// proto.MemoryEstimator (O(1) per node: 40 to 210 bytes measured).
	NodeBytes = 512
	// SimNodeBytes is the runtime's own per node: the node's slot in the
	// simulator, the workload's entry, the part's open stay and its
	// hosted list (76 bytes allocated; a sequential run's peak grows by
	// 120 to 130 bytes per node beside the open-cube's 76).
	SimNodeBytes = 80
	// TimerBytes is what a workload that runs on every node (poisson,
	// saturated, each) holds per node beyond SimNodeBytes: the node's
	// pending think time or request in the event slab and the queue, its
	// closure, and the collector's headroom over the garbage the per-node
	// events make (peak 770 to 790 bytes per node against the sequential
	// workload's 125, N = 2^14 to 2^20).
	TimerBytes = 600
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

// Memory estimates the peak memory a simulated run of p adds to its
// process (the process's own, about 15 MiB for ocbench, is not in it: runs
// at once share it), in bytes: N times (the algorithm's state per node,
// MemoryPerNode or NodeBytes, the runtime's SimNodeBytes and, where the
// workload runs on every node, TimerBytes), the messages in flight, the
// fault plan's events and RequestBytes per request. The messages in
// flight are those of the requests pending at once (one in the sequential
// and each workloads, else as many as there are nodes or requests,
// whichever is fewer): a permission-based request's stated cost in
// messages each, a token-based request's two (it travels hop by hop),
// and kofl's 2ℓ tokens and counts. A run keeps Requests requests, the
// minimum a run issues (a run with crashes issues requests until its
// fault plan is over, and may issue more).
func Memory(p *Plan) float64 {
	s, a := &p.Spec, p.Registered
	n := float64(s.Nodes)
	perNode := float64(NodeBytes + SimNodeBytes)
	if m, ok := a.(proto.MemoryEstimator); ok {
		perNode = float64(m.MemoryPerNode(s.Nodes) + SimNodeBytes)
	}
	pending := 1.0
	if s.Workload != "sequential" && s.Workload != "each" {
		pending = min(n, float64(max(s.Requests, 1)))
	}
	if s.Workload != "sequential" {
		perNode += TimerBytes
	}
	inFlight := 2.0
	if a.Family() != proto.TokenBased {
		inFlight = 2 * math.Log2(max(n, 2))
		if c, ok := a.(proto.CostAlgorithm); ok {
			inFlight = max(inFlight, c.StatedCost(s.Nodes).High)
		}
	}
	events := float64(s.Faults.Crashes)
	if s.Transient.Mode == "during" {
		events += float64(s.Transient.Events)
	}
	return n*perNode + (inFlight*pending+2*float64(s.Ell))*MessageBytes + events*PlanBytes + float64(s.Requests)*RequestBytes
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
