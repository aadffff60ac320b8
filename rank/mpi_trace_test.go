//go:build mpi

package rank

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/mpi"
	"github.com/ocbench/ocbench/trace"
)

// TestMPITrace: the trace of a crash run on real MPI ranks, merged on rank
// 0, passes the trace checker (`ocbench check-trace`), and its counts are
// the record's. make mpi-test runs it on 4 ranks with N = 32 and 40
// crashes, issue 17's `--nodes 32 --workload poisson --crashes 40 --trace`
// command with fewer requests.
func TestMPITrace(t *testing.T) {
	p := mpi.WorldSize()
	n := max(32, p)
	var buf bytes.Buffer
	var w io.Writer = io.Discard // the other ranks send their events to rank 0
	if mpi.WorldRank() == 0 {
		w = &buf
	}
	spec := bench.Spec{Algorithm: "opencube", Nodes: n, Requests: 1, Workload: "poisson", Seed: 1, Delta: 4e-3, CSTime: 1,
		Think: 10 * float64(n), Trace: w,
		Faults: faults.FaultPlan{Crashes: 40, Spacing: "exp", Every: 50, Down: 20, DownDist: "exp", Target: "random"}}
	r, err := Run(MPI{}, spec, Options{})
	if err != nil {
		t.Fatalf("rank %d: %v", mpi.WorldRank(), err)
	}
	if mpi.WorldRank() != 0 {
		return
	}
	sum, err := trace.Check(&buf)
	switch {
	case err != nil && r.SafetyViolations > 0 && r.DelaysOverDelta > 0 && strings.Contains(err.Error(), "enters the critical section while"):
		// Safety rests on δ (TestMPICrashes): the trace shows the overlap
		// that the record counts.
		t.Skipf("%d deliveries later than δ broke mutual exclusion, and the trace shows it: %v", r.DelaysOverDelta, err)
	case err != nil:
		t.Fatalf("the merged trace fails the checker: %v (%+v)", err, sum)
	}
	if sum.Sent != r.MessagesTotal || sum.Entries != r.RequestsServed || sum.Crashes != int64(r.Failures) || sum.Dropped != r.MessagesDropped {
		t.Errorf("trace: %d sent, %d entries, %d crashes, %d dropped; record: %d, %d, %d, %d",
			sum.Sent, sum.Entries, sum.Crashes, sum.Dropped, r.MessagesTotal, r.RequestsServed, r.Failures, r.MessagesDropped)
	}
	clock := 0.0
	if m := r.MeasuredMinDelayDelta; m != nil {
		clock = *m
	}
	t.Logf("N=%d P=%d: %d events, %d messages, %d entries, %d crashes, longest delay %.2fδ; smallest delay measured %.2gδ, safety violations %d",
		n, p, sum.Lines, sum.Sent, sum.Entries, sum.Crashes, sum.MaxDelay/spec.Delta, clock, r.SafetyViolations)
}
