package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/ocbench/ocbench/proto"
)

// Targets lists how crash victims are chosen; the first is the default.
//
//   - random: a uniformly random live node (what the open-cube paper's
//     experiments suggest, and the only choice a plan can make without
//     looking at the run, so MPI ranks can share it);
//   - token: the node holding the token, or the destination of the token in
//     flight;
//   - path: a node on a pending request's path (a proxy serving a mandator,
//     or a node with requests waiting in its queue);
//   - root: the node whose father is nil.
//
// The targeted choices fall back to a random live node when no node
// qualifies at the crash time.
var Targets = []string{"random", "token", "path", "root"}

// FaultPlan describes the crashes of a run, generated from the seed. Times
// are in units of δ.
type FaultPlan struct {
	Crashes int
	// Spacing is "exp" (exponential gaps of mean Every) or "fixed" (gaps of
	// exactly Every).
	Spacing string
	Every   float64
	// Start is the time of the first crash's gap origin.
	Start float64
	// Down is the downtime: its mean (DownDist "exp") or exact value ("fixed").
	Down     float64
	DownDist string
	// Permanent is the fraction of crashes from which the node never recovers.
	Permanent float64
	Target    string
}

// Validate returns an error naming the first bad field.
func (f *FaultPlan) Validate(nodes int) error {
	if f.Crashes < 0 {
		return fmt.Errorf("--crashes: %d is negative", f.Crashes)
	}
	if f.Crashes == 0 {
		return nil
	}
	if f.Spacing != "exp" && f.Spacing != "fixed" {
		return fmt.Errorf("--crash-spacing: unknown spacing %q (allowed: exp, fixed)", f.Spacing)
	}
	if !(f.Every > 0) {
		return fmt.Errorf("--crash-every: %g is not a positive number of δ", f.Every)
	}
	if f.DownDist != "exp" && f.DownDist != "fixed" {
		return fmt.Errorf("--downtime-dist: unknown distribution %q (allowed: exp, fixed)", f.DownDist)
	}
	if !(f.Down > 0) {
		return fmt.Errorf("--downtime: %g is not a positive number of δ", f.Down)
	}
	if !(f.Permanent >= 0 && f.Permanent <= 1) {
		return fmt.Errorf("--permanent: %g is not a fraction in [0, 1]", f.Permanent)
	}
	if !(f.Start >= 0) {
		return fmt.Errorf("--crash-start: %g is negative", f.Start)
	}
	ok := false
	for _, t := range Targets {
		ok = ok || t == f.Target
	}
	if !ok {
		return fmt.Errorf("--crash-target: unknown target %q (allowed: %s)", f.Target, strings.Join(Targets, ", "))
	}
	if f.Permanent > 0 && float64(f.Crashes)*f.Permanent > float64(nodes-2) {
		return fmt.Errorf("--permanent: %g of %d crashes would leave fewer than 2 of %d nodes alive", f.Permanent, f.Crashes, nodes)
	}
	return nil
}

// String describes the plan for a run's header.
func (f *FaultPlan) String() string {
	if f.Crashes == 0 {
		return "no crashes"
	}
	spacing := fmt.Sprintf("every %gδ", f.Every)
	if f.Spacing == "exp" {
		spacing = fmt.Sprintf("exponential gaps of mean %gδ", f.Every)
	}
	down := fmt.Sprintf("down %gδ", f.Down)
	if f.DownDist == "exp" {
		down = fmt.Sprintf("down exp(mean %gδ)", f.Down)
	}
	perm := ""
	if f.Permanent > 0 {
		perm = fmt.Sprintf(", %g%% permanent", 100*f.Permanent)
	}
	return fmt.Sprintf("%d crashes from t=%gδ, %s, %s%s, target %s", f.Crashes, f.Start, spacing, down, perm, f.Target)
}

// fault is one planned crash; Up < 0 for a permanent crash. Node is the
// victim for random targets, -1 for targeted crashes (chosen at run time).
type fault struct {
	At, Up float64 // seconds
	Node   int
}

// plan draws the crash times and downtimes (and, for random targets, the
// victims) from the seed's fault stream; delta converts δ to seconds.
func (f *FaultPlan) plan(seed uint64, nodes int, delta float64) []fault {
	rng := rand.New(rand.NewPCG(seed, streamFaults))
	upAt := make([]float64, nodes) // when each node is up again; -1 never
	var out []fault
	t := f.Start
	for k := 0; k < f.Crashes; k++ {
		gap := f.Every
		if f.Spacing == "exp" {
			gap = rng.ExpFloat64() * f.Every
		}
		t += gap
		down := f.Down
		if f.DownDist == "exp" {
			down = rng.ExpFloat64() * f.Down
		}
		perm := rng.Float64() < f.Permanent
		victim := -1
		if f.Target == "random" {
			var live []int
			for i, u := range upAt {
				if u >= 0 && u <= t {
					live = append(live, i)
				}
			}
			for len(live) < 2 { // keep two nodes alive: wait for a recovery
				t += f.Every
				live = live[:0]
				for i, u := range upAt {
					if u >= 0 && u <= t {
						live = append(live, i)
					}
				}
			}
			victim = live[rng.IntN(len(live))]
			if perm {
				upAt[victim] = -1
			} else {
				upAt[victim] = t + down
			}
		}
		fl := fault{At: t * delta, Up: (t + down) * delta, Node: victim}
		if perm {
			fl.Up = -1
		}
		out = append(out, fl)
	}
	return out
}

// pickTarget chooses the victim of a targeted crash from the run's state.
func pickTarget(target string, nodes []proto.Node, down func(proto.NodeID) bool, tokenDest proto.NodeID, rng *rand.Rand) proto.NodeID {
	var cands []proto.NodeID
	switch target {
	case "token":
		for i, n := range nodes {
			if v := n.View(); v.Up && v.TokenHere {
				cands = append(cands, proto.NodeID(i))
			}
		}
		if len(cands) == 0 && tokenDest != proto.Nil && !down(tokenDest) {
			cands = append(cands, tokenDest)
		}
	case "path":
		for i, n := range nodes {
			v := n.View()
			queued := false
			n.Waiting(func(proto.NodeID) { queued = true })
			if v.Up && ((v.Asked && v.Mandator != proto.Nil && v.Mandator != proto.NodeID(i)) || queued) {
				cands = append(cands, proto.NodeID(i))
			}
		}
	case "root":
		for i, n := range nodes {
			if v := n.View(); v.Up && v.Father == proto.Nil && !v.Searching {
				cands = append(cands, proto.NodeID(i))
			}
		}
	}
	if len(cands) == 0 {
		for i := range nodes {
			if !down(proto.NodeID(i)) {
				cands = append(cands, proto.NodeID(i))
			}
		}
	}
	return cands[rng.IntN(len(cands))]
}
