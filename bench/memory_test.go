package bench

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/proto"
)

// liveHeap returns the heap that what f returns keeps alive, in bytes.
func liveHeap(f func() any) float64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	x := f()
	runtime.GC()
	runtime.ReadMemStats(&b)
	runtime.KeepAlive(x)
	return float64(b.HeapAlloc) - float64(a.HeapAlloc)
}

// TestMemoryEstimates measures the heap per node of every algorithm's
// initial state at a few N: a proto.MemoryEstimator's MemoryPerNode is
// within a factor of 2 of it (and 64 KiB over all nodes), and an algorithm without one takes no more
// than NodeBytes (else it needs one).
func TestMemoryEstimates(t *testing.T) {
	for _, name := range algo.Ordered() {
		a := lookup(name)
		for _, n := range []int{256, 1024, 4096} {
			if testing.Short() && n > 1024 {
				continue
			}
			m, ok := a.(proto.MemoryEstimator)
			// The heap's other changes, 64 KiB at most, blur a few
			// hundred small nodes: they are the slack. The other tests
			// of the package allocate and free beside this one, so a
			// measurement outside the bounds is taken again, up to three
			// times: a wrong estimate is outside them every time.
			slack := 65536 / float64(n)
			var got float64
			var bad string
			for range 3 {
				got = liveHeap(func() any { return a.NewNodes(n) }) / float64(n)
				switch {
				case ok && (float64(m.MemoryPerNode(n)) > 2*got+slack || 2*float64(m.MemoryPerNode(n))+slack < got):
					bad = fmt.Sprintf("%s at N = %d: MemoryPerNode %d bytes, measured %.0f", name, n, m.MemoryPerNode(n), got)
				case !ok && got > NodeBytes:
					bad = fmt.Sprintf("%s at N = %d: %.0f bytes per node measured, more than NodeBytes = %d: implement proto.MemoryEstimator", name, n, got, NodeBytes)
				default:
					bad = ""
				}
				if bad == "" {
					break
				}
			}
			if bad != "" {
				t.Error(bad)
			}
		}
	}
}

// TestMemoryBudget: a run above the budget is refused with one line naming the
// estimate, the budget and --max-memory; Lamport at N = 65536 is refused
// by 8 GiB, N = 1024 taken.
func TestMemoryBudget(t *testing.T) {
	budget := func(s Spec) error {
		p, err := s.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		return p.Budget(8 << 30)
	}
	err := budget(Spec{Algorithm: "lamport", Nodes: 65536, Requests: 10, Workload: "sequential"})
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "--max-memory") || !strings.Contains(err.Error(), "8 GiB") {
		t.Errorf("lamport N=65536: %v", err)
	}
	if err := budget(Spec{Algorithm: "lamport", Nodes: 1024, Requests: 10, Workload: "sequential"}); err != nil {
		t.Errorf("lamport N=1024: %v", err)
	}

}

// TestMemoryCountsRequests: the estimate grows with the requests a run
// keeps until its record (RequestBytes each), so a budget refuses a run of
// many requests on few nodes (--nodes 8 --requests 10000000 --max-memory
// 100M reached 2.78 GB).
func TestMemoryCountsRequests(t *testing.T) {
	plan := func(requests int64) *Plan {
		p, err := Spec{Algorithm: "opencube", Nodes: 8, Requests: requests, Workload: "sequential"}.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if d := Memory(plan(2000)) - Memory(plan(1000)); d != 1000*RequestBytes {
		t.Errorf("1000 more requests add %g bytes to the estimate, want %d", d, 1000*RequestBytes)
	}
	err := plan(10_000_000).Budget(100 << 20)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "--requests") {
		t.Errorf("10^7 requests on 8 nodes within 100 MiB: %v; want a one-line refusal naming --requests", err)
	}
}
