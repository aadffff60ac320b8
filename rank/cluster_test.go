package rank

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/internal/field"
	"github.com/ocbench/ocbench/opencube"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/scheme"
	"github.com/ocbench/ocbench/wire"
	"github.com/ocbench/ocbench/workload"
)

// onLocalRanks calls f on p goroutine ranks at once (rank r, its Comm) and
// fails the test if a rank fails.
func onLocalRanks(t *testing.T, p int, f func(r int, c Comm) error) {
	t.Helper()
	for r, err := range onRanks(p, f) {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
}

// runLocal runs spec on p goroutine ranks and returns rank 0's record.
func runLocal(t *testing.T, p int, spec bench.Spec, opt Options) *results.Run {
	t.Helper()
	recs := make([]*results.Run, p)
	onLocalRanks(t, p, func(r int, c Comm) (err error) {
		recs[r], err = Run(c, spec, opt)
		return err
	})
	for r := 1; r < p; r++ {
		if recs[r] != nil {
			t.Fatalf("rank %d returned a record", r)
		}
	}
	return recs[0]
}

// runTimely runs spec on p goroutine ranks in wall-clock time, as runLocal
// does, for a test whose checks rest on δ holding (the failure protocol's
// time-outs do). A loaded machine can leave a goroutine unrun for longer
// than δ; then the run broke the algorithm's timing assumption, not the
// algorithm, and runTimely runs it again with δ ten times longer, twice at
// most, and skips the test if δ still did not hold. before, if not nil,
// is called before every attempt (to reset a trace buffer).
func runTimely(t *testing.T, p int, spec bench.Spec, before func(*bench.Spec)) *results.Run {
	t.Helper()
	for attempt := 0; ; attempt++ {
		if before != nil {
			before(&spec)
		}
		r := runLocal(t, p, spec, Options{})
		if r.DelaysOverDelta == 0 {
			return r
		}
		if attempt == 2 {
			t.Skipf("δ = %gs did not hold on this machine (%d deliveries later, the longest %.1fδ): the run's timing assumption is broken, not the algorithm", spec.Delta, r.DelaysOverDelta, r.MaxDelayDelta)
		}
		t.Logf("δ = %gs did not hold (%d deliveries later than δ, the longest %.1fδ): again with δ ×10", spec.Delta, r.DelaysOverDelta, r.MaxDelayDelta)
		spec.Delta *= 10
	}
}

// runSeedsLocal runs specs at once on p goroutine ranks and returns rank
// 0's records; it fails the test if a rank fails or another rank returns
// records.
func runSeedsLocal(t *testing.T, p int, specs []bench.Spec) []*results.Run {
	t.Helper()
	recs := make([][]*results.Run, p)
	onLocalRanks(t, p, func(r int, c Comm) (err error) {
		recs[r], err = RunSeeds(c, specs, Options{})
		return err
	})
	for r := 1; r < p; r++ {
		if recs[r] != nil {
			t.Fatalf("rank %d returned records", r)
		}
	}
	return recs[0]
}

// TestParity: a failure-free sequential workload costs exactly the same
// messages per request, by type, on ranks as in the simulator.
func TestParity(t *testing.T) {
	for _, c := range []struct {
		algo      string
		nodes, p  int
		placement string
	}{
		{"opencube", 16, 4, "block"},
		{"opencube", 16, 4, "cyclic"},
		{"opencube", 8, 1, "block"},
		{"opencube", 32, 8, "block"},
		{"naimi-trehel", 16, 2, "block"},
		{"raymond", 16, 4, "cyclic"},
		{"centralized", 8, 8, "block"},
	} {
		t.Run(fmt.Sprintf("%s/N%d/P%d/%s", c.algo, c.nodes, c.p, c.placement), func(t *testing.T) {
			spec := bench.Spec{Algorithm: c.algo, Nodes: c.nodes, Requests: 150, Workload: "sequential", Seed: 7,
				Delta: 2e-3, CSTime: 0}
			want, err := bench.Run(spec)
			if err != nil {
				t.Fatal(err)
			}
			got := runLocal(t, c.p, spec, Options{Placement: c.placement})
			if got.Runtime != "mpi" || got.Ranks != c.p || got.Placement != c.placement {
				t.Errorf("runtime %q ranks %d placement %q", got.Runtime, got.Ranks, got.Placement)
			}
			if got.RequestsServed != want.RequestsServed || got.MessagesTotal != want.MessagesTotal {
				t.Errorf("served %d messages %d; simulator: served %d messages %d", got.RequestsServed, got.MessagesTotal, want.RequestsServed, want.MessagesTotal)
			}
			if !reflect.DeepEqual(got.MessagesByType, want.MessagesByType) {
				t.Errorf("messages by type %v; simulator %v", got.MessagesByType, want.MessagesByType)
			}
			if got.MsgsPerRequest.Mean != want.MsgsPerRequest.Mean || got.MsgsPerRequest.Max != want.MsgsPerRequest.Max {
				t.Errorf("msg/req mean %v max %v; simulator mean %v max %v", got.MsgsPerRequest.Mean, got.MsgsPerRequest.Max, want.MsgsPerRequest.Mean, want.MsgsPerRequest.Max)
			}
			if got.SafetyViolations+got.LivenessViolations != 0 {
				t.Errorf("violations: %s", got.Violation)
			}
			if got.MessagesIntraRank+got.MessagesInterRank != got.MessagesTotal {
				t.Errorf("intra %d + inter %d != total %d", got.MessagesIntraRank, got.MessagesInterRank, got.MessagesTotal)
			}
		})
	}
}

func TestCheckRejects(t *testing.T) {
	ok := bench.Spec{Algorithm: "opencube", Nodes: 16, Requests: 10, Workload: "poisson", Seed: 1}
	crash := ok
	crash.Faults = faults.FaultPlan{Crashes: 3, Spacing: "exp", Every: 50, Down: 10, DownDist: "exp", Target: "random"}
	cases := []struct {
		name  string
		edit  func(*bench.Spec)
		p     int
		place string
	}{
		{"ranks not a power of two", nil, 3, ""},
		{"more ranks than nodes", nil, 32, ""},
		{"unknown placement", nil, 4, "spiral"},
		{"each", func(s *bench.Spec) { s.Workload = "each" }, 4, ""},
		{"sequential with crashes", func(s *bench.Spec) { *s = crash; s.Workload = "sequential" }, 4, ""},
		{"power target", func(s *bench.Spec) { *s = crash; s.Faults.Target = "power" }, 4, ""},
		{"delay violations", func(s *bench.Spec) { s.LateFraction = 0.1 }, 4, ""},
		{"bad nodes", func(s *bench.Spec) { s.Nodes = 12 }, 4, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := ok
			if c.edit != nil {
				c.edit(&s)
			}
			_, _, err := Check(s, c.place, c.p)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Check accepted it (err %v)", err)
			}
		})
	}
	if _, _, err := Check(crash, "cyclic", 4); err != nil {
		t.Errorf("a good spec was rejected: %v", err)
	}
}

