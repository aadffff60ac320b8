//go:build mpi

package cluster

// The tests of this file run on the ranks of an MPI job (make mpi-test):
//
//	go test -c -tags mpi -o cluster.test ./cluster
//	mpirun -np 4 ./cluster.test -test.run MPI

import (
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/mpi"
)

func TestMain(m *testing.M) {
	if _, err := mpi.Init(mpi.ThreadFunneled); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// TestMPIParity: on real MPI ranks, a failure-free sequential workload costs
// exactly the simulator's messages per request, by type.
func TestMPIParity(t *testing.T) {
	p := mpi.WorldSize()
	for _, c := range []struct {
		algo      string
		perRank   int
		placement string
	}{
		{"opencube", 2, "block"},
		{"opencube", 4, "cyclic"},
		{"naimi-trehel", 1, "block"},
		{"raymond", 2, "cyclic"},
		{"centralized", 1, "block"},
	} {
		n := max(2, c.perRank*p)
		spec := bench.Spec{Algorithm: c.algo, Nodes: n, Requests: 100, Workload: "sequential", Seed: 11, Delta: 2e-3, CSTime: 0}
		got, err := Run(MPI{}, spec, Options{Placement: c.placement})
		if err != nil {
			t.Fatalf("rank %d: %s N=%d: %v", mpi.WorldRank(), c.algo, n, err)
		}
		if mpi.WorldRank() != 0 {
			continue
		}
		want, err := bench.Run(spec)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%s N=%d P=%d %s", c.algo, n, p, c.placement)
		if got.MessagesTotal != want.MessagesTotal || !reflect.DeepEqual(got.MessagesByType, want.MessagesByType) {
			t.Errorf("%s: messages %d %v; simulator %d %v", name, got.MessagesTotal, got.MessagesByType, want.MessagesTotal, want.MessagesByType)
		}
		if got.MsgsPerRequest.Mean != want.MsgsPerRequest.Mean || got.MsgsPerRequest.Max != want.MsgsPerRequest.Max {
			t.Errorf("%s: msg/req mean %v max %v; simulator mean %v max %v", name, got.MsgsPerRequest.Mean, got.MsgsPerRequest.Max, want.MsgsPerRequest.Mean, want.MsgsPerRequest.Max)
		}
		if got.SafetyViolations+got.LivenessViolations+int(got.MalformedFrames) != 0 || got.Ranks != p {
			t.Errorf("%s: %d ranks, violations: %s, malformed %d", name, got.Ranks, got.Violation, got.MalformedFrames)
		}
		t.Logf("%s: %d messages (%d between ranks, %.2f hops each), max delay %.2fδ", name, got.MessagesTotal, got.MessagesInterRank, got.HopsPerMessage, got.MaxDelayDelta)
	}
}

// TestMPICrashes: crashes injected on the ranks that host their victims,
// with the baseline alongside; no two nodes are ever in the critical section.
func TestMPICrashes(t *testing.T) {
	p := mpi.WorldSize()
	n := max(4, 2*p)
	spec := bench.Spec{Algorithm: "opencube", Nodes: n, Requests: 1, Workload: "poisson", Seed: 5, Delta: 2e-3, CSTime: 1,
		Think: 10 * float64(n), Faults: bench.FaultPlan{Crashes: 10, Spacing: "exp", Every: 60, Down: 20, DownDist: "exp", Target: "random"}}
	r, err := Run(MPI{}, spec, Options{})
	if err != nil {
		t.Fatalf("rank %d: %v", mpi.WorldRank(), err)
	}
	if mpi.WorldRank() != 0 {
		return
	}
	if r.Failures != 10 || r.SafetyViolations != 0 || r.MalformedFrames != 0 || len(r.CPUSecondsPerRank) != p {
		t.Errorf("failures %d, safety violations %d (%s), malformed %d, cpu %v", r.Failures, r.SafetyViolations, r.Violation, r.MalformedFrames, r.CPUSecondsPerRank)
	}
	t.Logf("N=%d P=%d: overhead/failure %.2f, differential %.2f, served %d/%d, %d of %d deliveries over δ (max %.2fδ), liveness: %s",
		n, p, r.OverheadPerFailure.Mean, r.OverheadDifferential.Mean, r.RequestsServed, r.RequestsIssued, r.DelaysOverDelta, r.MessagesTotal, r.MaxDelayDelta, r.Violation)
}
