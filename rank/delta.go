package rank

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/ocbench/ocbench/mpi"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/wire"
)

// tagProbe tags the frames of the delay measurement (MeasureDelays).
const tagProbe = 3

// DelayShape is the traffic of a delay measurement: it imitates a run's
// (frames of a run's size, bursts of several frames on a link, broadcasts,
// every rank at once, as many messages per δ as the runs of the job send).
// Since that rate depends on δ, the measurement has two rounds: a quarter of
// the time at the rate that δ = Guess gives, then the rest at the rate of
// the δ that the first round chose; δ is chosen from the second.
type DelayShape struct {
	// Frame is the length of a frame in bytes (a run's frame: a header and
	// a record or two).
	Frame int
	// Burst is the number of frames a rank sends at once on one link.
	Burst int
	// PerDelta is the number of frames all ranks send per δ together.
	PerDelta float64
	// Guess is the δ whose rate the first round sends at, in seconds.
	Guess float64
	// Broadcast is the fraction of bursts that go to every other rank, one
	// frame each (a regeneration announcement, a search phase), instead of
	// Burst frames to one hypercube neighbour rank.
	Broadcast float64
	// Duration is how long the ranks send, both rounds together; each
	// round receives for a further quarter of its time, and what is still
	// in flight then is measured as it is drained.
	Duration time.Duration
	// Seed draws the bursts (rank r uses Seed + r).
	Seed uint64
}

// PerDeltaOfRun is the messages per δ of one run of the ipsc2 job, all
// nodes together: a request every 10δ of about 5.6 messages, a failure
// every 50δ of about 10, heartbeats (measured: results of the preset).
const PerDeltaOfRun = 0.8

// DefaultDelayShape returns the measurement's traffic on p ranks, with
// runs concurrent runs (seeds and their baselines) in the job. The
// measurement sends for 0.4 s plus 0.05 s per rank, at most 2 s: small
// jobs measure briefly.
func DefaultDelayShape(p, runs int) DelayShape {
	return DelayShape{
		Frame:     wire.HeaderSize + 2*wire.RecordSize,
		Burst:     2,
		PerDelta:  PerDeltaOfRun * float64(max(runs, 1)),
		Guess:     4e-3,
		Broadcast: 0.02,
		Duration:  min(400*time.Millisecond+time.Duration(p)*50*time.Millisecond, 2*time.Second),
		Seed:      1,
	}
}

// minSamples is the fewest delays a round aims to measure: a 99.9th
// percentile needs thousands. A round sends faster than the run would if
// that rate would measure fewer (a conservative error: more traffic, longer
// delays).
const minSamples = 4000

// gap returns the mean time between a rank's bursts on p ranks at δ =
// delta, for a round that sends for the given seconds.
func (sh DelayShape) gap(p int, delta, sending float64) float64 {
	perBurst := float64(sh.Burst)*(1-sh.Broadcast) + float64(p-1)*sh.Broadcast
	g := float64(p) * delta * perBurst / sh.PerDelta
	return max(min(g, float64(p)*sending*perBurst/minSamples), 20e-6)
}

// Delays is the distribution of one-way delivery delays a measurement saw,
// in seconds, and the δ chosen from it.
type Delays = results.DelayMeasurement

// The rule of --delta auto: δ = DeltaFactor × the 99.9th percentile of the
// measured delays, at least DeltaFloor, at most DeltaCeil (docs/mpi.md,
// "δ measured").
const (
	DeltaFactor = 3.0
	DeltaFloor  = 100e-6
	DeltaCeil   = 1.0
)

// DeltaRule states the rule of --delta auto.
var DeltaRule = fmt.Sprintf("%g × p99.9, at least %gs", DeltaFactor, DeltaFloor)

// ChooseDelta applies the rule of --delta auto to the 99.9th percentile of
// measured delays.
func ChooseDelta(p999 float64) float64 {
	return min(max(DeltaFactor*p999, DeltaFloor), DeltaCeil)
}

