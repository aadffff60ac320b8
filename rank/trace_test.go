package rank

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/trace"
	"github.com/ocbench/ocbench/workload"
)

// TestTrace: the merged trace of goroutine ranks passes the trace checker,
// and its counts are the record's.
func TestTrace(t *testing.T) {
	for _, c := range []struct {
		algo       string
		workload   workload.Kind
		target     faults.Target
		crashes, p int
	}{
		{"opencube", "poisson", "random", 8, 4},
		{"opencube", "poisson", "token", 8, 2},
		{"suzuki-kasami", "saturated", "", 0, 4}, // payloads
		{"ricart-agrawala", "sequential", "", 0, 8},
	} {
		t.Run(fmt.Sprintf("%s/%s/%s/P%d", c.algo, c.workload, c.target, c.p), func(t *testing.T) {
			var buf bytes.Buffer
			spec := bench.Spec{Algorithm: c.algo, Nodes: 16, Requests: 100, Workload: c.workload, Seed: 3,
				Delta: 4e-3, CSTime: 1, Think: 80}
			if c.crashes > 0 {
				spec.Requests = 1
				spec.Faults = faults.FaultPlan{Crashes: c.crashes, Spacing: "exp", Every: 40, Down: 10, DownDist: "exp", Target: c.target}
			}
			r := runTimely(t, c.p, spec, func(s *bench.Spec) {
				buf.Reset()
				s.Trace = &buf
			})
			text := buf.String()
			sum, err := trace.Check(strings.NewReader(text))
			if err != nil {
				t.Fatalf("%v (%+v)", err, sum)
			}
			if sum.Sent != r.MessagesTotal || sum.Entries != r.RequestsServed || sum.Crashes != int64(r.Failures) || sum.Dropped != r.MessagesDropped {
				t.Errorf("trace: %d sent, %d entries, %d crashes, %d dropped; record: %d, %d, %d, %d",
					sum.Sent, sum.Entries, sum.Crashes, sum.Dropped, r.MessagesTotal, r.RequestsServed, r.Failures, r.MessagesDropped)
			}
			t.Logf("%+v", sum)
		})
	}
}

// TestMergeTrace: a receipt whose rank's clock runs behind waits for its
// send, the rank's later events after it; times never decrease, messages
// are numbered in the order of their sends.
func TestMergeTrace(t *testing.T) {
	m := proto.Message{From: 0, To: 1}
	recs := [][]traceRec{
		{{T: 1, Ev: trRequest, Node: 0}, {T: 2, Ev: trSend, Node: 0, ID: 10, Msg: m}, {T: 5, Ev: trExit, Node: 0}},
		{{T: 1.5, Ev: trRecv, Node: 1, ID: 10, Msg: m}, {T: 1.8, Ev: trEnter, Node: 1}, {T: 3, Ev: trSend, Node: 1, ID: 7, Msg: m}},
	}
	var got []string
	raised := mergeTrace(recs, func(t float64, r *traceRec, id uint64) {
		got = append(got, fmt.Sprintf("%g %s %d", t, traceEvents[r.Ev], id))
	})
	want := []string{"1 request 0", "2 send 1", "2 recv 1", "2 enter 0", "3 send 2", "5 exit 0"}
	if fmt.Sprint(got) != fmt.Sprint(want) || raised != 0.5 {
		t.Errorf("merged %q, raised %g; want %q, 0.5", got, raised, want)
	}
}
