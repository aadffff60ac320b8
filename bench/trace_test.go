package bench

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/trace"
	"github.com/ocbench/ocbench/workload"
)

// TestTracesCheck: the simulator's traces pass the trace checker, for
// every algorithm and workload, and with crashes of every target; the
// checker's counts agree with the record's.
func TestTracesCheck(t *testing.T) {
	type tc struct {
		algo     string
		workload workload.Kind
		target   faults.Target
		crashes  int
	}
	var cases []tc
	for _, a := range algo.Ordered() {
		for _, w := range []workload.Kind{"sequential", "poisson", "saturated"} {
			cases = append(cases, tc{a, w, "", 0})
		}
	}
	for _, target := range faults.Targets {
		cases = append(cases, tc{"opencube", "poisson", target, 20}, tc{"opencube", "saturated", target, 20})
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s/%s", c.algo, c.workload, c.target), func(t *testing.T) {
			var buf bytes.Buffer
			s := Spec{Algorithm: c.algo, Nodes: 16, Requests: 300, Workload: c.workload, Seed: 3, CSTime: 1, Trace: &buf}
			if c.crashes > 0 {
				s.Faults = faults.FaultPlan{Crashes: c.crashes, Spacing: "exp", Every: 30, Down: 10, DownDist: "exp", Target: c.target}
			}
			r, err := Run(s)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := trace.CheckWith(&buf, trace.Options{KExclusion: algo.IsKExclusion(c.algo)})
			if err != nil {
				t.Fatalf("%v (%+v)", err, sum)
			}
			if sum.Sent != r.MessagesTotal || sum.Entries != r.RequestsServed || sum.Crashes != int64(r.Failures) {
				t.Errorf("trace: %d sent, %d entries, %d crashes; record: %d, %d, %d", sum.Sent, sum.Entries, sum.Crashes, r.MessagesTotal, r.RequestsServed, r.Failures)
			}
		})
	}
}
