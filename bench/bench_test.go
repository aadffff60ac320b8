package bench

import (
	"bytes"
	"cmp"
	"container/heap"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/workload"
)

// seeds is TestSeedSweep's count: 300 in make check (about a minute of
// the two cores), 50 with -short; `make seeds` runs 100,000.
var seeds = flag.Int("seeds", 300, "seeds per configuration in TestSeedSweep (the algorithms that cost more than O(log N) messages per request: a tenth as many)")

// TestSeedSweep runs every rule on poisson and saturated workloads over many
// seeds, with every invariant checked after every step.
func TestSeedSweep(t *testing.T) {
	for _, alg := range algo.Ordered() {
		for _, wl := range []workload.Kind{"poisson", "saturated"} {
			for _, n := range []int{2, 4, 8, 32, 64} {
				t.Run(fmt.Sprintf("%s/%s/N=%d", alg, wl, n), func(t *testing.T) {
					t.Parallel()
					// Algorithms that send O(N) or O(√N) messages per
					// request where the token trees send O(log N) get a
					// tenth of the seeds, which costs about as much.
					count := shortened("seeds", *seeds, 50) // -short: 50, so 5 where a tenth run (seed 5: FIFO)
					if costly(alg) || algo.IsKExclusion(alg) {
						count = max(1, count/10)
					}
					if quadratic(alg, n) {
						count = 1 // raynal: 2(N−1)² messages per request
					}
					for seed := uint64(1); seed <= uint64(count); seed++ {
						spec := Spec{Algorithm: alg, Nodes: n, Requests: int64(2 * n), Workload: wl, Seed: seed,
							CSTime: 0.5, Think: float64(n) / 4, FIFO: seed%5 == 0, Check: CheckFull}
						if algo.IsSelfStabilizing(alg) {
							// Transient faults: none, an arbitrary initial
							// configuration, or corruption events, by seed.
							spec.Transient.Mode = faults.TransientModes[seed%3]
						}
						if algo.IsKExclusion(alg) {
							spec.Ell = 1 + int(seed%5)
							spec.KMax = 1 + int(seed/5%uint64(spec.Ell))
							if m, ok := lookup(alg).(interface{ MaxK() int }); ok {
								spec.KMax = min(spec.KMax, m.MaxK())
							}
						}
						r, err := Run(spec)
						if err != nil {
							t.Fatal(err)
						}
						if r.Violation != "" {
							t.Fatalf("replay with: %s\n%s", Replay(spec), r.Violation)
						}
						// Corruption events during the run make the
						// workload go on until they are over: at least
						// Requests.
						if r.RequestsServed != r.RequestsIssued || r.RequestsIssued < spec.Requests ||
							spec.Transient.Mode != "during" && r.RequestsIssued != spec.Requests {
							t.Fatalf("seed %d: served %d of %d issued, %d requested", seed, r.RequestsServed, r.RequestsIssued, spec.Requests)
						}
						if st := r.Stabilization; spec.Transient.On() && (st == nil || len(st.Runs) != 1 || !st.Runs[0].Stabilized) {
							t.Fatalf("seed %d: stabilization %+v", seed, st)
						}
						if r.MessagesByType["anomaly"] != 0 {
							t.Fatalf("seed %d: %d anomalies without failures", seed, r.MessagesByType["anomaly"])
						}
					}
				})
			}
		}
	}
}

// costly reports whether an algorithm sends more than O(log N) messages per
// request: its stated cost at N = 64 is above the token trees' (Raymond's
// 2D = 22), or an order of growth of a permission-based algorithm (a
// quorum's: Agrawal–El Abbadi's).
func costly(alg string) bool {
	a := lookup(alg)
	c, ok := a.(proto.CostAlgorithm)
	if !ok {
		return false
	}
	cost := c.StatedCost(64)
	return cost.High > 22 || cost.Kind == proto.Order && a.Family() != proto.TokenBased
}

// quadratic reports whether an algorithm's stated cost at n ≥ 32 nodes is
// above N²/4 messages per request (Raynal's 2(N−1)²): a run of 2N
// requests sends millions of messages, so the sweep runs one seed there.
func quadratic(alg string, n int) bool {
	c, ok := lookup(alg).(proto.CostAlgorithm)
	return ok && n >= 32 && c.StatedCost(n).High > float64(n*n)/4
}

