package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/workload"
)

// TestSyncDelaysOf: a sample per exit at which a later stay's request was
// already issued, none after an exit nobody waited for or a crash.
func TestSyncDelaysOf(t *testing.T) {
	for _, c := range []struct {
		name  string
		stays []workload.Stay
		want  []float64
	}{
		{"none", nil, nil},
		{"one stay", []workload.Stay{{Issued: 0, Enter: 1, Out: 2}}, nil},
		{"hand-over", []workload.Stay{{Issued: 0, Enter: 1, Out: 2}, {Node: 1, Issued: 1.5, Enter: 2.5, Out: 3.5}}, []float64{0.5}},
		{"nobody waited", []workload.Stay{{Issued: 0, Enter: 1, Out: 2}, {Node: 1, Issued: 2.2, Enter: 2.5, Out: 3.5}}, nil},
		{"ended by a crash", []workload.Stay{{Issued: 0, Enter: 1, Out: 2, Crashed: true}, {Node: 1, Issued: 1.5, Enter: 4, Out: 5}}, nil},
		{"a later request waited, an earlier-issued one entered first", []workload.Stay{
			{Issued: 0, Enter: 1, Out: 2},
			{Node: 1, Issued: 2.1, Enter: 3, Out: 4}, // issued after the first exit
			{Node: 2, Issued: 1.9, Enter: 5, Out: 6}, // waiting at the first exit and at the second
		}, []float64{1, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := workload.SyncDelaysOf(c.stays); !slices.Equal(got, c.want) {
				t.Errorf("SyncDelaysOf = %v, want %v", got, c.want)
			}
		})
	}
}

// TestSyncDelayRuntimesAgree: the simulator's measure as the run goes (the
// record's sync_delay_delta) and the one from the run's stays, read from
// its trace (as an MPI job's rank 0 measures), agree.
func TestSyncDelayRuntimesAgree(t *testing.T) {
	for _, w := range []workload.Kind{"poisson", "saturated"} {
		var buf bytes.Buffer
		s := Spec{Algorithm: "ricart-agrawala", Nodes: 8, Requests: 300, Workload: w, Seed: 3, CSTime: 1, Trace: &buf}
		r, err := Run(s)
		if err != nil {
			t.Fatal(err)
		}
		issued := map[proto.NodeID]float64{}
		var stays []workload.Stay
		open := map[proto.NodeID]int{}
		sc := bufio.NewScanner(&buf)
		for sc.Scan() {
			var ev struct {
				T    float64
				Node proto.NodeID
				Ev   string
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Fatal(err)
			}
			switch ev.Ev {
			case "request":
				issued[ev.Node] = ev.T
			case "enter":
				open[ev.Node] = len(stays)
				stays = append(stays, workload.Stay{Node: ev.Node, Issued: issued[ev.Node], Enter: ev.T})
			case "exit":
				stays[open[ev.Node]].Out = ev.T
			}
		}
		want := results.Summarize(workload.SyncDelaysOf(stays))
		got := r.SyncDelayDelta
		want.Mean, want.Max = want.Mean/r.DeltaSeconds, want.Max/r.DeltaSeconds
		if got.Count == 0 || got.Count != want.Count || math.Abs(got.Mean-want.Mean) > 1e-9 || math.Abs(got.Max-want.Max) > 1e-9 {
			t.Errorf("%s: record %+v, from the trace's stays %+v", w, got, want)
		}
	}
}