// TestCrashes runs the failure protocol on goroutine ranks with crashes and
// a concurrent baseline: every planned crash happens, the overheads are
// measured, and no two nodes are ever in the critical section together.
func TestCrashes(t *testing.T) {
	spec := bench.Spec{Algorithm: "opencube", Nodes: 16, Requests: 1, Workload: "poisson", Seed: 3,
		Delta: 4e-3, CSTime: 1, Think: 80,
		Faults: faults.FaultPlan{Crashes: 6, Spacing: "exp", Every: 40, Down: 10, DownDist: "exp", Target: "random"}}
	r := runTimely(t, 4, spec, nil)
	if r.Failures != 6 || r.Recoveries != 6 {
		t.Errorf("failures %d recoveries %d, want 6 and 6", r.Failures, r.Recoveries)
	}
	if r.SafetyViolations != 0 {
		t.Errorf("safety: %s", r.Violation)
	}
	if r.RequestsServed == 0 || r.BaselineMessages == 0 || r.OverheadPerFailure.N != 6 {
		t.Errorf("served %d, baseline %d messages, %d overhead samples", r.RequestsServed, r.BaselineMessages, r.OverheadPerFailure.N)
	}
	if r.MalformedFrames != 0 || len(r.CPUSecondsPerRank) != 4 {
		t.Errorf("malformed %d, cpu %v", r.MalformedFrames, r.CPUSecondsPerRank)
	}
	t.Logf("served %d/%d, overhead %.2f, differential %.2f, max delay %.2fδ, over δ %d, lost %d, %s",
		r.RequestsServed, r.RequestsIssued, r.OverheadPerFailure.Mean, r.OverheadDifferential.Mean, r.MaxDelayDelta, r.DelaysOverDelta, r.RequestsLost, r.Violation)
}

