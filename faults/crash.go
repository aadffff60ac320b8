package faults

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/internal/field"
	"github.com/ocbench/ocbench/internal/stream"
	"github.com/ocbench/ocbench/proto"
)

// Target names how crash victims are chosen (Targets).
type Target string

// Dist names a distribution of crash gaps or downtimes: "exp"
// (exponential of the given mean) or "fixed" (exactly the value).
type Dist string

// The distributions.
const (
	Exp   Dist = "exp"
	Fixed Dist = "fixed"
)

// Dists lists the distributions.
var Dists = []Dist{Exp, Fixed}

// Bounds of a fault plan (Validate).
const (
	// MaxCrashes is the largest number of crashes in a fault plan.
	MaxCrashes = 1000000
	// MinGap is the smallest mean (or fixed) gap between crashes and the
	// smallest downtime, in δ: a thousandth of the largest message delay,
	// the resolution at which the plan's times still spread crashes over
	// the run. Below it a plan piles its crashes at one instant: 10^6
	// crashes 1e-6δ apart (or 1e-300δ, with downtimes as short) start as
	// many failure searches in a fraction of δ, and the simulator stopped
	// the run as a message storm (81,920 messages in flight at N = 32)
	// blamed on the algorithm; at 1e-3δ the same plan runs (13 s).
	MinGap = 1e-3
)

// Fault is one planned crash: the victim crashes At and recovers Up seconds
// after the start of the run (Up < 0: never).
type Fault struct {
	At, Up float64
	Node   int
}

// Targets lists how crash victims are chosen; the first is the default.
//
//   - random: a uniformly random live node (what the open-cube paper's
//     experiments suggest, and the only choice a plan can make without
//     looking at the run, so MPI ranks can share it);
//   - token: the node holding the token, or the destination of the token in
//     flight;
//   - path: a node on a pending request's path (a proxy serving a mandator,
//     or a node with requests waiting in its queue);
//   - root: the node whose father is nil;
//   - power: crash k hits a random live node of power k mod (pmax+1)
//     (power: dist(i, father) − 1, pmax at the root), so that every power
//     is sampled as often; the record weighs the strata back to the
//     open-cube's share of each power (overhead_stratified).
//
// The targeted choices fall back to a random live node when no node
// qualifies at the crash time.
var Targets = []Target{"random", "token", "path", "root", "power"}

// FaultPlan describes the crashes of a run, generated from the seed. Times
// are in units of δ.
type FaultPlan struct {
	Crashes int
	// Spacing is "exp" (exponential gaps of mean Every) or "fixed" (gaps of
	// exactly Every).
	Spacing Dist
	Every   float64
	// Start is the time of the first crash's gap origin.
	Start float64
	// Down is the downtime: its mean (DownDist "exp") or exact value ("fixed").
	Down     float64
	DownDist Dist
	// Permanent is the fraction of crashes from which the node never recovers.
	Permanent float64
	Target    Target
}

