package faults

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/internal/field"
	"github.com/ocbench/ocbench/internal/stream"
	"github.com/ocbench/ocbench/proto"
)

// TransientMode names a transient-fault plan (TransientModes).
type TransientMode string

// TransientModes lists the transient-fault plans; the first is the
// default.
//
//   - none: the run starts from the algorithm's initial configuration and
//     no fault strikes.
//   - initial: an arbitrary initial configuration: every variable of every
//     node drawn from its domain (proto.Corruptible's Scramble), and every
//     link filled with 0..LinkCap arbitrary messages (Junk), all from the
//     seed.
//   - during: the run starts from the initial configuration, and
//     corruption events strike at times drawn from the seed (exponential
//     gaps of mean Every δ): each scrambles the state of 1..max(1, N/4)
//     random nodes, duplicates a random message in flight (a token, a
//     CToken, a pool…), destroys one, or injects 1..3 junk messages on
//     random links, a quarter of the events each.
//   - adversarial: an adversarial initial configuration that the
//     algorithm builds (proto.AdversarialAlgorithm): the one Adversary
//     names, or, if none, the seed's turn among them all (seed mod their
//     number), with what it leaves open drawn from the seed.
var TransientModes = []TransientMode{"none", "initial", "during", "adversarial"}

// TransientPlan is the transient faults of a run of a self-stabilizing
// algorithm (proto.SelfStabilizingAlgorithm).
type TransientPlan struct {
	// Mode is one of TransientModes ("" is none).
	Mode TransientMode
	// Events is the number of corruption events (during); 0 means
	// DefaultCorruptions.
	Events int
	// Every is the mean gap between events, in δ (during); 0 means
	// DefaultCorruptEvery.
	Every float64
	// LinkCap is the capacity of a link: an arbitrary configuration puts
	// 0..LinkCap junk messages on each (initial), an adversarial one at
	// most LinkCap; 0 means DefaultLinkCap.
	LinkCap int
	// Adversary names the adversarial configuration (adversarial); ""
	// takes the seed's turn among them all.
	Adversary string
	// Edits change the initial configuration once it is made (initial,
	// adversarial): what the worst-case climb found (Climb).
	Edits []Edit
}

// AdversaryOf returns the name of the adversarial configuration of a run
// with the given seed of the algorithm a: the plan's Adversary, or the
// seed's turn among those a builds (proto.AdversarialAlgorithm; "" if it
// builds none).
func (p TransientPlan) AdversaryOf(a proto.Algorithm, seed uint64) string {
	if p.Adversary != "" {
		return p.Adversary
	}
	v, ok := a.(proto.AdversarialAlgorithm)
	if !ok || len(v.Adversaries()) == 0 {
		return ""
	}
	names := v.Adversaries()
	return names[seed%uint64(len(names))]
}

// Defaults of a TransientPlan's zero fields.
const (
	DefaultCorruptions  = 5
	DefaultCorruptEvery = 50.0
	DefaultLinkCap      = 3
	// MaxLinkCap bounds --link-cap.
	MaxLinkCap = 64
	// MaxEdits bounds the edits of an initial configuration (--edits).
	MaxEdits = 1 << 16
)

// Initial reports whether the plan's faults make the initial
// configuration (initial, adversarial).
func (p TransientPlan) Initial() bool { return p.Mode == "initial" || p.Mode == "adversarial" }

// On reports whether the plan has faults.
func (p TransientPlan) On() bool { return p.Mode != "" && p.Mode != "none" }

// Filled returns p with its defaults.
func (p TransientPlan) Filled() TransientPlan {
	if p.Mode == "" {
		p.Mode = "none"
	}
	if p.Events == 0 {
		p.Events = DefaultCorruptions
	}
	if p.Every == 0 {
		p.Every = DefaultCorruptEvery
	}
	if p.LinkCap == 0 {
		p.LinkCap = DefaultLinkCap
	}
	return p
}