// misdirected is a node that sends a message to no node when asked for the
// critical section: what a node does after a second token has reached it.
type misdirected struct{}

func (misdirected) Step(in proto.Input, out *proto.Output) {
	if in.Kind == proto.EnterCS {
		out.Msgs = append(out.Msgs, proto.Message{Type: scheme.Request, From: 0, To: proto.Nil, J: proto.RefTo(0), Src: proto.RefTo(0), Tag: in.Tag})
	}
}
func (misdirected) View() proto.View           { return proto.View{Bits: proto.Bits{Up: true, Asked: true}} }
func (misdirected) Waiting(func(proto.NodeID)) {}

// oneRun returns a job of the given ranks' rank 0 (on goroutine Comms,
// which it returns) running the one run of spec, on an epoch now.
func oneRun(t *testing.T, spec bench.Spec, ranks int) (*job, *instance, []Comm) {
	t.Helper()
	s, pl, err := Check(spec, "", ranks)
	if err != nil {
		t.Fatal(err)
	}
	comms := Local(ranks)
	j := newJob(comms[0], 0, ranks)
	j.setEpoch(time.Now().UnixNano())
	in := newInstance(j, 0, bench.MustResolve(s), pl)
	j.runs = []*instance{in}
	return j, in, comms
}

// TestMessageToNoNode: a message to no node is a safety violation that the
// record describes; the run goes on instead of aborting.
func TestMessageToNoNode(t *testing.T) {
	j, in, _ := oneRun(t, bench.Spec{Algorithm: "opencube", Nodes: 4, Requests: 1, Workload: "poisson", Seed: 9, Delta: 1e-3, CSTime: 1}, 1)
	in.nodes[0] = misdirected{}
	in.step(0, proto.Input{Kind: proto.EnterCS, Tag: 1})
	in.step(0, proto.Input{Kind: proto.EnterCS, Tag: 2})
	if j.err != nil {
		t.Fatalf("the run failed: %v", j.err)
	}
	r := assemble(in, []*rankReport{in.report()})
	if r.SafetyViolations != 2 || !strings.Contains(r.Violation, "to no node") || !strings.Contains(r.Violation, "seed 9") {
		t.Errorf("safety violations %d, violation %q; want 2 and the first described", r.SafetyViolations, r.Violation)
	}
	if in.stats.Inter+in.stats.Intra != 0 {
		t.Errorf("the message was routed: %d intra, %d inter", in.stats.Intra, in.stats.Inter)
	}
}

// TestOverlappingStays: rank 0 counts every stay in the critical section
// that begins before an earlier one ends, and describes the first against
// the stay that was still going on.
func TestOverlappingStays(t *testing.T) {
	spec := bench.Spec{Algorithm: "opencube", Nodes: 4, Requests: 1, Workload: "poisson", Seed: 5, Delta: 1e-3, CSTime: 1}
	s, pl, err := Check(spec, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		stays    []workload.Stay
		minDelay float64 // the smallest delay the rank measured, in seconds
		want     int
		about    string // in the description
	}{
		{"one after another", []workload.Stay{{Node: 1, Enter: 0, Out: 1}, {Node: 2, Enter: 1, Out: 2}, {Node: 3, Enter: 2.5, Out: 3, Crashed: true}}, 1e-6, 0, ""},
		{"overlap", []workload.Stay{{Node: 2, Enter: 1, Out: 3}, {Node: 1, Enter: 0, Out: 2}}, 1e-6, 1, "node 2 entered the critical section at t=1.000000s while node 1 was in it (from t=0.000000s; it left at t=2.000000s; seed 5)"},
		{"ended by a crash", []workload.Stay{{Node: 1, Enter: 0, Out: 2, Crashed: true}, {Node: 2, Enter: 1, Out: 3}}, -1e-4, 1, "it crashed at t=2.000000s"},
		{"two inside a long one", []workload.Stay{{Node: 1, Enter: 0, Out: 10}, {Node: 2, Enter: 1, Out: 2}, {Node: 3, Enter: 3, Out: 4}}, 1e-6, 2, "node 2 entered the critical section at t=1.000000s while node 1 was in it"},
		{"a stay that ends as it begins, inside another", []workload.Stay{{Node: 1, Enter: 0, Out: 2}, {Node: 2, Enter: 1, Out: 1}}, 1e-6, 1, "node 2 entered the critical section at t=1.000000s while node 1 was in it"},
		{"stays that end as they begin, at one instant", []workload.Stay{{Node: 1, Enter: 0, Out: 1}, {Node: 2, Enter: 1, Out: 1}, {Node: 3, Enter: 1, Out: 1}, {Node: 4, Enter: 1, Out: 2}}, 1e-6, 0, ""},
		{"shorter than the clocks' disagreement", []workload.Stay{{Node: 1, Enter: 0, Out: 2.000005}, {Node: 2, Enter: 2, Out: 3}}, -1e-4, 1, "the ranks' clocks disagree by at least 100.0 µs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := newJob(Local(1)[0], 0, 1)
			in := newInstance(j, 0, bench.MustResolve(s), pl)
			j.runs = []*instance{in}
			in.stats.CS = c.stays
			in.noteDelay(c.minDelay)
			r := assemble(in, []*rankReport{in.report()})
			if r.SafetyViolations != c.want || r.OverlappingCS != int64(c.want) || !strings.Contains(r.Violation, c.about) {
				t.Errorf("safety violations %d, overlaps %d, violation %q; want %d and %q", r.SafetyViolations, r.OverlappingCS, r.Violation, c.want, c.about)
			}
		})
	}
}

