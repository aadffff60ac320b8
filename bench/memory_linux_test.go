package bench

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/internal/memsize"
	"github.com/ocbench/ocbench/workload"
)

// TestMemoryPerRequest measures what a run keeps per request: the peak
// resident memory (Linux: VmHWM in /proc/self/status) of a child process running N = 8 with many requests, less
// that of one with few, per request, against RequestBytes and the
// collector's headroom (2×): within a factor of 2 for each workload.
func TestMemoryPerRequest(t *testing.T) {
	spec := func(w workload.Kind, requests int64) Spec {
		return Spec{Algorithm: "opencube", Nodes: 8, Workload: w, Requests: requests, Seed: 1, CSTime: 1, Check: CheckCounts}
	}
	if child := os.Getenv("OCBENCH_MEMORY_CHILD"); child != "" {
		w, r, _ := strings.Cut(child, ":")
		requests, err := strconv.ParseInt(r, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(spec(workload.Kind(w), requests)); err != nil {
			t.Fatal(err)
		}
		peak, err := memsize.Peak(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("peak %.0f\n", peak) // which the parent reads
		return
	}
	if testing.Short() {
		t.Skip("runs child processes of 10^6 requests")
	}
	peak := func(w workload.Kind, requests int64) float64 {
		child := fmt.Sprintf("%s:%d", w, requests)
		cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryPerRequest$", "-test.count=1")
		cmd.Env = append(os.Environ(), "OCBENCH_MEMORY_CHILD="+child)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child %s: %v\n%s", child, err, out)
		}
		// The child's own peak (memsize.Peak), as it printed it.
		for _, line := range strings.Split(string(out), "\n") {
			if v, ok := strings.CutPrefix(line, "peak "); ok {
				if b, err := strconv.ParseFloat(v, 64); err == nil {
					return b
				}
			}
		}
		t.Fatalf("child %s printed no peak:\n%s", child, out)
		return 0
	}
	for _, w := range []workload.Kind{workload.Sequential, workload.Saturated, workload.Poisson} {
		const few, many = 1000, 1_000_000
		per := (peak(w, many) - peak(w, few)) / (many - few)
		if want := 2.0 * RequestBytes; per > 2*want || per < want/2 {
			t.Errorf("%s: %.0f bytes of peak memory per request, the estimate's %d with the collector's headroom %.0f", w, per, RequestBytes, want)
		} else {
			t.Logf("%s: %.0f bytes of peak memory per request (estimate with headroom: %.0f)", w, per, want)
		}
	}
}