// TestSequentialAttribution checks that, in the sequential workload, every
// message is attributed to a request: the per-request counts add up to the
// total, and the open-cube stays within its bound.
func TestSequentialAttribution(t *testing.T) {
	requests := int64(2000)
	if testing.Short() {
		requests = 400
	}
	for _, alg := range algo.Ordered() {
		if algo.IsKExclusion(alg) {
			continue // anonymous tokens: no message serves one request (TestKofl)
		}
		for _, n := range []int{2, 16, 64} {
			r, err := Run(Spec{Algorithm: alg, Nodes: n, Requests: requests, Workload: "sequential", Seed: 3, CSTime: 1, Check: CheckFull})
			if err != nil {
				t.Fatal(err)
			}
			if r.Violation != "" {
				t.Fatalf("%s N=%d: %s", alg, n, r.Violation)
			}
			sum := r.MsgsPerRequest.Mean * float64(r.MsgsPerRequest.Count)
			if int64(r.MsgsPerRequest.Count) != requests || int64(sum+0.5) != r.MessagesTotal {
				t.Errorf("%s N=%d: %d requests carry %.0f messages, the run sent %d", alg, n, r.MsgsPerRequest.Count, sum, r.MessagesTotal)
			}
		}
	}
}

// TestDeterministic checks that the same seed replays the same run, byte
// for byte, and that another seed does not.
func TestDeterministic(t *testing.T) {
	trace := func(seed uint64) string {
		var buf bytes.Buffer
		_, err := Run(Spec{Algorithm: "opencube", Nodes: 16, Requests: 200, Workload: "poisson", Seed: seed, CSTime: 1, Trace: &buf})
		if err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	a, b, c := trace(7), trace(7), trace(8)
	if a != b {
		t.Error("seed 7 gave two different traces")
	}
	if a == c {
		t.Error("seeds 7 and 8 gave the same trace")
	}
	for _, ev := range []string{`"ev":"request"`, `"ev":"enter"`, `"ev":"exit"`, `"ev":"send"`, `"ev":"recv"`, `"type":"token"`} {
		if !strings.Contains(a, ev) {
			t.Errorf("trace has no %s", ev)
		}
	}
}

func TestSpecValidate(t *testing.T) {
	good := Spec{Algorithm: "opencube", Nodes: 8, Requests: 1, Workload: "poisson", Delta: 1}
	cases := []struct {
		name string
		edit func(*Spec)
		flag string
	}{
		{"alg", func(s *Spec) { s.Algorithm = "bakery" }, "Algorithm"},
		{"not pow2", func(s *Spec) { s.Nodes = 12 }, "Nodes"},
		{"one node", func(s *Spec) { s.Nodes = 1 }, "Nodes"},
		{"negative", func(s *Spec) { s.Nodes = -8 }, "Nodes"},
		{"requests", func(s *Spec) { s.Requests = 0 }, "Requests"},
		{"workload", func(s *Spec) { s.Workload = "bursty" }, "Workload"},
		{"delta", func(s *Spec) { s.Delta = -1 }, "Delta"},
		{"min delay", func(s *Spec) { s.MinDelay = 2 }, "MinDelay"},
	}
	if err := good.Validate(); err != nil {
		t.Fatalf("good spec rejected: %v", err)
	}
	for _, c := range cases {
		s := good
		c.edit(&s)
		err := s.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), c.flag) {
			t.Errorf("%s: got %v, want an error naming %s", c.name, err, c.flag)
		}
	}
}

// TestInitialCosts checks the per-node cost from the initial configuration
// against values worked out by hand.
func TestInitialCosts(t *testing.T) {
	cases := []struct {
		alg  string
		n    int
		want []int
	}{
		// N=2: the root needs nothing, node 2 sends request and gets token(nil): α1 = 0+2.
		{"opencube", 2, []int{0, 2}},
		// N=4: 2 (id 1) is a non-last son of the root: request, token(1), return = 3;
		// 3 (id 2) is the last son: 2; 4 (id 3) goes through 3 (transit) then 1 (transit): 3.
		{"opencube", 4, []int{0, 3, 2, 3}},
		{"centralized", 4, []int{0, 3, 3, 3}},
		{"naimi-trehel", 4, []int{0, 2, 2, 2}},
		{"raymond", 4, []int{0, 2, 2, 4}},
	}
	for _, c := range cases {
		got, err := InitialCosts(c.alg, c.n)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s N=%d: c(i) = %v, want %v", c.alg, c.n, got, c.want)
		}
	}
}

