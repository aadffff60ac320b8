package bench

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

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
)

// Memory estimates the heap a simulated run of p needs, in bytes:
// N times (the algorithm's state per node, MemoryPerNode or NodeBytes, and
// the runtime's SimNodeBytes), the messages in flight (the stated cost of
// a critical section for every request that may be pending at once: one
// in the sequential and each workloads, N in the others; kofl's 2ℓ tokens
// and counts), the fault plan's events. Go's collector lets the heap grow
// to about twice the live data, which the default budget (half the
// machine's memory) leaves room for.
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
	return n*(perNode+SimNodeBytes) + inFlight*MessageBytes + events*PlanBytes
}

// Budget returns an error, one line, if the run of p is
// estimated to need more memory than max bytes (Memory): it names the
// estimate, the budget and how to raise it. A run above it would end in
// Go's fatal out-of-memory dump (Lamport's state is quadratic in N).
func (p *Plan) Budget(max float64) error {
	s := &p.Spec
	if need := Memory(p); need > max {
		return fmt.Errorf("%s at N = %d needs about %s of memory (estimate), more than the budget of %s: lower --nodes, or raise --max-memory if the machine has it",
			s.Algorithm, s.Nodes, Bytes(need), Bytes(max))
	}
	return nil
}

// DefaultMaxMemory returns the default memory budget: half of MemTotal in
// /proc/meminfo, or FallbackMaxMemory where it cannot be read.
func DefaultMaxMemory() float64 {
	if t, err := memTotal("/proc/meminfo"); err == nil {
		return t / 2
	}
	return FallbackMaxMemory
}

// FallbackMaxMemory is the memory budget where the machine's memory is
// unknown: 4 GiB.
const FallbackMaxMemory = 4 << 30

// memTotal reads MemTotal (bytes) from a meminfo file.
func memTotal(path string) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("memory budget: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != "MemTotal" {
			continue
		}
		fs := strings.Fields(v)
		if len(fs) != 2 || fs[1] != "kB" {
			break
		}
		kb, err := strconv.ParseFloat(fs[0], 64)
		if err != nil {
			return 0, fmt.Errorf("memory budget: MemTotal in %s: %w", path, err)
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("memory budget: no MemTotal in kB in %s", path)
}

// Bytes formats a number of bytes with a binary unit: 512 B, 1.5 GiB.
func Bytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	k := 0
	for b >= 1024 && k < len(units)-1 {
		b /= 1024
		k++
	}
	if k == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.3g %s", b, units[k])
}

// ParseBytes reads a memory size: a number of bytes, or one with a unit
// K, M, G, T (powers of 1024; KiB, KB and k are the same).
func ParseBytes(s string) (float64, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	for i, u := range []string{"K", "M", "G", "T"} {
		for _, suf := range []string{u + "iB", u + "B", u, strings.ToLower(u)} {
			if strings.HasSuffix(t, suf) {
				t, mult = strings.TrimSuffix(t, suf), math.Pow(1024, float64(i+1))
				break
			}
		}
		if mult != 1 {
			break
		}
	}
	t = strings.TrimSuffix(t, "B")
	x, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || !(x > 0) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%q is not a memory size (bytes, or with K, M, G, T)", s)
	}
	return x * mult, nil
}