// Validate returns a *field.Error naming the first bad field, with
// the accepted range (the bounds are Validate's: MaxCrashes, field.MaxTime, MinGap,
// MinUp).
func (f *FaultPlan) Validate(nodes int) error {
	if f.Crashes < 0 || f.Crashes > MaxCrashes {
		return field.Errorf("Faults.Crashes", "%d is not in 0..%d", f.Crashes, MaxCrashes)
	}
	if f.Crashes == 0 {
		return nil
	}
	if nodes < MinUp+1 {
		return field.Errorf("Faults.Crashes", "N=%d is too few nodes for crashes: %d nodes stay up at all times, so crashes need N ≥ %d", nodes, MinUp, 2*MinUp)
	}
	if err := field.OneOf("spacing", f.Spacing, Dists); err != nil {
		return &field.Error{Field: "Faults.Spacing", Err: err}
	}
	if err := field.InRange("Faults.Every", f.Every, MinGap, field.MaxTime, false, "δ; closer crashes pile up at one instant"); err != nil {
		return err
	}
	if err := field.OneOf("distribution", f.DownDist, Dists); err != nil {
		return &field.Error{Field: "Faults.DownDist", Err: err}
	}
	if err := field.InRange("Faults.Down", f.Down, MinGap, field.MaxTime, false, "δ"); err != nil {
		return err
	}
	if !(f.Permanent >= 0 && f.Permanent <= 1) {
		return field.Errorf("Faults.Permanent", "%g is not a fraction in [0, 1]", f.Permanent)
	}
	if err := field.InRange("Faults.Start", f.Start, 0, field.MaxTime, false, "δ"); err != nil {
		return err
	}
	ok := false
	for _, t := range Targets {
		ok = ok || t == f.Target
	}
	if !ok {
		return field.Errorf("Faults.Target", "unknown target %q (allowed: %s)", f.Target, field.Join(Targets))
	}
	if most := nodes - MinUp - 1; f.Permanent > 0 && float64(f.Crashes)*f.Permanent > float64(most) {
		return field.Errorf("Faults.Permanent", "%g × %d crashes is %s nodes down for good on average, more than the N−%d = %d allowed (%d of N=%d stay up, and one more can recover)",
			f.Permanent, f.Crashes, field.Num(float64(f.Crashes)*f.Permanent), MinUp+1, most, MinUp, nodes)
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

// Outside returns how the crashes of plan (a Schedule) go outside an
// algorithm's fault model ("" if they do not): two nodes down at once where
// the model allows one, recoveries where it has none, nodes down for good
// where it needs every one back.
func Outside(m proto.FaultModel, plan []Fault) string {
	var broken []string
	if m.OneAtATime {
		type edge struct {
			t float64
			d int
		}
		var es []edge
		for _, c := range plan {
			es = append(es, edge{c.At, 1})
			if c.Up >= 0 {
				es = append(es, edge{c.Up, -1})
			}
		}
		sort.Slice(es, func(a, b int) bool { return es[a].t < es[b].t || (es[a].t == es[b].t && es[a].d < es[b].d) })
		down, most, at := 0, 0, 0.0
		for _, e := range es {
			down += e.d
			if down > most {
				most, at = down, e.t
			}
		}
		if most > 1 {
			broken = append(broken, fmt.Sprintf("%d nodes down at once (first at t=%.6gs), the model allows one", most, at))
		}
	}
	if m.NoRecovery {
		back := 0
		for _, c := range plan {
			if c.Up >= 0 {
				back++
			}
		}
		if back > 0 {
			broken = append(broken, fmt.Sprintf("%d of %d crashed nodes recover, the model has no recovery", back, len(plan)))
		}
	}
	if m.AllRecover {
		gone := 0
		for _, c := range plan {
			if c.Up < 0 {
				gone++
			}
		}
		if gone > 0 {
			broken = append(broken, fmt.Sprintf("%d of %d crashed nodes never recover, the model needs every one back", gone, len(plan)))
		}
	}
	return strings.Join(broken, "; ")
}

// MinUp is the number of nodes a fault plan keeps up at all times.
//
// A crash of a random victim waits, in steps of the plan's gap (Every),
// until at least MinUp+1 nodes are up, so that MinUp remain after it;
// targeted crashes are skipped at run time when fewer than MinUp+1 nodes are
// up (inject). At most N−MinUp−1 nodes go down for good: a crash drawn
// permanent beyond that is turned into an ordinary one (the victim recovers
// after its downtime), so that MinUp+1 nodes that can recover always remain
// and every wait for a recovery ends. Validate refuses the plans whose
// expected number of permanent crashes is above that cap, and crashes on
// fewer than MinUp+1 nodes; the planner's cap only catches unlucky draws,
// and it ends whatever the plan (TestPlanTerminates).
const MinUp = 2

// WorkloadEnd is the time, in seconds, until which a run with the crashes
// plan keeps issuing requests: the end of the last downtime of the plan,
// plus settle (seconds). It is 0 without crashes.
func WorkloadEnd(plan []Fault, settle float64) float64 {
	until := 0.0
	for _, f := range plan {
		until = math.Max(until, math.Max(f.At, f.Up)+settle)
	}
	return until
}

// Schedule returns the crashes of the plan for a run of the given seed and
// size, with δ = delta seconds: it draws the crash times and downtimes (and,
// for random targets, the victims) from the seed's fault stream, so every
// rank of an MPI job computes the same schedule. Victims are drawn only for
// the random target (Node is -1 for the targeted ones, which need a view of
// the whole run). It
// keeps MinUp nodes up and never waits for ever (see MinUp). The draws are
// made in the same order whatever the plan, so a seed replays the same
// plan; with fewer than MinUp+1 nodes the plan is empty.
func (f *FaultPlan) Schedule(seed uint64, nodes int, delta float64) []Fault {
	if f.Crashes <= 0 || nodes < MinUp+1 {
		return nil
	}
	stream := rand.NewPCG(seed, stream.Faults)
	rng := rand.New(stream)
	live := newLiveSet(nodes) // random targets: the nodes up at time t
	var back recoveries       // random targets: the nodes down, by recovery time
	maxPermanent, permanent := nodes-MinUp-1, 0
	var out []Fault
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
		if perm && permanent >= maxPermanent {
			perm = false // keep MinUp+1 nodes that can recover
		}
		if perm {
			permanent++
		}
		victim := -1
		if f.Target == "random" {
			back.upTo(t, live)
			for live.count < MinUp+1 { // wait for a recovery
				if len(back) == 0 {
					return out // cannot happen with the cap above; never wait for ever
				}
				t = stepPast(t, back[0].up, f.Every)
				back.upTo(t, live)
			}
			victim = live.kth(rng.IntN(live.count))
			live.add(victim, -1)
			if !perm {
				heap.Push(&back, recovery{t + down, victim})
			}
		}
		fl := Fault{At: t * delta, Up: (t + down) * delta, Node: victim}
		if perm {
			fl.Up = -1
		}
		out = append(out, fl)
	}
	return out
}

// stepPast returns the first t + k·every (k ≥ 1) after u, the planner's wait
// for a recovery at u in steps of the gap every. A few steps are added one
// by one, as plans were always computed (so seeds replay the same plans);
// more are taken at once, and a step below t's precision jumps to just
// after u.
func stepPast(t, u, every float64) float64 {
	for k := 0; k < 1024; k++ {
		t += every
		if t > u {
			return t
		}
	}
	if n := math.Ceil((u - t) / every); n > 0 && !math.IsInf(n, 0) {
		t += n * every
	}
	if t <= u {
		t = math.Nextafter(u, math.Inf(1))
	}
	return t
}

// liveSet is the set of nodes up in the planner: a Fenwick tree of 0/1
// counts, so that the k-th node up in id order (the victim draw) is found in
// O(log N) instead of a scan of all N nodes per crash.
type liveSet struct {
	tree  []int32 // tree[i], i = 1..n: the count of nodes up in (i − lowbit(i), i]
	top   int     // the highest power of two ≤ n
	count int
}

// newLiveSet returns the set of n nodes, all up.
func newLiveSet(n int) *liveSet {
	l := &liveSet{tree: make([]int32, n+1), top: 1, count: n}
	for i := 1; i <= n; i++ {
		l.tree[i] = int32(i & -i)
	}
	for l.top*2 <= n {
		l.top *= 2
	}
	return l
}

// add adds d (1: up, −1: down) to node i's count.
func (l *liveSet) add(i, d int) {
	l.count += d
	for j := i + 1; j < len(l.tree); j += j & -j {
		l.tree[j] += int32(d)
	}
}

// kth returns the k-th node up (k = 0, 1, …, count−1) in id order.
func (l *liveSet) kth(k int) int {
	pos, rem := 0, int32(k+1)
	for step := l.top; step > 0; step >>= 1 {
		if next := pos + step; next < len(l.tree) && l.tree[next] < rem {
			pos = next
			rem -= l.tree[next]
		}
	}
	return pos // the 1-based position pos+1 is node pos
}

// recovery is a node down until up (in δ).
type recovery struct {
	up   float64
	node int
}

// recoveries is a min-heap of recoveries by time (container/heap).
type recoveries []recovery

func (r recoveries) Len() int           { return len(r) }
func (r recoveries) Less(i, j int) bool { return r[i].up < r[j].up }
func (r recoveries) Swap(i, j int)      { r[i], r[j] = r[j], r[i] }

// Push implements heap.Interface.
func (r *recoveries) Push(x any) { *r = append(*r, x.(recovery)) }

// Pop implements heap.Interface.
func (r *recoveries) Pop() any {
	old := *r
	x := old[len(old)-1]
	*r = old[:len(old)-1]
	return x
}

// upTo puts back in live the nodes that recovered before t. A node is up
// at t only if it recovered strictly before: at equal times the run
// injects the crash before the recovery (it was scheduled first).
func (r *recoveries) upTo(t float64, live *liveSet) {
	for len(*r) > 0 && (*r)[0].up < t {
		live.add(heap.Pop(r).(recovery).node, 1)
	}
}

// IsTarget reports whether node i, in state n, qualifies as the victim of
// a targeted crash (see Targets): for token, it holds the token; for path,
// it is on a pending request's path; for root, its father is nil and it is
// not searching; for power, its power is k mod (pmax+1), k being the number
// of crashes so far and pmax = log2 N. A node that is down never qualifies.
// Both runtimes ask it of every node at the crash time: the simulator of
// all of them at once, each MPI rank of the nodes it hosts.
func IsTarget(target Target, i int, n proto.Node, k, pmax int) bool {
	v := n.View()
	if !v.Up {
		return false
	}
	switch target {
	case "power":
		t, ok := proto.TreeOf(n)
		return ok && hypercube.PowerWith(i, int(t.Father), pmax) == k%(pmax+1)
	case "token":
		return v.TokenHere
	case "path":
		t, _ := proto.TreeOf(n)
		queued := false
		n.Waiting(func(proto.NodeID) { queued = true })
		return (v.Asked && t.Mandator != proto.Nil && t.Mandator != proto.NodeID(i)) || queued
	case "root":
		t, ok := proto.TreeOf(n)
		return ok && t.Father == proto.Nil && !t.Searching
	}
	return false
}

// TargetRand returns the seeded generator from which the victims of
// targeted crashes are drawn among the nodes that qualify: the simulator's
// and MPI rank 0's.
func TargetRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream.Targets)) }

// ChooseVictim is the controller's rule for the victim of a targeted
// crash, in every runtime: none (proto.Nil: the crash is skipped) while at
// most MinUp of the nodes are up (live of them; down says which are not);
// else one drawn with rng (TargetRand) among the nodes that qualify
// (cands, in id order: IsTarget), else for the token target the
// destination of the token in flight that arrives first, else among the
// live nodes.
func ChooseVictim(target Target, cands []proto.NodeID, down []bool, live int, tokenDest proto.NodeID, rng *rand.Rand) proto.NodeID {
	if live < MinUp+1 {
		return proto.Nil
	}
	if target == "token" && len(cands) == 0 && tokenDest != proto.Nil && !down[tokenDest] {
		cands = append(cands, tokenDest)
	}
	if len(cands) == 0 {
		for i := range down {
			if !down[i] {
				cands = append(cands, proto.NodeID(i))
			}
		}
	}
	return cands[rng.IntN(len(cands))]
}