// TestOpenCubeWorstCase checks the measured worst case from the initial
// open-cube: log2 N + 2 messages for N ≥ 8 (see README: the paper states
// log2 N + 1; its count leaves out one request and one token message on
// paths with a proxy below a transit root).
func TestOpenCubeWorstCase(t *testing.T) {
	for p := 3; p <= 10; p++ {
		costs, err := InitialCosts("opencube", 1<<p)
		if err != nil {
			t.Fatal(err)
		}
		max := 0
		for _, c := range costs {
			if c > max {
				max = c
			}
		}
		if max != p+2 {
			t.Errorf("N=%d: worst case %d messages, want log2 N + 2 = %d", 1<<p, max, p+2)
		}
	}
	// The smallest witness: N=8, paper node 6 (id 5): request 6→5, request
	// 5→1, token(nil) 1→5, token(5) 5→6, token(nil) 6→5.
	costs, _ := InitialCosts("opencube", 8)
	if costs[5] != 5 {
		t.Errorf("N=8, paper node 6: %d messages, want 5", costs[5])
	}
}

// BenchmarkSimulator measures the simulator's throughput on the sequential
// open-cube workload (10^5 requests, seed 1, counts checks: the default at
// these N) against a bare event loop with no protocol, in paired runs: each
// iteration is one pair, the bare loop and the simulator timed back to back
// in this process on the same number of events (which of the two goes first
// alternates, and a garbage collection precedes each), so that the load
// other processes put on the machine weighs on both halves of a pair alike.
// workload.Each half is timed in CPU time (the process's, garbage collection
// included: getrusage), which a machine shared with other jobs stretches
// far less than wall time, and in wall time. Run it with -benchtime Nx for
// N pairs (make bench: 9). It reports:
//
//   - ratio-median, ratio-min, ratio-max: over the pairs, the simulator's
//     events per CPU second over the bare loop's (the bare loop's CPU time
//     over the simulator's, as both run the same number of events; wall
//     time where CPU time cannot be read). The median is the figure to
//     quote.
//   - wall-ratio-median: the same ratio in wall time.
//   - sim-events/cpu-s: the simulator's events per CPU second in the
//     median pair, an event being one entry taken from its queue
//     (Stats.Popped: an input, a delivery or a timer run through a node,
//     or a call of the workload's or the controller's, about one in eight
//     here), as the bare loop's event is one entry taken from its heap. The
//     time is that of the whole run (bench.Run: building the nodes and the
//     record included). sim-steps/cpu-s counts the nodes' steps only.
//   - bare-events/cpu-s: the bare loop's events per CPU second in the
//     median pair: a binary heap of (time, seq) events, container/heap's,
//     each event popping the earliest and pushing one new event a
//     pseudo-random delay later; the heap holds 2 events, about as many as
//     the simulator's queue holds in this workload (2.1 on average at
//     N = 2^16).
//   - load1: the 1-minute load average when the pairs were over
//     (/proc/loadavg; absent elsewhere), to read the figures by.
func BenchmarkSimulator(b *testing.B) {
	defer func(v bool) { verifyIdle = v }(verifyIdle)
	verifyIdle = false // the simulator as it runs, not as the tests check it
	for _, n := range []int{1 << 10, 1 << 16} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			spec := Spec{Algorithm: "opencube", Nodes: n, Requests: 100000, Workload: "sequential", Seed: 1, CSTime: 1}
			events := popped(spec) // the same in every pair: one seed
			pairs := make([]simPair, b.N)
			for i := range pairs {
				simFirst := i%2 == 1
				if simFirst {
					pairs[i].sim, pairs[i].steps = timeSimulator(b, spec)
				}
				pairs[i].bare = timeBare(events, uint64(i+1))
				pairs[i].floor = timeFloor(events, n, uint64(i+1))
				if !simFirst {
					pairs[i].sim, pairs[i].steps = timeSimulator(b, spec)
				}
			}
			wall := make([]float64, len(pairs))
			for i, p := range pairs {
				wall[i] = p.bare.wall.Seconds() / p.sim.wall.Seconds()
			}
			slices.Sort(wall)
			slices.SortFunc(pairs, func(x, y simPair) int { return cmp.Compare(x.ratio(), y.ratio()) })
			med := pairs[len(pairs)/2]
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(med.ratio(), "ratio-median")
			b.ReportMetric(pairs[0].ratio(), "ratio-min")
			b.ReportMetric(pairs[len(pairs)-1].ratio(), "ratio-max")
			b.ReportMetric(wall[len(wall)/2], "wall-ratio-median")
			b.ReportMetric(float64(events)/med.sim.time().Seconds(), "sim-events/cpu-s")
			b.ReportMetric(float64(med.steps)/med.sim.time().Seconds(), "sim-steps/cpu-s")
			b.ReportMetric(float64(events)/med.bare.time().Seconds(), "bare-events/cpu-s")
			slices.SortFunc(pairs, func(x, y simPair) int { return cmp.Compare(x.floorRatio(), y.floorRatio()) })
			b.ReportMetric(pairs[len(pairs)/2].floorRatio(), "floor-ratio-median")
			b.ReportMetric(float64(events)/pairs[len(pairs)/2].floor.time().Seconds(), "floor-events/cpu-s")
			if load, ok := loadAverage(); ok {
				b.ReportMetric(load, "load1")
			}
		})
	}
}