// MeasureDelays measures one-way delivery delays between the ranks of comm
// under the traffic sh, with the run's machinery (frames from the posted
// receive, doorbells rung before sending, idle ranks asleep on them) and
// the run's clocks (one time origin for every rank, each rank's wall and
// monotonic clocks paired), and returns on every rank the same distribution
// and δ (rank 0 decides). Every rank calls it with the same shape.
func MeasureDelays(comm Comm, sh DelayShape) (Delays, error) {
	if sh.Frame < 8 || sh.Frame > maxFrame || sh.Burst < 1 || sh.PerDelta <= 0 || sh.Guess <= 0 || sh.Duration <= 0 {
		return Delays{}, fmt.Errorf("rank: bad delay measurement shape %+v", sh)
	}
	_, own := comm.(MPI)
	j := newJob(comm, comm.Rank(), comm.Size())
	j.ownThread = own
	defer j.close()
	bell, err := setupDoorbells(comm)
	if err != nil {
		return Delays{}, err
	}
	defer bell.close()
	if bell != nil {
		bell.raw = own
	}
	j.bell = bell
	if err := j.startReceiving(); err != nil {
		return Delays{}, err
	}
	defer j.stopReceiving()
	if err := j.greet(); err != nil {
		return Delays{}, err
	}
	first, err := round(j, sh, sh.Guess, sh.Duration/4)
	if err != nil {
		return Delays{}, err
	}
	d, err := round(j, sh, first.Delta, sh.Duration-sh.Duration/4)
	if err != nil {
		return Delays{}, err
	}
	if err := j.stopReceiving(); err != nil {
		return Delays{}, err
	}
	d.Seconds += first.Seconds
	return d, nil
}

// round is one round of MeasureDelays: the ranks send for d at the rate of
// δ = delta.
func round(j *job, sh DelayShape, delta float64, d time.Duration) (Delays, error) {
	var origin int64
	own := j.ownThread
	if j.rank == 0 {
		margin := 10 * time.Millisecond
		if own {
			margin = 100 * time.Millisecond
		}
		origin = time.Now().Add(margin).UnixNano()
	}
	epoch, err := j.comm.SumInt64([]int64{origin})
	if err != nil {
		return Delays{}, fmt.Errorf("rank: agreeing on the measurement's start: %w", err)
	}
	j.setEpoch(epoch[0])
	for wait := -j.now(); wait > 0; wait = -j.now() {
		j.nap(time.Duration(wait * float64(time.Second)))
	}
	m := &measure{j: j, sh: sh, rng: rand.New(rand.NewPCG(sh.Seed, uint64(j.rank))),
		gapMean: sh.gap(j.size, delta, d.Seconds()), sending: d.Seconds()}
	if err := m.loop(); err != nil {
		return Delays{}, err
	}
	if err := m.drain(); err != nil {
		return Delays{}, err
	}
	return m.decide(j.comm)
}

// measure is one rank's part of a delay measurement.
type measure struct {
	j      *job
	sh     DelayShape
	rng    *rand.Rand
	buf    []byte
	delays []float64
	dims   int
	dests  []int
	// gapMean is the mean time between bursts, sending the time to send
	// (seconds).
	gapMean, sending float64
}

// loop sends bursts until sh.Duration and receives until 1.25 × it.
func (m *measure) loop() error {
	j := m.j
	for 1<<m.dims < j.size {
		m.dims++
	}
	m.buf = j.frameBuffer()[:m.sh.Frame]
	stopSending := m.sending
	end := 1.25 * stopSending
	next := m.gap()
	sleep := minSleep
	for j.err == nil {
		busy, err := m.receive()
		if err != nil {
			return err
		}
		now := j.now()
		if now >= end {
			break
		}
		if now >= next && next < stopSending {
			if j.size == 1 {
				// One rank: its nodes' messages wait in its own queue,
				// late only when the rank is; how late its bursts start
				// measures that.
				m.delays = append(m.delays, now-next)
			}
			m.burst()
			next += m.gap()
			busy = true
		}
		if busy {
			sleep = minSleep
			continue
		}
		wake := min(next, end)
		if next >= stopSending {
			wake = end
		}
		m.idle(&sleep, wake)
	}
	return j.err
}

func (m *measure) gap() float64 { return m.rng.ExpFloat64() * m.gapMean }

// burst sends one burst: Burst frames to a random neighbour rank, or one
// frame to every other rank; the doorbells ring first, as in a run.
func (m *measure) burst() {
	j := m.j
	if j.size < 2 {
		return
	}
	m.dests = m.dests[:0]
	if m.rng.Float64() < m.sh.Broadcast {
		for r := 0; r < j.size; r++ {
			if r != j.rank {
				m.dests = append(m.dests, r)
			}
		}
	} else {
		d := j.rank ^ 1<<m.rng.IntN(m.dims)
		for range m.sh.Burst {
			m.dests = append(m.dests, d)
		}
	}
	j.ring(m.dests...)
	for _, d := range m.dests {
		binary.LittleEndian.PutUint64(m.buf, math.Float64bits(j.now()))
		j.send(m.buf, d, tagProbe)
	}
}

