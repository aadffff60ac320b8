package bench

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
)

// Edit changes one part of an initial configuration (the initial and
// adversarial plans) after it is made: the state of node Node re-drawn
// (Scramble), or, with Link, the messages on the link out of node Node
// re-drawn (0..LinkCap of them, by Junk); the draws come from a stream of
// the edit's own Seed. A list of edits written "n3@17,l5@99" (node 3 from
// seed 17, then the link out of node 5 from seed 99) is what the
// worst-case climb (Climb) varies, and what replays the configuration it
// found.
type Edit struct {
	Link bool
	Node int
	Seed uint64
}

// String writes the edit as "n3@17" or "l3@17".
func (e Edit) String() string {
	k := "n"
	if e.Link {
		k = "l"
	}
	return fmt.Sprintf("%s%d@%d", k, e.Node, e.Seed)
}

// FormatEdits writes edits as a comma-separated list (ParseEdits).
func FormatEdits(edits []Edit) string {
	out := make([]string, len(edits))
	for k, e := range edits {
		out[k] = e.String()
	}
	return strings.Join(out, ",")
}

// ParseEdits reads a list of edits written by FormatEdits ("" is none).
func ParseEdits(s string) ([]Edit, error) {
	if s == "" {
		return nil, nil
	}
	var out []Edit
	for _, f := range strings.Split(s, ",") {
		node, seed, ok := strings.Cut(f, "@")
		if !ok || len(node) < 2 || (node[0] != 'n' && node[0] != 'l') {
			return nil, fmt.Errorf("edit %q: want nK@S (node K's state from seed S) or lK@S (the link out of node K)", f)
		}
		k, err := strconv.Atoi(node[1:])
		if err != nil || k < 0 {
			return nil, fmt.Errorf("edit %q: %q is not a node", f, node[1:])
		}
		sd, err := strconv.ParseUint(seed, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("edit %q: %q is not a seed in 0..2^64−1", f, seed)
		}
		out = append(out, Edit{Link: node[0] == 'l', Node: k, Seed: sd})
	}
	return out, nil
}

// streamEdit is the seeded stream of an edit's draws.
const streamEdit = 7

// applyEdits applies edits to the nodes and to junk, the messages of the
// links node by node (as arbitrary makes them), and returns the new junk.
func applyEdits(nodes []proto.Node, junk []proto.Message, edits []Edit, linkCap int) []proto.Message {
	for _, e := range edits {
		rng := rand.New(rand.NewPCG(e.Seed, streamEdit))
		c := nodes[e.Node].(proto.Corruptible)
		if !e.Link {
			c.Scramble(rng)
			continue
		}
		var out []proto.Message
		done := false
		for i := 0; i <= len(junk); i++ {
			if !done && (i == len(junk) || int(junk[i].From) >= e.Node) {
				for range rng.IntN(linkCap + 1) {
					out = append(out, c.Junk(rng))
				}
				done = true
			}
			if i < len(junk) && int(junk[i].From) != e.Node {
				out = append(out, junk[i])
			}
		}
		junk = out
	}
	return junk
}

// ClimbStep is one configuration the climb measured.
type ClimbStep struct {
	Edits    []Edit
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
		return nil, nil, fieldErr("Transient.Mode", "the climb edits an initial configuration: give the initial or the adversarial plan")
	}
	rng := rand.New(rand.NewPCG(spec.Seed, streamClimb))
	measure := func(edits []Edit) (*results.Run, ClimbStep, error) {
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
		e := Edit{Link: rng.IntN(2) == 1, Node: rng.IntN(spec.Nodes), Seed: rng.Uint64N(1 << 20)}
		edits := append([]Edit(nil), cur.Edits...)
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

// streamClimb is the seeded stream of the climb's edits.
const streamClimb = 8