// span is how long something took: in wall time, and in the process's CPU
// time (0 where it cannot be read).
type span struct {
	wall, cpu time.Duration
}

// time is the span's CPU time, or its wall time where there is none.
func (s span) time() time.Duration {
	if s.cpu > 0 {
		return s.cpu
	}
	return s.wall
}

// timed runs f after a garbage collection and returns how long it took.
func timed(f func()) span {
	runtime.GC()
	c0, w0 := processCPU(), time.Now()
	f()
	return span{wall: time.Since(w0), cpu: processCPU() - c0}
}

// simPair is one pair of BenchmarkSimulator: the simulator's time and
// steps, and the bare loop's and the floor's times on as many events.
type simPair struct {
	sim, bare, floor span
	steps            int64
}

// floorRatio is the simulator's events per second over the floor's, in
// CPU time.
func (p simPair) floorRatio() float64 { return p.floor.time().Seconds() / p.sim.time().Seconds() }

// ratio is the simulator's events per second over the bare loop's, in CPU
// time.
func (p simPair) ratio() float64 { return p.bare.time().Seconds() / p.sim.time().Seconds() }

// timeSimulator runs spec (bench.Run) and returns how long it took and
// its steps.
func timeSimulator(b *testing.B, spec Spec) (span, int64) {
	var r *results.Run
	var err error
	d := timed(func() { r, err = Run(spec) })
	if err != nil {
		b.Fatal(err)
	}
	if r.Violation != "" {
		b.Fatal(r.Violation)
	}
	return d, r.Steps
}

// timeBare runs events events of the bare loop and returns how long it
// took.
func timeBare(events int64, seed uint64) span {
	return timed(func() { bareSink += bareEvents(events, 2, seed) })
}

// timeFloor runs events events of the floor loop over n nodes and
// returns how long it took.
func timeFloor(events int64, n int, seed uint64) span {
	return timed(func() { bareSink += floorEvents(events, 2, n, seed) })
}

// loadAverage returns the 1-minute load average (Linux's /proc/loadavg).
func loadAverage() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	load, err := strconv.ParseFloat(f[0], 64)
	return load, err == nil
}

// popped returns the number of events the simulator's queue gives out in
// the run of spec (not timed: the run is replayed).
func popped(spec Spec) int64 {
	plan, err := spec.Resolve()
	if err != nil {
		panic(err)
	}
	return simulate(plan).stats.Popped
}

// bareSink keeps the bare loop's result alive.
var bareSink float64

// bareEvent is an event of the bare loop: a time, and the sequence number
// that breaks ties in scheduling order, as the simulator's queue does.
type bareEvent struct {
	t   float64
	seq uint64
}

// bareHeap is a container/heap.Interface of bareEvents, earliest first.
type bareHeap []bareEvent