// receive takes the frames waiting, as the run's receive does.
func (m *measure) receive() (bool, error) { return m.j.receiveWith(m.poll) }

func (m *measure) poll(once bool) (bool, error) {
	j := m.j
	src, tag, buf, ok, err := j.next(once)
	if err != nil {
		if errors.Is(err, mpi.ErrTruncated) {
			return false, fmt.Errorf("rank %d: measuring delays: a frame too long from rank %d", j.rank, src)
		}
		return false, fmt.Errorf("rank %d: receiving: %w", j.rank, err)
	}
	if !ok {
		return false, nil
	}
	now := j.now()
	j.received(src)
	switch {
	case tag == tagProbe && len(buf) >= 8:
		m.delays = append(m.delays, now-math.Float64frombits(binary.LittleEndian.Uint64(buf)))
	case tag == tagControl && len(buf) == ctlSize && buf[0] == ctlHello:
		j.hellos++
	default:
		return false, fmt.Errorf("rank %d: measuring delays: unexpected frame (tag %d, %d bytes) from rank %d", j.rank, tag, len(buf), src)
	}
	return true, nil
}

// idle waits until wake (seconds of the measurement) or a ring.
func (m *measure) idle(sleep *time.Duration, wake float64) {
	j := m.j
	timeout := time.Duration(min(wake-j.now(), 3600) * float64(time.Second))
	if timeout <= 0 {
		return
	}
	switch {
	case j.owed > 0 || !j.bell.canRing():
		j.nap(min(*sleep, timeout))
		*sleep = min(2**sleep, maxNap)
	default:
		*sleep = minSleep
		j.owed += j.bell.wait(min(timeout, maxWait))
	}
}

// drain receives the frames still in flight (measured too: their delays
// include the wait for the collective, which only makes δ larger).
func (m *measure) drain() error { return m.j.drainWith(m.poll) }

// decide gathers the delays to rank 0, which chooses δ and tells every
// rank.
func (m *measure) decide(comm Comm) (Delays, error) {
	buf := make([]byte, 8*len(m.delays))
	for k, d := range m.delays {
		binary.LittleEndian.PutUint64(buf[8*k:], math.Float64bits(d))
	}
	parts, err := comm.Gather(buf)
	if err != nil {
		return Delays{}, fmt.Errorf("rank: gathering the measured delays: %w", err)
	}
	var out [7]int64
	if comm.Rank() == 0 {
		var all []float64
		for _, p := range parts {
			for k := 0; k+8 <= len(p); k += 8 {
				all = append(all, math.Float64frombits(binary.LittleEndian.Uint64(p[k:])))
			}
		}
		d := SummarizeDelays(all)
		out = [7]int64{int64(d.Count), ns(d.Median), ns(d.P99), ns(d.P999), ns(d.Max), 0, ns(1.25 * m.sending)}
	}
	got, err := comm.SumInt64(out[:])
	if err != nil {
		return Delays{}, fmt.Errorf("rank: telling every rank the chosen δ: %w", err)
	}
	s := func(k int) float64 { return float64(got[k]) / 1e9 }
	// Every rank applies the rule to the same (rounded) quantile.
	return Delays{Count: int(got[0]), Median: s(1), P99: s(2), P999: s(3), Max: s(4), Delta: ChooseDelta(s(3)), Seconds: s(6), Rule: DeltaRule}, nil
}

func ns(x float64) int64 { return int64(math.Round(x * 1e9)) }

// SummarizeDelays returns the distribution of delays (seconds) and the δ
// that ChooseDelta picks from it; no delay gives the floor.
func SummarizeDelays(delays []float64) Delays {
	d := Delays{Count: len(delays), Rule: DeltaRule}
	if len(delays) > 0 {
		s := slices.Clone(delays)
		slices.Sort(s)
		q := func(p float64) float64 { return s[min(int(math.Ceil(p*float64(len(s))))-1, len(s)-1)] }
		d.Median, d.P99, d.P999, d.Max = q(0.5), q(0.99), q(0.999), s[len(s)-1]
	}
	d.Delta = ChooseDelta(d.P999)
	return d
}