// Validate returns a *field.Error naming the first bad field, for a run of
// the algorithm reg.
func (p TransientPlan) Validate(reg proto.Algorithm) error {
	name := reg.Name()
	ok := p.Mode == ""
	for _, m := range TransientModes {
		ok = ok || m == p.Mode
	}
	if !ok {
		return field.Errorf("Transient.Mode", "unknown plan %q (allowed: %s)", p.Mode, field.Join(TransientModes))
	}
	if _, ok := reg.(proto.SelfStabilizingAlgorithm); p.On() && !ok {
		return field.Errorf("Transient.Mode", "%s is not self-stabilizing: transient faults would leave it broken for good (self-stabilizing: %s)", name, selfStabilizingNames())
	}
	if p.Events < 0 || p.Events > MaxCrashes {
		return field.Errorf("Transient.Events", "%d is not in 1..%d", p.Events, MaxCrashes)
	}
	if p.Every != 0 {
		if err := field.InRange("Transient.Every", p.Every, 0, field.MaxTime, true, "δ"); err != nil {
			return err
		}
	}
	if p.Mode == "adversarial" && len(algo.AdversariesOf(reg)) == 0 {
		return field.Errorf("Transient.Mode", "%s builds no adversarial configuration", name)
	}
	if p.Adversary != "" {
		if p.Mode != "adversarial" {
			return field.Errorf("Transient.Adversary", "it applies only to the adversarial plan")
		}
		if !slices.Contains(algo.AdversariesOf(reg), p.Adversary) {
			return field.Errorf("Transient.Adversary", "unknown configuration %q (allowed: %s)", p.Adversary, strings.Join(algo.AdversariesOf(reg), ", "))
		}
	}
	if len(p.Edits) > 0 && !p.Initial() {
		return field.Errorf("Transient.Edits", "edits change an initial configuration: they apply only to the initial and adversarial plans")
	}
	if len(p.Edits) > MaxEdits {
		return field.Errorf("Transient.Edits", "%d edits, at most %d", len(p.Edits), MaxEdits)
	}
	if p.LinkCap < 0 || p.LinkCap > MaxLinkCap {
		return field.Errorf("Transient.LinkCap", "%d is not in 1..%d", p.LinkCap, MaxLinkCap)
	}
	return nil
}

// String describes the plan for a run's record.
func (p TransientPlan) String() string {
	p = p.Filled()
	switch p.Mode {
	case "initial":
		return fmt.Sprintf("arbitrary initial configuration, 0..%d junk messages per link", p.LinkCap)
	case "adversarial":
		if p.Adversary == "" {
			return fmt.Sprintf("adversarial initial configuration, each seed's turn among them all, up to %d messages per link", p.LinkCap)
		}
		return fmt.Sprintf("adversarial initial configuration %s, up to %d messages per link", p.Adversary, p.LinkCap)
	case "during":
		return fmt.Sprintf("%d corruption events, exponential gaps of mean %gδ", p.Events, p.Every)
	}
	return "none"
}

func selfStabilizingNames() string {
	var out []string
	for _, n := range algo.Ordered() {
		if algo.IsSelfStabilizing(n) {
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}

// CorruptionTimes returns the times of the corruption events of a during
// plan, in seconds (none for other plans); they are the first draws of the
// transient stream.
func (p TransientPlan) CorruptionTimes(rng *rand.Rand, delta float64) []float64 {
	if p.Mode != "during" {
		return nil
	}
	var out []float64
	t := 0.0
	for range p.Events {
		t += rng.ExpFloat64() * p.Every
		out = append(out, t*delta)
	}
	return out
}

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

// Configuration makes the initial configuration of a run with seed of
// the algorithm a (as the run runs it) under the initial or the
// adversarial plan, drawing from rng: it sets the nodes and returns the
// messages for the links, link by link, then applies the plan's Edits.
// It panics on an adversarial configuration a does not build (Validate
// refuses it).
func (p TransientPlan) Configuration(a proto.Algorithm, seed uint64, nodes []proto.Node, rng *rand.Rand) []proto.Message {
	var junk []proto.Message
	if p.Mode != "adversarial" {
		junk = arbitrary(nodes, rng, p.LinkCap)
	} else {
		var err error
		junk, err = a.(proto.AdversarialAlgorithm).Adversary(p.AdversaryOf(a, seed), nodes, rng, p.LinkCap)
		if err != nil {
			panic(err) // Validate checked the name
		}
	}
	return applyEdits(nodes, junk, p.Edits, p.LinkCap)
}

// arbitrary scrambles every node and returns 0..linkCap junk messages
// out of each, node by node.
func arbitrary(nodes []proto.Node, rng *rand.Rand, linkCap int) []proto.Message {
	for _, nd := range nodes {
		nd.(proto.Corruptible).Scramble(rng)
	}
	var junk []proto.Message
	for _, nd := range nodes {
		c := nd.(proto.Corruptible)
		for range rng.IntN(linkCap + 1) {
			junk = append(junk, c.Junk(rng))
		}
	}
	return junk
}

// applyEdits applies edits to the nodes and to junk, the messages of the
// links node by node (as arbitrary makes them), and returns the new junk.
func applyEdits(nodes []proto.Node, junk []proto.Message, edits []Edit, linkCap int) []proto.Message {
	for _, e := range edits {
		pcg := rand.NewPCG(e.Seed, stream.Edit)
		rng := rand.New(pcg)
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