func (h bareHeap) Len() int { return len(h) }
func (h bareHeap) Less(i, j int) bool {
	return h[i].t < h[j].t || (h[i].t == h[j].t && h[i].seq < h[j].seq)
}
func (h bareHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *bareHeap) Push(x any)   { *h = append(*h, x.(bareEvent)) }
func (h *bareHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// bareEvents runs events events of a bare event loop whose heap holds
// pending events: each pops the earliest and pushes one new event, uniform
// in (0, 1] later (δ = 1). It returns the last event's time.
func bareEvents(events int64, pending int, seed uint64) float64 {
	rng := rand.New(rand.NewPCG(seed, 0))
	h := make(bareHeap, 0, pending+1)
	var seq uint64
	for range pending {
		seq++
		heap.Push(&h, bareEvent{t: 1 - rng.Float64(), seq: seq})
	}
	var now float64
	for range events {
		e := heap.Pop(&h).(bareEvent)
		now = e.t
		seq++
		heap.Push(&h, bareEvent{t: now + 1 - rng.Float64(), seq: seq})
	}
	return now
}

// floorNode is the floor loop's state of a node: as many bytes as a
// small algorithm's node (a cache line).
type floorNode struct{ words [8]uint64 }

// floorEvents is the fair floor of an event loop (issue 37): a binary heap
// of events written out for its one type (no interface, no boxing), each
// event popping the earliest, updating the state of a random node among n
// (the memory traffic a simulator's step makes) and pushing one new event,
// uniform in (0, 1] later. It counts events as the simulator's queue does
// (popped), and returns a value of the run so that none of it is dead.
func floorEvents(events int64, pending, n int, seed uint64) float64 {
	rng := rand.New(rand.NewPCG(seed, 0))
	nodes := make([]floorNode, n)
	h := make([]bareEvent, 0, pending+1)
	less := func(a, b bareEvent) bool { return a.t < b.t || (a.t == b.t && a.seq < b.seq) }
	push := func(e bareEvent) {
		h = append(h, e)
		for i := len(h) - 1; i > 0; {
			up := (i - 1) / 2
			if !less(h[i], h[up]) {
				break
			}
			h[i], h[up] = h[up], h[i]
			i = up
		}
	}
	pop := func() bareEvent {
		top := h[0]
		last := len(h) - 1
		h[0] = h[last]
		h = h[:last]
		for i := 0; ; {
			l, m := 2*i+1, i
			if l < last && less(h[l], h[m]) {
				m = l
			}
			if r := l + 1; r < last && less(h[r], h[m]) {
				m = r
			}
			if m == i {
				break
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
		return top
	}
	var seq uint64
	for range pending {
		seq++
		push(bareEvent{t: 1 - rng.Float64(), seq: seq})
	}
	var now float64
	for range events {
		e := pop()
		now = e.t
		nd := &nodes[rng.IntN(n)]
		nd.words[e.seq%8]++
		seq++
		push(bareEvent{t: now + 1 - rng.Float64(), seq: seq})
	}
	return now + float64(nodes[0].words[0])
}

// TestDelayViolations: delays beyond δ on purpose break safety in the
// failure protocol (it rests on δ), the run goes on, counts the breaches and
// describes the first with its seed; the same run within δ is safe. No run
// here may end as a message storm (the simulator's guard against a protocol
// whose messages breed).
func TestDelayViolations(t *testing.T) {
	for _, c := range []struct {
		nodes      int
		late, far  float64
		safe       bool
		stormAhead bool
	}{
		{32, 0, 10, true, false},
		{32, 0.1, 10, false, false},
		{64, 0.2, 50, false, false},
	} {
		s := Spec{Algorithm: "opencube", Nodes: c.nodes, Requests: 1, Workload: "poisson", Seed: 1, Think: 10 * float64(c.nodes), CSTime: 1,
			LateFraction: c.late, LateFactor: c.far, NoBaseline: true,
			Faults: faults.FaultPlan{Crashes: 200, Spacing: "exp", Every: 50, Down: 20, DownDist: "exp", Target: "random"}}
		r, err := Run(s)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("N=%d, %g late up to %gδ", c.nodes, c.late, c.far)
		switch {
		case c.safe && r.SafetyViolations+r.LivenessViolations != 0:
			t.Errorf("%s: %d safety and %d liveness violations: %s", name, r.SafetyViolations, r.LivenessViolations, r.Violation)
		case !c.safe && (r.SafetyViolations == 0 || int64(r.SafetyViolations) != r.OverlappingCS+r.DuplicateTokens):
			t.Errorf("%s: %d safety violations, %d overlapping CS, %d duplicate tokens", name, r.SafetyViolations, r.OverlappingCS, r.DuplicateTokens)
		case !c.safe && (!strings.Contains(r.Violation, "delayed beyond δ on purpose") || !strings.Contains(r.Violation, "seed 1")):
			t.Errorf("%s: violation %q does not describe the first breach with its seed", name, r.Violation)
		case c.stormAhead != strings.Contains(r.Violation, "message storm") || c.stormAhead && r.LivenessViolations == 0:
			t.Errorf("%s: storm expected %v; liveness violations %d: %s", name, c.stormAhead, r.LivenessViolations, r.Violation)
		}
	}
}