// TestPayloadFrames: messages with payloads between two ranks go in frames
// that never outgrow maxFrame (a frame is sent before a record would
// overflow it), and come out word for word; a payload beyond
// wire.MaxPayload fails the run with one line.
func TestPayloadFrames(t *testing.T) {
	j, in, comms := oneRun(t, bench.Spec{Algorithm: "opencube", Nodes: 4, Requests: 1, Workload: "poisson", Seed: 3, Delta: 1e-3, CSTime: 1}, 2)
	to := proto.NodeID(in.n - 1) // on rank 1 (block placement)
	var want []proto.Message
	for k := range 40 {
		m := proto.Message{Type: scheme.Token, From: 0, To: to, Src: proto.RefTo(0), Tag: uint32(k + 1)}
		for w := range 20 * k % wire.MaxPayload { // none for k = 0: decoded as nil
			m.Payload = append(m.Payload, int64(k*1000+w))
		}
		want = append(want, m)
		in.send(&m, 0)
	}
	j.flush()
	if j.err != nil {
		t.Fatal(j.err)
	}
	var got []proto.Message
	for {
		src, tag, n, ok, err := comms[1].Iprobe()
		if err != nil || !ok {
			break
		}
		buf := make([]byte, n)
		if _, err := comms[1].Recv(buf, src, tag); err != nil {
			t.Fatal(err)
		}
		if len(buf) > maxFrame {
			t.Errorf("a frame of %d bytes, more than %d", len(buf), maxFrame)
		}
		if _, got, err = wire.Decode(buf, in.n, got); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("received %d messages, want %d, or their payloads differ", len(got), len(want))
	}
	in.send(&proto.Message{Type: scheme.Token, From: 0, To: to, Src: proto.RefTo(0), Payload: make([]int64, wire.MaxPayload+1)}, 0)
	if j.err == nil || !strings.Contains(j.err.Error(), "payload words") {
		t.Errorf("an oversize payload: error %v", j.err)
	}
}

// TestForeignMessageType: a frame whose message type the run's algorithm
// does not have (raymond has request, token and anomaly) is malformed and
// dropped whole.
func TestForeignMessageType(t *testing.T) {
	j, in, _ := oneRun(t, bench.Spec{Algorithm: "raymond", Nodes: 4, Requests: 1, Workload: "sequential", Seed: 1, Delta: 1e-3, CSTime: 1}, 2)
	frame := wire.Encode(wire.Header{Digest: j.digest}, []proto.Message{{Type: opencube.Test, From: 3, To: 0}})
	j.handleData(frame, 1)
	if in.malformed != 1 || !strings.Contains(in.malformedErr, "message type") || in.stats.Steps != 0 {
		t.Errorf("malformed %d (%q), steps %d: want the frame dropped as malformed", in.malformed, in.malformedErr, in.stats.Steps)
	}
}

