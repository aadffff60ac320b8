//go:build mpi

package rank

// The tests of this file run on the ranks of an MPI job (make mpi-test):
//
//	go test -c -tags mpi -o rank.test ./rank
//	mpirun -np 4 ./rank.test -test.run MPI

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/mpi"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/scheme"
	"github.com/ocbench/ocbench/wire"
)

func TestMain(m *testing.M) {
	if _, err := mpi.Init(mpi.ThreadFunneled); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// TestMPIParity: on real MPI ranks, a failure-free sequential workload costs
// exactly the simulator's messages per request, by type.
func TestMPIParity(t *testing.T) {
	p := mpi.WorldSize()
	type parity struct {
		algo      string
		perRank   int
		placement string
	}
	// Every algorithm of the registry, placements and nodes per rank
	// alternating; the open-cube twice.
	cases := []parity{{"opencube", 4, "cyclic"}}
	for k, a := range algo.Ordered() {
		if algo.IsSelfStabilizing(a) {
			continue // its rounds never stop: messages follow real time (TestMPIKofl)
		}
		cases = append(cases, parity{a, 1 + k%2, hypercube.Placements[k%len(hypercube.Placements)]})
	}
	for _, c := range cases {
		n := max(2, c.perRank*p)
		spec := bench.Spec{Algorithm: c.algo, Nodes: n, Requests: 100, Workload: "sequential", Seed: 11, Delta: 2e-3, CSTime: 0}
		got, err := Run(MPI{}, spec, Options{Placement: c.placement})
		if err != nil {
			t.Fatalf("rank %d: %s N=%d: %v", mpi.WorldRank(), c.algo, n, err)
		}
		if mpi.WorldRank() != 0 {
			continue
		}
		want, err := bench.Run(spec)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%s N=%d P=%d %s", c.algo, n, p, c.placement)
		if !orderFree(t, spec, want) {
			// Its sequential cost depends on the order of deliveries (a
			// flood, a forward to the last holder heard of): real time
			// gives another order than the simulator's, so only the
			// checks below apply (TestMPIVirtual replays its exact run).
			if got.SafetyViolations+got.LivenessViolations+int(got.MalformedFrames) != 0 || got.RequestsServed != got.RequestsIssued {
				t.Errorf("%s: served %d/%d, violations: %s, malformed %d", name, got.RequestsServed, got.RequestsIssued, got.Violation, got.MalformedFrames)
			}
			t.Logf("%s: %d messages, the simulator %d (the cost depends on the order of deliveries)", name, got.MessagesTotal, want.MessagesTotal)
			continue
		}
		if got.MessagesTotal != want.MessagesTotal || !reflect.DeepEqual(got.MessagesByType, want.MessagesByType) {
			t.Errorf("%s: messages %d %v; simulator %d %v", name, got.MessagesTotal, got.MessagesByType, want.MessagesTotal, want.MessagesByType)
		}
		if got.MsgsPerRequest.Mean != want.MsgsPerRequest.Mean || got.MsgsPerRequest.Max != want.MsgsPerRequest.Max {
			t.Errorf("%s: msg/req mean %v max %v; simulator mean %v max %v", name, got.MsgsPerRequest.Mean, got.MsgsPerRequest.Max, want.MsgsPerRequest.Mean, want.MsgsPerRequest.Max)
		}
		if got.SafetyViolations+got.LivenessViolations+int(got.MalformedFrames) != 0 || got.Ranks != p {
			t.Errorf("%s: %d ranks, violations: %s, malformed %d", name, got.Ranks, got.Violation, got.MalformedFrames)
		}
		t.Logf("%s: %d messages (%d between ranks, %.2f hops each), max delay %.2fδ", name, got.MessagesTotal, got.MessagesInterRank, got.HopsPerMessage, got.MaxDelayDelta)
	}
}

// TestMPICrashes: crashes injected on the ranks that host their victims,
// with the baseline alongside; no two nodes are ever in the critical
// section. With 2 and with 8 nodes per rank (up to N = 64: the think time
// grows with N, and so does the wait for every node's first request): many
// nodes per rank make bursts of frames to idle ranks (TestMPIBurstToIdleRank).
func TestMPICrashes(t *testing.T) {
	p := mpi.WorldSize()
	for _, c := range []struct {
		nodes, crashes int
	}{
		{max(4, 2*p), 10},
		{8 * p, 20},
	} {
		n := c.nodes
		if n > 64 {
			continue
		}
		spec := bench.Spec{Algorithm: "opencube", Nodes: n, Requests: 1, Workload: "poisson", Seed: 5, Delta: 4e-3, CSTime: 1,
			Think: 10 * float64(n), Faults: faults.FaultPlan{Crashes: c.crashes, Spacing: "exp", Every: 50, Down: 20, DownDist: "exp", Target: "random"}}
		r, err := Run(MPI{}, spec, Options{})
		if err != nil {
			t.Fatalf("rank %d: N=%d: %v", mpi.WorldRank(), n, err)
		}
		if mpi.WorldRank() != 0 {
			continue
		}
		if r.Failures != c.crashes || r.MalformedFrames != 0 || len(r.CPUSecondsPerRank) != p {
			t.Errorf("N=%d: failures %d, malformed %d, cpu %v", n, r.Failures, r.MalformedFrames, r.CPUSecondsPerRank)
		}
		// Safety rests on δ: a run whose deliveries all kept within δ must
		// be safe; one that saw later deliveries may not be, and says so.
		if r.SafetyViolations != 0 && r.DelaysOverDelta == 0 {
			t.Errorf("N=%d: %d safety violations with every delivery within δ: %s", n, r.SafetyViolations, r.Violation)
		} else if r.SafetyViolations != 0 {
			t.Logf("N=%d: %d safety violations after %d deliveries later than δ (max %.1fδ): %s", n, r.SafetyViolations, r.DelaysOverDelta, r.MaxDelayDelta, r.Violation)
		}
		t.Logf("N=%d P=%d: overhead/failure %.2f, differential %.2f, served %d/%d, %d of %d deliveries over δ (max %.2fδ), liveness: %s",
			n, p, r.OverheadPerFailure.Mean, r.OverheadDifferential.Mean, r.RequestsServed, r.RequestsIssued, r.DelaysOverDelta, r.MessagesTotal, r.MaxDelayDelta, r.Violation)
	}
}

// TestMPIMessageCost compares the runtime's cost per message between two
// ranks (encode into a frame, MPI send, ring the doorbell, collect from the
// posted receive, decode, validate, step the node) with a raw MPI ping-pong
// of a frame's size between the same two ranks, measured in the same job:
// five rounds of each, interleaved, and the median of each is printed (one
// round is 40,000 messages, a few tens of milliseconds, and other programs
// on the machine disturb some rounds). The target is within 2× (README).
// Between the two, it measures the floor that Go and cgo set: the same
// bounce through the binding alone (TestRecv, Send), without the runtime.
func TestMPIMessageCost(t *testing.T) {
	rank, p := mpi.WorldRank(), mpi.WorldSize()
	if p < 2 {
		t.Skip("needs 2 ranks")
	}
	const iters, rounds = 20000, 5
	size := wire.HeaderSize + wire.RecordSize
	pl, _ := hypercube.NewPlacement("block", p, p)
	spec := bench.Spec{Algorithm: "opencube", Nodes: p, Requests: 1, Workload: "sequential", Delta: 1}
	var raw, binding, plain, rung []float64
	for range rounds {
		if rank < 2 {
			r, err := mpi.PingPong(1-rank, size, iters)
			if err != nil {
				t.Fatal(err)
			}
			raw = append(raw, r)
		}
		// As ocbench runs it: the loop on the MPI thread, calls without hand-over.
		err := mpi.OnThread(func() error {
			binding = append(binding, bindingBounce(t, rank, size, iters))
			plain = append(plain, measureBounce(t, rank, p, pl, spec, false, iters))
			rung = append(rung, measureBounce(t, rank, p, pl, spec, true, iters))
			return nil
		})
		if err != nil || t.Failed() {
			t.Fatal(err)
		}
	}
	if rank == 0 {
		r := median(raw)
		transports := "Open MPI's default transports (shared memory on one machine)"
		if btl := os.Getenv("OMPI_MCA_btl"); btl != "" {
			transports = "--mca btl " + btl
		}
		t.Logf("transports: %s", transports)
		for _, c := range []struct {
			what string
			per  []float64
		}{{"binding alone (TestRecv, Send)", binding}, {"runtime without doorbell", plain}, {"runtime with doorbell", rung}} {
			m := median(c.per)
			t.Logf("per message, %d ranks, median of %d rounds: %s %.2f µs, raw MPI ping-pong of %d bytes %.2f µs: ratio %.2f",
				p, rounds, c.what, m*1e6, size, r*1e6, m/r)
		}
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// bindingBounce bounces a message of size bytes between ranks 0 and 1
// through package mpi alone, as the runtime receives and sends (a receive
// posted ahead, TestRecv, Send from MPI memory), iters times each way, and
// returns the time per message on rank 0 (other ranks return 0).
func bindingBounce(t *testing.T, rank, size, iters int) float64 {
	var elapsed float64
	if rank < 2 {
		buf, err := mpi.AllocMem(size)
		if err == nil {
			err = mpi.PostRecv(maxFrame)
		}
		if err == nil {
			err = mpi.Barrier()
			start := time.Now()
			if rank == 0 {
				err = mpi.Send(buf, 1, tagData)
			}
			for got := 0; err == nil && got < iters; {
				var data []byte
				var ok bool
				if _, data, ok, err = mpi.TestRecv(); ok && err == nil {
					got++
					copy(buf, data)
					if rank == 1 || got < iters {
						err = mpi.Send(buf, 1-rank, tagData)
					}
				}
			}
			elapsed = time.Since(start).Seconds()
			if _, _, ok, cerr := mpi.CancelRecv(); err == nil && (ok || cerr != nil) {
				err = fmt.Errorf("cancelling the posted receive: a message left %v, %v", ok, cerr)
			}
		} else {
			mpi.Barrier() // the other ranks' barrier
		}
		if ferr := mpi.FreeMem(buf); err == nil {
			err = ferr
		}
		if err != nil {
			t.Errorf("rank %d: binding bounce: %v", rank, err)
		}
	} else {
		mpi.Barrier()
	}
	mpi.Barrier()
	return elapsed / float64(2*iters)
}

// mpiJob makes this rank's job on MPI_COMM_WORLD with one instance of
// spec, as Run does, for tests that drive the runtime by hand; with ring,
// the ranks map their doorbells (a collective: every rank calls it alike).
// The caller closes j and j.bell.
func mpiJob(rank, p int, pl hypercube.Placement, spec bench.Spec, ring bool) (*job, *instance, error) {
	j := newJob(MPI{}, rank, p)
	j.ownThread = true
	j.setEpoch(time.Now().UnixNano())
	if ring {
		var err error
		if j.bell, err = setupDoorbells(MPI{}); err != nil {
			return nil, nil, err
		}
	}
	if err := j.startReceiving(); err != nil {
		j.bell.close()
		return nil, nil, err
	}
	in := newInstance(j, 0, bench.MustResolve(spec), pl)
	j.runs = []*instance{in}
	return j, in, nil
}

// measureBounce bounces a message between ranks 0 and 1 through the
// runtime iters times each way and returns the time per message (on rank
// 0; other ranks return 0). Each rank turns as the loop of a busy rank
// does: receive (the frames owed, and one more look after a frame), then
// flush (ring, send).
func measureBounce(t *testing.T, rank, p int, pl hypercube.Placement, spec bench.Spec, ring bool, iters int) float64 {
	j, in, err := mpiJob(rank, p, pl, spec, ring)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer j.close()
	defer j.bell.close()
	b := &bouncer{id: proto.NodeID(rank), peer: proto.NodeID(1 - rank)}
	in.nodes[rank] = b
	mpi.Barrier()
	start := time.Now()
	if rank == 0 {
		in.out.Reset()
		b.stepFirst(&in.out)
		in.send(&in.out.Msgs[0], 0)
		j.flush()
	}
	for rank < 2 && !b.done(iters) { // as the loop of a busy rank: receive, then send
		if _, err := j.receive(); err != nil {
			t.Error(err)
			return 0
		}
		j.flush()
	}
	elapsed := time.Since(start).Seconds()
	if rank == 0 {
		// Rank 1 answers the last message; receive it so nothing is left.
		for !b.done(iters + 1) {
			j.receive()
		}
	}
	// Every message of the bounce has arrived. Cancel the posted receive
	// before the barrier: past it, the other rank may start the next raw
	// ping-pong, whose messages the posted receive would take.
	if err := j.stopReceiving(); err != nil {
		t.Error(err)
	}
	mpi.Barrier()
	return elapsed / float64(2*iters)
}

// sink is a node that counts the messages it receives and sends nothing.
type sink struct{ got int }

func (s *sink) Step(in proto.Input, _ *proto.Output) {
	if in.Kind == proto.Receive {
		s.got++
	}
}
func (s *sink) View() proto.View           { return proto.View{Bits: proto.Bits{Up: true}} }
func (s *sink) Waiting(func(proto.NodeID)) {}

// TestMPIBurstToIdleRank: a burst of frames to a rank that sleeps on its
// doorbell, with no timer of its own, goes out at once and arrives whole.
// A small MPI_Send can wait until the receiver makes MPI progress (Open
// MPI's shared memory transport, once the sender's slots to that peer are
// used up). When rings followed the sends, the sender waited in MPI_Send for
// a rank that slept until its next timer (up to 220 ms in the ipsc2 job on 4
// ranks, with 8 and 16 nodes per rank), and here, with no timer, for ever.
func TestMPIBurstToIdleRank(t *testing.T) {
	rank, p := mpi.WorldRank(), mpi.WorldSize()
	if p < 2 {
		t.Skip("needs 2 ranks")
	}
	const frames = 512
	pl, _ := hypercube.NewPlacement("block", p, p)
	spec := bench.Spec{Algorithm: "opencube", Nodes: p, Requests: 1, Workload: "sequential", Delta: 1}
	var elapsed time.Duration
	var got int
	err := mpi.OnThread(func() error {
		j, in, err := mpiJob(rank, p, pl, spec, true)
		if err != nil {
			return err
		}
		defer j.close()
		defer j.bell.close()
		s := &sink{}
		in.nodes[1] = s
		if err := mpi.Barrier(); err != nil {
			return err
		}
		switch rank {
		case 0:
			nap(100 * time.Millisecond) // rank 1 is asleep on its doorbell by now
			start := time.Now()
			m := proto.Message{Type: scheme.Request, From: 0, To: 1, J: proto.RefTo(0), Src: proto.RefTo(0), Tag: 1}
			for range frames * maxBatch {
				in.send(&m, 0)
			}
			j.flush()
			elapsed = time.Since(start)
			j.control(ctlStop, 0, 0, 0, 1)
		case 1:
			if err := j.loop(); err != nil {
				return err
			}
		default:
			in.stopped = true
		}
		if err := j.drain(); err != nil {
			return err
		}
		got = s.got
		return j.stopReceiving()
	})
	if err != nil {
		t.Fatalf("rank %d: %v", rank, err)
	}
	switch rank {
	case 0:
		t.Logf("%d frames of %d records to an idle rank sent in %v", frames, maxBatch, elapsed)
		if elapsed > 2*time.Second {
			t.Errorf("%d frames to an idle rank took %v to send", frames, elapsed)
		}
	case 1:
		if got != frames*maxBatch {
			t.Errorf("rank 1 received %d messages, want %d", got, frames*maxBatch)
		}
	}
}

// stepFirst steps the bouncer as if a message had come: it sends the
// first one of a bounce.
func (b *bouncer) stepFirst(out *proto.Output) { b.Step(proto.Input{Kind: proto.Receive}, out) }

// done reports whether the bouncer has received iters messages.
func (b *bouncer) done(iters int) bool { return b.got >= iters }

// TestMPIParityOverhead: the overhead per failure of seeds run at once on
// the ranks (RunSeeds) is distributed as in the simulator's runs of the
// same seeds: a Mann–Whitney test does not reject it (p ≥ 0.001). Real
// delays differ from the simulator's, so the runs differ message by message;
// the distribution of what a failure costs must not.
func TestMPIParityOverhead(t *testing.T) {
	p := mpi.WorldSize()
	n := max(16, 2*p)
	var specs []bench.Spec
	for seed := uint64(1); seed <= 3; seed++ {
		specs = append(specs, bench.Spec{Algorithm: "opencube", Nodes: n, Requests: 1, Workload: "poisson", Seed: seed, Delta: 4e-3, CSTime: 1,
			Think: 10 * float64(n), Faults: faults.FaultPlan{Crashes: 30, Spacing: "exp", Every: 50, Down: 20, DownDist: "exp", Target: "random"}})
	}
	var recs []*results.Run
	err := mpi.OnThread(func() error {
		var err error
		recs, err = RunSeeds(MPI{}, specs, Options{})
		return err
	})
	if err != nil {
		t.Fatalf("rank %d: %v", mpi.WorldRank(), err)
	}
	if mpi.WorldRank() != 0 {
		return
	}
	var got, want []float64
	late := int64(0)
	for k, s := range specs {
		r := recs[k]
		if r.Seed != s.Seed || r.Failures != s.Faults.Crashes {
			t.Errorf("record %d: seed %d, %d failures; want seed %d, %d", k, r.Seed, r.Failures, s.Seed, s.Faults.Crashes)
		}
		got = append(got, r.OverheadSamples...)
		late += r.DelaysOverDelta
		s.NoBaseline = true
		sim, err := bench.Run(s)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, sim.OverheadSamples...)
	}
	_, pv, err := results.MannWhitney(got, want)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("N=%d P=%d, seeds 1..3 at once: overhead/failure %.2f on MPI, %.2f in the simulator, Mann–Whitney p = %.3g (%d deliveries later than δ)",
		n, p, results.Estimated(got).Mean, results.Estimated(want).Mean, pv, late)
	if pv < 1e-3 {
		t.Errorf("MPI and simulator overheads differ: p = %.3g", pv)
	}
}

// TestMPIMeasureDelays: every rank learns the same δ from a measurement on
// real ranks, within the rule's bounds.
func TestMPIMeasureDelays(t *testing.T) {
	sh := DefaultDelayShape(mpi.WorldSize(), 2)
	sh.Duration = 300 * time.Millisecond
	var d Delays
	err := mpi.OnThread(func() error {
		var err error
		d, err = MeasureDelays(MPI{}, sh)
		return err
	})
	if err != nil {
		t.Fatalf("rank %d: %v", mpi.WorldRank(), err)
	}
	all, err := mpi.AllreduceFloat64([]float64{d.Delta, -d.Delta}, mpi.OpMax)
	if err != nil {
		t.Fatal(err)
	}
	if all[0] != d.Delta || -all[1] != d.Delta {
		t.Errorf("rank %d: δ = %g, others between %g and %g", mpi.WorldRank(), d.Delta, -all[1], all[0])
	}
	if mpi.WorldSize() > 1 && (d.Count == 0 || d.Delta < DeltaFloor || d.Delta != ChooseDelta(d.P999)) {
		t.Errorf("measured %+v", d)
	}
	if mpi.WorldRank() == 0 {
		t.Logf("P=%d: %d delays, median %.1f µs, p99 %.1f µs, p99.9 %.1f µs, max %.1f µs: δ = %.1f µs",
			mpi.WorldSize(), d.Count, d.Median*1e6, d.P99*1e6, d.P999*1e6, d.Max*1e6, d.Delta*1e6)
	}
}

// orderFree reports whether the sequential cost of spec's algorithm does
// not depend on the order of deliveries: the simulator's run with every
// delay exactly δ (another order of concurrent messages) sends what want,
// its run with the default delays, sent.
func orderFree(t *testing.T, spec bench.Spec, want *results.Run) bool {
	t.Helper()
	fixed := spec
	fixed.MinDelay = 1
	r, err := bench.Run(fixed)
	if err != nil {
		t.Fatal(err)
	}
	return r.MessagesTotal == want.MessagesTotal && reflect.DeepEqual(r.MessagesByType, want.MessagesByType)
}
