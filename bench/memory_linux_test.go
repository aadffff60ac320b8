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

// TestMemoryEstimateRange checks the memory estimate against what runs
// take: the open-cube's peak resident memory (VmHWM) in a child process
// running one run, for each workload from N = 2^10 to 2^18 (with
// OCBENCH_LARGE_N=1, make large-n: to 2^25 sequential, 2^22 the others), is within a factor of 1.5 of Memory
// plus the child's peak before the run (the test binary's runtime). A workload's largest N is the largest the default
// budget (half of a 24 GiB machine) takes.
func TestMemoryEstimateRange(t *testing.T) {
	spec := func(w workload.Kind, n int, requests int64) Spec {
		return Spec{Algorithm: "opencube", Nodes: n, Workload: w, Requests: requests, Seed: 1, CSTime: 1, Check: CheckCounts}
	}
	if child := os.Getenv("OCBENCH_ESTIMATE_CHILD"); child != "" {
		var w string
		var n int
		var requests int64
		if _, err := fmt.Sscanf(child, "%s %d %d", &w, &n, &requests); err != nil {
			t.Fatal(err)
		}
		base, err := memsize.Peak(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(spec(workload.Kind(w), n, requests)); err != nil {
			t.Fatal(err)
		}
		peak, err := memsize.Peak(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("base %.0f\npeak %.0f\n", base, peak)
		return
	}
	if testing.Short() {
		t.Skip("runs child processes up to N = 2^18")
	}
	large := os.Getenv("OCBENCH_LARGE_N") == "1"
	type run struct {
		w        workload.Kind
		log2     int
		requests int64
	}
	var runs []run
	for _, w := range []workload.Kind{workload.Sequential, workload.Poisson, workload.Saturated} {
		top := 18
		switch {
		case large && w == workload.Sequential:
			top = 25
		case large:
			top = 22
		}
		for k := 10; k <= top; k += 2 {
			if k == 24 && top == 25 {
				k = 25 // 2^24 and 2^25: the largest is the one to check
			}
			runs = append(runs, run{w, k, 1000})
		}
		runs = append(runs, run{w, 16, 100000})
	}
	for _, r := range runs {
		t.Run(fmt.Sprintf("%s/N=2^%d/requests=%d", r.w, r.log2, r.requests), func(t *testing.T) {
			child := fmt.Sprintf("%s %d %d", r.w, 1<<r.log2, r.requests)
			cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryEstimateRange$", "-test.count=1")
			cmd.Env = append(os.Environ(), "OCBENCH_ESTIMATE_CHILD="+child)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child %s: %v\n%s", child, err, out)
			}
			var base, peak float64
			for _, line := range strings.Split(string(out), "\n") {
				if v, ok := strings.CutPrefix(line, "peak "); ok {
					peak, _ = strconv.ParseFloat(v, 64)
				}
				if v, ok := strings.CutPrefix(line, "base "); ok {
					base, _ = strconv.ParseFloat(v, 64)
				}
			}
			if peak <= 0 || base <= 0 {
				t.Fatalf("child %s printed no peak:\n%s", child, out)
			}
			p, err := spec(r.w, 1<<r.log2, r.requests).Resolve()
			if err != nil {
				t.Fatal(err)
			}
			est := base + Memory(p) // the process's own before the run, and the run's
			if ratio := est / peak; ratio > 1.5 || ratio < 1/1.5 {
				t.Errorf("estimate %s, peak %s: %.2f× the peak, want within 1.5×", memsize.Format(est), memsize.Format(peak), ratio)
			} else {
				t.Logf("estimate %s, peak %s: %.2f×", memsize.Format(est), memsize.Format(peak), ratio)
			}
		})
	}
}
