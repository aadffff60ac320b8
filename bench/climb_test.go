package bench

import (
	"reflect"
	"testing"

	"github.com/ocbench/ocbench/faults"
)

// TestParseEdits: edits written by FormatEdits read back the same, and
// malformed ones are refused.
func TestParseEdits(t *testing.T) {
	edits := []faults.Edit{{Node: 3, Seed: 17}, {Link: true, Node: 0, Seed: 1<<64 - 1}}
	got, err := faults.ParseEdits(faults.FormatEdits(edits))
	if err != nil || !reflect.DeepEqual(got, edits) {
		t.Errorf("round trip: %v %v", got, err)
	}
	for _, bad := range []string{"x3@1", "n@1", "n3", "n-1@2", "l3@-1", "n3@1,", "n3@1@2"} {
		if _, err := faults.ParseEdits(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	s := Spec{Algorithm: "kofl", Nodes: 4, Requests: 1, Workload: "sequential", Seed: 1,
		Transient: faults.TransientPlan{Mode: "initial", Edits: []faults.Edit{{Node: 4}}}}
	if err := s.Validate(); err == nil {
		t.Error("an edit of node 4 of 4 accepted")
	}
	s.Transient = faults.TransientPlan{Mode: "during", Edits: []faults.Edit{{Node: 1}}}
	if err := s.Validate(); err == nil {
		t.Error("edits with the during plan accepted")
	}
}

// TestClimb: the configurations the climb keeps never stabilize faster
// than the one before (in asynchronous rounds, then δ), an edit changes
// the measure at least once, and the worst one replays: the spec with its
// edits gives the same record.
func TestClimb(t *testing.T) {
	for _, tr := range []faults.TransientPlan{{Mode: "initial"}, {Mode: "adversarial", Adversary: "excess"}} {
		spec := Spec{Algorithm: "kofl", Nodes: 8, Requests: 50, Workload: "poisson", Seed: 4, CSTime: 1, Ell: 3, KMax: 2, Transient: tr}
		r, trail, err := Climb(spec, 30, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Violation != "" {
			t.Fatalf("%s: %s", tr.Mode, r.Violation)
		}
		var last ClimbStep
		changed := false
		for k, s := range trail {
			changed = changed || s.Rounds != trail[0].Rounds || s.Delta != trail[0].Delta
			if !s.Accepted {
				continue
			}
			if k > 0 && (s.Rounds < last.Rounds || s.Rounds == last.Rounds && s.Delta < last.Delta) {
				t.Errorf("%s: step %d kept %g rounds %gδ after %g rounds %gδ", tr.Mode, k, s.Rounds, s.Delta, last.Rounds, last.Delta)
			}
			last = s
		}
		if !changed || len(trail) != 31 {
			t.Errorf("%s: %d steps, no edit changed the measure", tr.Mode, len(trail))
		}
		replay := spec
		replay.Transient.Edits = last.Edits
		again, err := Run(replay)
		if err != nil {
			t.Fatal(err)
		}
		if got := again.Stabilization.Runs[0]; got.AsyncRounds != last.Rounds || got.Delta != last.Delta || !reflect.DeepEqual(again.Stabilization, r.Stabilization) {
			t.Errorf("%s: the worst replays as %+v, the climb measured %+v", tr.Mode, got, last)
		}
	}
}
