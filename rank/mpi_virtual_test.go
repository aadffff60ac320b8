//go:build mpi

package rank

import (
	"bytes"
	"sort"
	"testing"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/mpi"
	"github.com/ocbench/ocbench/results"
)

// TestMPIVirtual: on real MPI ranks, in virtual time, every case of
// virtualCases (every algorithm failure-free, every fault-tolerant one with
// crashes, every crash target) runs as one job in both placements, and
// every record equals the simulator's field for field but the runtime's
// own; the first case's merged trace equals the simulator's byte for byte.
func TestMPIVirtual(t *testing.T) {
	cases := virtualCases()
	for name, s := range cases {
		s.Nodes = max(s.Nodes, mpi.WorldSize()) // a node per rank at least
		cases[name] = s
	}
	names := make([]string, 0, len(cases))
	for name := range cases {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, placement := range []string{"block", "cyclic"} {
		for start := 0; start < len(names); start += MaxVirtualRuns / 2 {
			batch := names[start:min(start+MaxVirtualRuns/2, len(names))]
			specs := make([]bench.Spec, len(batch))
			var tr bytes.Buffer
			for k, name := range batch {
				specs[k] = cases[name]
			}
			specs[0].Trace = &tr // only rank 0 writes it
			got, err := Virtual{Comm: MPI{}, Placement: placement}.Run(specs)
			if err != nil {
				t.Fatalf("rank %d: %v", mpi.WorldRank(), err)
			}
			if mpi.WorldRank() != 0 {
				continue
			}
			for k, name := range batch {
				want, simTrace := simulate(t, cases[name], k == 0)
				if g, w := comparable(t, got[k]), comparable(t, want); g != w {
					t.Errorf("%s %s P=%d: record differs from the simulator's:\n got %s\nwant %s", name, placement, mpi.WorldSize(), g, w)
				}
				if k == 0 && !bytes.Equal(tr.Bytes(), simTrace) {
					t.Errorf("%s %s P=%d: merged trace differs from the simulator's (%d bytes, not %d)", name, placement, mpi.WorldSize(), tr.Len(), len(simTrace))
				}
			}
		}
	}
}

// simulate runs spec on the simulator, with its trace if asked, and fails
// the test if the run breaks a property.
func simulate(t *testing.T, spec bench.Spec, trace bool) (*results.Run, []byte) {
	t.Helper()
	var b bytes.Buffer
	if trace {
		spec.Trace = &b
	}
	r, err := bench.Run(spec)
	if err != nil {
		t.Fatal(err)
	}
	if r.Violation != "" {
		t.Fatalf("the simulator's run fails: %s", r.Violation)
	}
	return r, b.Bytes()
}

// TestMPIVirtualKofl: on real MPI ranks, each kofl case of virtualCases
// (no transient fault, an arbitrary and an adversarial initial
// configuration, Root's time-out) runs as a job of its own in both
// placements, with its trace: the record equals the simulator's and the
// merged trace, with the mirror's lines (bench.Ending.MirrorTrace), equals
// the simulator's byte for byte.
func TestMPIVirtualKofl(t *testing.T) {
	cases := virtualCases()
	var names []string
	for name := range cases {
		if algo.IsSelfStabilizing(cases[name].Algorithm) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatal("no kofl case")
	}
	for _, placement := range []string{"block", "cyclic"} {
		for _, name := range names {
			s := cases[name]
			s.Nodes = max(s.Nodes, mpi.WorldSize())
			var tr bytes.Buffer
			spec := s
			spec.Trace = &tr
			got, err := Virtual{Comm: MPI{}, Placement: placement}.Run([]bench.Spec{spec})
			if err != nil {
				t.Fatalf("rank %d: %s: %v", mpi.WorldRank(), name, err)
			}
			if mpi.WorldRank() != 0 {
				continue
			}
			want, simTrace := simulate(t, s, true)
			if g, w := comparable(t, got[0]), comparable(t, want); g != w {
				t.Errorf("%s %s P=%d: record differs from the simulator's:\n got %s\nwant %s", name, placement, mpi.WorldSize(), g, w)
			}
			if !bytes.Equal(tr.Bytes(), simTrace) {
				t.Errorf("%s %s P=%d: merged trace differs from the simulator's (%d bytes, not %d)", name, placement, mpi.WorldSize(), tr.Len(), len(simTrace))
			}
		}
	}
}
