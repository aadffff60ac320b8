package bench

import (
	"math/rand/v2"

	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/internal/field"
	"github.com/ocbench/ocbench/internal/stream"
	"github.com/ocbench/ocbench/results"
)

// ClimbStep is one configuration the climb measured.
type ClimbStep struct {
	Edits    []faults.Edit
	Rounds   float64 // asynchronous rounds from the fault to legitimacy
	Traverse float64 // the algorithm's rounds (kofl: traversals)
	Delta    float64
	Accepted bool
}

// Climb searches for the initial configuration of spec (an initial or
// adversarial plan, its edits the starting point) whose stabilization
// takes longest: a hill climb that, steps times, edits one node's state or
// one link's messages (a draw from spec.Seed's climb stream) and keeps the
// change when the stabilization, in asynchronous rounds and then in δ, is
// no shorter. It returns the worst run's record and every step; a run
// that breaks a property ends the climb with that run's record (its
// Violation set) — a finding, with the edits that reach it.
func Climb(spec Spec, steps int, each func(k int, s ClimbStep)) (*results.Run, []ClimbStep, error) {
	if !spec.Transient.Initial() {
		return nil, nil, field.Errorf("Transient.Mode", "the climb edits an initial configuration: give the initial or the adversarial plan")
	}
	rng := rand.New(rand.NewPCG(spec.Seed, stream.Climb))
	measure := func(edits []faults.Edit) (*results.Run, ClimbStep, error) {
		s := spec
		s.Transient.Edits = edits
		r, err := Run(s)
		if err != nil {
			return nil, ClimbStep{}, err
		}
		st := ClimbStep{Edits: edits}
		if r.Stabilization != nil && len(r.Stabilization.Runs) == 1 {
			run := r.Stabilization.Runs[0]
			st.Rounds, st.Traverse, st.Delta = run.AsyncRounds, run.Rounds, run.Delta
		}
		return r, st, nil
	}
	best, cur, err := measure(spec.Transient.Edits)
	if err != nil {
		return nil, nil, err
	}
	cur.Accepted = true
	trail := []ClimbStep{cur}
	if each != nil {
		each(0, cur)
	}
	for k := 1; k <= steps && best.Violation == ""; k++ {
		e := faults.Edit{Link: rng.IntN(2) == 1, Node: rng.IntN(spec.Nodes), Seed: rng.Uint64N(1 << 20)}
		edits := append([]faults.Edit(nil), cur.Edits...)
		replaced := false
		for i := range edits {
			if edits[i].Link == e.Link && edits[i].Node == e.Node {
				edits[i], replaced = e, true
			}
		}
		if !replaced {
			edits = append(edits, e)
		}
		r, st, err := measure(edits)
		if err != nil {
			return nil, nil, err
		}
		if r.Violation != "" || st.Rounds > cur.Rounds || st.Rounds == cur.Rounds && st.Delta >= cur.Delta {
			st.Accepted = true
			cur, best = st, r
		}
		trail = append(trail, st)
		if each != nil {
			each(k, st)
		}
	}
	return best, trail, nil
}