// TestMixedRuns: runs of different algorithms and sizes share one job (the
// ipsc2 preset's two sizes, --algo ft's algorithms), and each counts what
// it would alone: exactly the simulator's messages for a sequential
// workload, every planned failure for a run with crashes.
func TestMixedRuns(t *testing.T) {
	seq := func(algo string, n int) bench.Spec {
		return bench.Spec{Algorithm: algo, Nodes: n, Requests: 60, Workload: "sequential", Seed: 5, Delta: 2e-3}
	}
	crash := bench.Spec{Algorithm: "opencube", Nodes: 32, Requests: 1, Workload: "poisson", Seed: 3,
		Delta: 2e-3, CSTime: 1, Think: 80,
		Faults: faults.FaultPlan{Crashes: 4, Spacing: "exp", Every: 40, Down: 10, DownDist: "exp", Target: "random"}}
	specs := []bench.Spec{seq("opencube", 16), crash, seq("naimi-trehel", 32), seq("raymond", 8)}
	recs := runSeedsLocal(t, 4, specs)
	if len(recs) != len(specs) {
		t.Fatalf("%d records for %d runs", len(recs), len(specs))
	}
	for k, s := range specs {
		got := recs[k]
		if got.Algorithm != s.Algorithm || got.Nodes != s.Nodes {
			t.Errorf("record %d is %s N=%d, want %s N=%d", k, got.Algorithm, got.Nodes, s.Algorithm, s.Nodes)
		}
		if got.SafetyViolations+got.LivenessViolations != 0 || got.MalformedFrames != 0 {
			t.Errorf("%s N=%d: violations %q, %d malformed frames", s.Algorithm, s.Nodes, got.Violation, got.MalformedFrames)
		}
		if s.Faults.Crashes > 0 {
			if got.Failures != s.Faults.Crashes || got.BaselineMessages == 0 {
				t.Errorf("%s N=%d: %d failures of %d, baseline %d messages", s.Algorithm, s.Nodes, got.Failures, s.Faults.Crashes, got.BaselineMessages)
			}
			continue
		}
		want, err := bench.Run(s)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.MessagesByType, want.MessagesByType) || got.RequestsServed != want.RequestsServed {
			t.Errorf("%s N=%d: served %d, messages %v; simulator: served %d, %v", s.Algorithm, s.Nodes,
				got.RequestsServed, got.MessagesByType, want.RequestsServed, want.MessagesByType)
		}
	}
}

// intruder is a node that enters the critical section whenever it gets a
// message, requested or not: what a node does when a token from before its
// crash reaches it.
type intruder struct{ in bool }

func (n *intruder) Step(in proto.Input, out *proto.Output) {
	if in.Kind == proto.Receive {
		n.in, out.Enter = true, true
	}
}
func (n *intruder) View() proto.View           { return proto.View{Bits: proto.Bits{Up: true, InCS: n.in}} }
func (n *intruder) Waiting(func(proto.NodeID)) {}

// TestUnrequestedEntry: an entry without a request pending is a safety
// violation that the record describes, and the workload's count still
// closes: the watchdog ends a run whose count never would, instead of
// waiting for ever.
func TestUnrequestedEntry(t *testing.T) {
	j, in, _ := oneRun(t, bench.Spec{Algorithm: "opencube", Nodes: 4, Requests: 1, Workload: "poisson", Seed: 4, Delta: 1e-3, CSTime: 1}, 1)
	in.start()
	in.nodes[2] = &intruder{}
	in.deliver(&proto.Message{Type: scheme.Request, From: 1, To: 2, J: proto.RefTo(0), Src: proto.RefTo(1), Tag: 7}, j.now())
	if j.err != nil {
		t.Fatalf("the run failed: %v", j.err)
	}
	r := assemble(in, []*rankReport{in.report()})
	if r.SafetyViolations != 1 || !strings.Contains(r.Violation, "node 2 entered the critical section without a request pending") {
		t.Errorf("safety violations %d, violation %q; want 1, described", r.SafetyViolations, r.Violation)
	}
}

// TestMinDelta: under MPI a δ below MinDelta is refused, naming the field:
// at 1 ns a run printed every request served, a stall of 800δ (0.8 µs) and
// δ held, all at once.
func TestMinDelta(t *testing.T) {
	s := bench.Spec{Algorithm: "opencube", Nodes: 2, Requests: 1, Workload: "sequential", Seed: 1, Delta: 1e-9}
	_, _, err := Check(s, "", 2)
	var fe *field.Error
	if !errors.As(err, &fe) || fe.Field != "Delta" {
		t.Errorf("δ = 1 ns: error %v, want a refusal of Delta", err)
	}
	s.Delta = MinDelta
	if _, _, err := Check(s, "", 2); err != nil {
		t.Errorf("δ = MinDelta: %v", err)
	}
}
