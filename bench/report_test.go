package bench

import (
	"math"
	"reflect"
	"testing"

	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/sim"
)

// TestReportTo checks that reportTo, which Drive calls at every boundary,
// writes every field of the snapshot it is given, whatever it held: at
// each boundary of a run, a snapshot full of earlier values comes out as
// Report's fresh one (the array of Candidates reused).
func TestReportTo(t *testing.T) {
	// Every field is set below; a new field must be written by reportTo
	// and set here.
	if n := reflect.TypeFor[snapshot]().NumField(); n != 21 {
		t.Fatalf("snapshot has %d fields, this test knows 21", n)
	}
	for _, spec := range []Spec{
		{Algorithm: "opencube", Nodes: 16, Requests: 40, Workload: "sequential", Seed: 1, CSTime: 1},
		{Algorithm: "opencube", Nodes: 16, Requests: 60, Workload: "poisson", Seed: 2, CSTime: 1, Think: 4, FT: true,
			Faults: faults.FaultPlan{Crashes: 3, Spacing: "exp", Every: 20, Down: 10, DownDist: "exp", Target: "token"}},
	} {
		t.Run(string(spec.Workload), func(t *testing.T) {
			plan, err := spec.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			p := newPart(plan, nil, nil)
			boundaries, candidates := 0, 0
			for next := p.boundaryAt(p.ownReport()); !math.IsInf(next, 1); next = p.boundaryAt(p.ownReport()) {
				p.window(next)
				garbage := snapshot{Next: -1, InFlight: 7, InCS: 7, Holders: 7, Tokens: 7, Issued: 7, Served: 7,
					Abandoned: 7, Busy: 7, QuotaLeft: 7, Steps: 7, Waiting: 5, WaitingSince: -1, Storm: "storm",
					Halted: 7, Candidates: []proto.NodeID{1, 2, 3}, TokenDest: 5, tokenAt: sim.Mark{T: 1, Key: 1},
					Reissues: []reissueAnswer{{Node: 1}}, Flight: []sim.Remote{{T: 1}}, Nodes: []nodeWorkload{{Node: 1}}}
				got, want := garbage, p.ownReport()
				p.reportTo(&got)
				if len(got.Candidates) != len(want.Candidates) || len(got.Candidates) > 0 && !reflect.DeepEqual(got.Candidates, want.Candidates) {
					t.Fatalf("boundary %d: Candidates %v, Report's %v", boundaries, got.Candidates, want.Candidates)
				}
				candidates += len(want.Candidates)
				got.Candidates, want.Candidates = nil, nil
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("boundary %d: reportTo wrote\n%+v\nReport gives\n%+v", boundaries, got, want)
				}
				boundaries++
			}
			if err := p.end(); err != nil {
				t.Fatal(err)
			}
			if boundaries < 10 || spec.Faults.Crashes > 0 && candidates == 0 {
				t.Fatalf("%d boundaries, %d candidates: the run did not exercise reportTo", boundaries, candidates)
			}
		})
	}
}
