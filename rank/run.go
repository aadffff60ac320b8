package rank

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/internal/field"
	"github.com/ocbench/ocbench/mpi"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/wire"
	"github.com/ocbench/ocbench/workload"
)

// MPI message tags of the runtime.
const (
	tagData    = 1 // wire frames of node messages
	tagControl = 2 // control frames: baton, done, stop
)

// Control frames: kind, run, a kind-specific payload (a uint32 and an
// int32), then the job's digest (uint32), like data frames.
const (
	ctlBaton = 1 // sequential workload: issue request k (uint32) at node (int32)
	ctlDone  = 2 // this rank's workload is over (to rank 0)
	ctlStop  = 3 // the run is over (from rank 0)
	ctlHello = 4 // before the run: every rank greets every other rank
	// The sequential workload's turns (instance.exited): request k (a)
	// left the critical section (to rank 0); count your messages (from
	// rank 0); sent (a) and received (b) node messages (to rank 0).
	ctlExited = 5
	ctlProbe  = 6
	ctlCount  = 7
	// ctlAlive: every rank tells rank 0 it is running, once per aliveEvery.
	ctlAlive = 8
	ctlSize  = 14
)

// Every rank other than 0 sends rank 0 a frame at least once per
// aliveEvery of wall-clock time while the runs last; rank 0 ends the job
// (Abort) when a rank has sent nothing for silentLimit: a rank stopped
// (SIGSTOP), or whose host is gone, would otherwise keep the others waiting
// for its end of the workload for ever. A rank descheduled on an
// oversubscribed machine is silent for tens of milliseconds, not seconds.
// OCBENCH_SILENT_SECONDS sets silentLimit (tests: scripts/mpi-check.sh).
var (
	aliveEvery  = 1.0 // seconds
	silentLimit = envSeconds("OCBENCH_SILENT_SECONDS", 30)
)

// envSeconds returns the positive number of seconds in the environment
// variable name, or def.
func envSeconds(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil && v > 0 && !math.IsInf(v, 0) {
		return v
	}
	return def
}

// maxBatch caps the records of one frame, so that a frame stays below the
// usual eager limit of shared-memory MPI transports (4 KiB). Such a send can
// still wait for its receiver's progress (job.send).
const maxBatch = (maxFrame - wire.HeaderSize) / wire.RecordSize

// maxFrame is the longest frame a rank sends: a longer one is malformed. A
// record with the most payload words (wire.MaxPayload) fits in it alone.
const maxFrame = 4000

// A frame holds at least one record with the most payload.
var _ = [maxFrame - wire.HeaderSize - wire.RecordSize - 8*wire.MaxPayload]struct{}{}

// Options are the runtime's settings beyond the experiment.
type Options struct {
	// Placement names the hypercube placement of nodes on ranks (see
	// hypercube.Placements); empty means the default.
	Placement string
	// Digest is what the ranks agreed on before (the short digest of
	// Agree: the build and the options of the whole job), 0 if nothing.
	// A job's digest, in every frame, hashes it with the job's specs.
	Digest uint32
}

// ValidationError is bad input: found before the run, and agreed on by
// every rank (Agree), so the job ends on every rank with a clear line.
type ValidationError struct{ Err error }

func (e *ValidationError) Error() string { return e.Err.Error() }
func (e *ValidationError) Unwrap() error { return e.Err }

// MinDelta is the shortest δ under MPI, in seconds: the floor of the rule
// of --delta auto (DeltaFloor), the wake-up of a sleeping rank with a
// margin.
const MinDelta = DeltaFloor

// Check returns the normalized spec and placement for a run on p ranks, or
// a ValidationError around the field.Error at fault ("Ranks" for the
// number of ranks, "Placement" for the placement).
func Check(spec bench.Spec, placement string, p int) (bench.Spec, hypercube.Placement, error) {
	bad := func(name, format string, args ...any) (bench.Spec, hypercube.Placement, error) {
		return spec, nil, &ValidationError{field.Errorf(name, format, args...)}
	}
	s, err := spec.Normalized()
	if err != nil {
		return spec, nil, &ValidationError{err}
	}
	if placement == "" {
		placement = hypercube.Placements[0]
	}
	if err := hypercube.Validate(p, 1); err != nil {
		return bad("Ranks", "%d ranks: the number of ranks must be a power of two (1, 2, 4, …, 32, …)", p)
	}
	if _, ok := hypercube.Log2(s.Nodes); !ok {
		return bad("Nodes", "%d nodes: MPI runs spread nodes over ranks by hypercube placements and need N a power of two (any N ≥ 2 runs in the simulator for %s)", s.Nodes, strings.Join(algo.AnySizeNames(), ", "))
	}
	if s.Nodes < p || s.Nodes%p != 0 {
		return bad("Nodes", "%d nodes cannot be spread over %d ranks (need N ≥ ranks; both powers of two)", s.Nodes, p)
	}
	pl, err := hypercube.NewPlacement(placement, s.Nodes, p)
	if err != nil {
		return bad("Placement", "%s", strings.TrimPrefix(err.Error(), "placement: "))
	}
	switch {
	case s.Workload == "each":
		return bad("Workload", "each is computed in one process; run it without mpirun")
	case s.Workload == "sequential" && (s.Faults.Crashes > 0 || s.FT):
		return bad("Workload", "under MPI the sequential workload runs without crashes and without a failure protocol; use poisson or saturated")
	case s.Faults.Crashes > 0 && s.Faults.Target == "power":
		return bad("Faults.Target", "power is simulator-only (its record weighs the victims' powers); under MPI use random, token, path or root")
	case s.Faults.Crashes > 0 && s.Faults.Target != "random" && s.Nodes/p > maxTargetedPerRank:
		return bad("Faults.Target", "targeted crashes under MPI need at most %d nodes per rank, got %d", maxTargetedPerRank, s.Nodes/p)
	case s.LateFraction > 0:
		return bad("LateFraction", "only the simulator delays messages on purpose")
	case s.Transient.Mode == "during":
		return bad("Transient.Mode", "under MPI only initial (corruption events need the simulator's view of the links)")
	case s.MinDelay > 0:
		return bad("MinDelay", "only the simulator chooses delays; MPI delays are real")
	case s.Repair:
		return bad("Repair", "the repair pass needs the simulator")
	case s.Delta < MinDelta:
		return bad("Delta", "%gs is below %gs, the shortest δ under MPI: δ is wall-clock time there, and a sleeping rank takes tens of µs to wake (docs/mpi.md)", s.Delta, MinDelta)
	}
	return s, pl, nil
}

// Run runs the experiment on the ranks of comm; every rank calls it with the
// same arguments. It returns the record on rank 0 and nil on the other ranks.
// With crashes and a baseline, the crash-free baseline runs at the same time
// on the same ranks, as a second run.
func Run(comm Comm, spec bench.Spec, opt Options) (*results.Run, error) {
	recs, err := RunSeeds(comm, []bench.Spec{spec}, opt)
	if err != nil || recs == nil {
		return nil, err
	}
	return recs[0], nil
}

// MaxConcurrent is the most runs (experiments, each with its baseline)
// that RunSeeds runs at once: frames name their run in a byte.
const MaxConcurrent = 16

// RunSeeds runs the experiments of specs at the same time on the ranks of
// comm, as concurrent runs of one job (each with its crash-free baseline
// beside it). A job lasts as long as its longest fault plan, in δ, whatever
// the number of runs: five seeds last as long as one, and the two sizes of
// the ipsc2 preset as long as the larger plan. Specs may differ in seed,
// algorithm and size; they share δ (the job's clock) and the placement
// scheme. Every rank calls it with the same arguments. It returns the
// records, in the order of specs, on rank 0 and nil on the other ranks.
// The first record carries the job's wall time and CPU seconds; the others
// have none (they ran in the same time), so that merging them sums right.
// The first spec's Progress, if any, follows the whole job: failures summed
// over its runs with crashes.
func RunSeeds(comm Comm, specs []bench.Spec, opt Options) ([]*results.Run, error) {
	if len(specs) == 0 || len(specs) > MaxConcurrent {
		return nil, &ValidationError{fmt.Errorf("rank: %d runs at once (1 to %d)", len(specs), MaxConcurrent)}
	}
	norm, places, bad := checkSeeds(comm, specs, opt)
	// Every rank agrees on the job before it returns, even with bad input:
	// a rank that left would leave the others waiting for it.
	digest, err := agreeJob(comm, []Term{{"job", fmt.Sprintf("%08x", opt.Digest)}, {"placement", opt.Placement}}, specs, bad)
	if err != nil {
		return nil, err
	}
	s := norm[0]
	wall := time.Now()
	cpu0 := cpuSeconds()
	_, own := comm.(MPI)
	j := newJob(comm, comm.Rank(), comm.Size())
	j.progress, j.ownThread, j.digest = s.Progress, own, digest
	defer j.close() // on errors; after the drain it is checked below

	crashRun := make([]int, len(norm)) // the index in j.runs of each spec's run
	baseRun := make([]int, len(norm))  // … and of its baseline, -1 if none
	for k, s := range norm {
		plan := bench.MustResolve(s) // once: the algorithm, the fault schedule, the workload's end
		crashRun[k], baseRun[k] = len(j.runs), -1
		j.runs = append(j.runs, newInstance(j, uint8(len(j.runs)), plan, places[k]))
		if bench.NeedsBaseline(s) {
			baseRun[k] = len(j.runs)
			// The baseline issues requests as long as the crash run.
			j.runs = append(j.runs, newInstance(j, uint8(len(j.runs)), plan.Baseline(), places[k]))
		}
	}
	if s.Trace != nil { // a single run: the first
		j.runs[0].tr = &tracer{sent: make([]uint64, j.size), recv: make([]uint64, j.size)}
	}
	bell, err := setupDoorbells(comm)
	if err != nil {
		return nil, err
	}
	defer bell.close()
	if bell != nil {
		bell.raw = own
	}
	j.bell = bell
	if err := j.startReceiving(); err != nil {
		return nil, err
	}
	defer j.stopReceiving() // on errors; after the drain it is checked below
	if err := j.greet(); err != nil {
		return nil, err
	}
	// The common time origin: rank 0's wall clock a little ahead, given to
	// every rank, which waits for it; so every rank starts the run at the
	// same time, however late it left the collective. Times of different
	// ranks are then comparable: exactly on one machine, up to the clock
	// synchronisation (NTP, PTP) between machines.
	var origin int64
	if j.rank == 0 {
		margin := 10 * time.Millisecond
		if own {
			margin = 250 * time.Millisecond // oversubscribed ranks leave a collective late
		}
		origin = time.Now().Add(margin).UnixNano()
	}
	epoch, err := comm.SumInt64([]int64{origin})
	if err != nil {
		return nil, fmt.Errorf("rank: agreeing on the start time: %w", err)
	}
	j.setEpoch(epoch[0])
	j.lateStart = max(j.now(), 0)
	for wait := -j.now(); wait > 0; wait = -j.now() { // a nap may end early (signals)
		j.nap(time.Duration(wait * float64(time.Second)))
	}
	for _, in := range j.runs {
		in.start()
	}
	if err := j.loop(); err != nil {
		return nil, err
	}
	if err := j.drain(); err != nil {
		return nil, err
	}
	if err := j.stopReceiving(); err != nil {
		return nil, err
	}
	if err := j.close(); err != nil {
		return nil, err
	}
	if s.Trace != nil {
		if err := gatherTrace(comm, j.runs[0], s.Trace); err != nil {
			return nil, err
		}
	}
	reps := make([]*rankReport, len(j.runs))
	for k, in := range j.runs {
		reps[k] = in.report()
		reps[k].CPU = cpuSeconds() - cpu0
		reps[k].LateStart = j.lateStart
	}
	all, err := gather(comm, reps)
	if err != nil || j.rank != 0 {
		return nil, err
	}
	recs := make([]*results.Run, len(norm))
	for k := range norm {
		r := assemble(j.runs[crashRun[k]], all[crashRun[k]])
		if b := baseRun[k]; b >= 0 && r.Failures > 0 {
			var total, base int64
			for _, rep := range all[crashRun[k]] {
				total += rep.total()
			}
			for _, rep := range all[b] {
				base += rep.total()
			}
			r.BaselineMessages = base
			r.OverheadDifferential = results.Estimated([]float64{float64(total-base) / float64(r.Failures)})
		}
		if k > 0 {
			r.CPUSecondsPerRank = nil // the job's, in the first record
		} else {
			r.WallSeconds = time.Since(wall).Seconds()
		}
		recs[k] = r
	}
	if j.progress != nil {
		done := bench.Progress{Virtual: j.now(), Done: true, Runs: len(recs)}
		for k, r := range recs {
			done.Served += r.RequestsServed
			done.Issued += r.RequestsIssued
			done.Requests += norm[k].Requests
			done.Failures += r.Failures
		}
		done.FailuresPlanned = done.Failures
		j.progress(done)
	}
	return recs, nil
}

// checkSeeds checks the specs of RunSeeds: the normalized specs and their
// placements, or the *ValidationError of the first bad one.
func checkSeeds(comm Comm, specs []bench.Spec, opt Options) ([]bench.Spec, []hypercube.Placement, error) {
	norm := make([]bench.Spec, len(specs))
	places := make([]hypercube.Placement, len(specs))
	for k, spec := range specs {
		s, p, err := Check(spec, opt.Placement, comm.Size())
		if err != nil {
			return nil, nil, err
		}
		if k > 0 && s.Delta != norm[0].Delta {
			return nil, nil, &ValidationError{fmt.Errorf("rank: runs at once must have the same δ")}
		}
		if k > 0 && s.Trace != nil {
			return nil, nil, &ValidationError{fmt.Errorf("rank: only the first of runs at once can be traced")}
		}
		norm[k], places[k] = s, p
	}
	return norm, places, nil
}

// failuresSoFar is the progress of the job's runs with crashes at now:
// failures injected of those planned, summed over the runs.
func (j *job) failuresSoFar(now float64) bench.Progress {
	p := bench.Progress{Virtual: now}
	for _, in := range j.runs {
		if len(in.plan) > 0 {
			p.Failures += in.failures(now)
			p.FailuresPlanned += len(in.plan)
			p.Requests += in.spec.Requests
		}
	}
	return p
}

// job is one rank's part of a run: its concurrent runs (instances) and the
// MPI traffic.
type job struct {
	comm       Comm
	rank, size int
	runs       []*instance
	nodes      int       // the most nodes of its runs: frames are decoded against it
	digest     uint32    // the job's digest (Agree), in every data frame's header
	t0         time.Time // a reading of the clock (wall and monotonic) …
	base       float64   // … and its time since time 0, in seconds
	bell       *doorbell
	hellos     int
	lateStart  float64              // seconds this rank was past the common start when it learnt it
	owed       int                  // rings of the doorbell minus frames received from ranks that ring
	ownThread  bool                 // the loop owns its OS thread (MPI): naps need not yield it
	progress   func(bench.Progress) // rank 0: called about once a second with the crash runs' sums
	// frames[src*size+dst] counts data and control frames sent from src to
	// dst (this rank's row) and received (its column), for the final drain.
	frames []int64
	dests  []int    // scratch: the ranks that flush rings
	filled []filled // the frames begun since the last flush, each once, in order
	mem    [][]byte // frame buffers that the Comm allocated (close frees them)
	recv   []byte
	posted postedReceiver // the Comm's receive posted ahead, while the run lasts
	msgs   []proto.Message
	ctl    []byte // its own allocation: cgo checks the whole object a pointer points into
	// heard[r] is when rank 0 last received a frame from rank r; alive is
	// when this rank last told rank 0 it runs.
	heard []float64
	alive float64
	err   error
}

// filled names a frame being filled: run in's frame for rank dest.
type filled struct {
	in   *instance
	dest int
}

// newJob returns rank's job on size ranks.
func newJob(comm Comm, rank, size int) *job {
	return &job{comm: comm, rank: rank, size: size, frames: make([]int64, size*size)}
}

// frameBuffer returns an empty buffer for a frame of up to maxFrame bytes,
// from the Comm's memory if it has some.
func (j *job) frameBuffer() []byte {
	if a, ok := j.comm.(memAllocator); ok {
		b, err := a.Alloc(maxFrame)
		if err == nil {
			j.mem = append(j.mem, b)
			return b[:0]
		}
		j.fail(fmt.Errorf("rank %d: allocating a frame buffer: %w", j.rank, err))
	}
	return make([]byte, 0, maxFrame)
}

// close frees the frame buffers that the Comm allocated; the job's frames
// must not be used after.
func (j *job) close() error {
	var err error
	if a, ok := j.comm.(memAllocator); ok {
		for _, b := range j.mem {
			if e := a.Free(b); e != nil && err == nil {
				err = fmt.Errorf("rank %d: freeing a frame buffer: %w", j.rank, e)
			}
		}
	}
	j.mem = nil
	for _, in := range j.runs {
		clear(in.batches)
	}
	return err
}

// setEpoch makes time 0 the wall-clock instant epoch (Unix nanoseconds).
func (j *job) setEpoch(epoch int64) {
	j.t0 = pairedNow()
	j.base = float64(j.t0.UnixNano()-epoch) / 1e9
}

// pairedNow returns a reading of the clock whose wall and monotonic parts
// were read at nearly the same instant. time.Now reads the wall clock, then
// the monotonic one; a rank preempted in between (32 ranks leave the
// start-time collective together on 2 cores) pairs them wrongly, and every
// time it reads afterwards is off by the preemption: one rank's clock ran
// 0.1 ms behind the others, enough for a token passed in microseconds to
// look as if two nodes had been in the critical section at once. The wall
// reading of a second time.Now lies between the monotonic readings of the
// first and the second, so the gap between those bounds the error; it takes
// the best of a few tries, and stops early at a tight one.
func pairedNow() time.Time {
	const tries, tight = 50, 200 * time.Nanosecond
	var best time.Time
	bestGap := time.Duration(math.MaxInt64)
	for range tries {
		t1 := time.Now()
		t2 := time.Now()
		if gap := t2.Sub(t1); gap < bestGap {
			best, bestGap = t2, gap
			if gap <= tight {
				break
			}
		}
	}
	return best
}

// now returns the time since time 0 in seconds: the wall clock at setEpoch,
// then the monotonic clock, one clock read instead of time.Now's two (a
// quarter of the runtime's own work per message), and immune to steps of
// the wall clock during the run.
func (j *job) now() float64 { return j.base + float64(time.Since(j.t0))/1e9 }

func (j *job) fail(err error) {
	if j.err == nil {
		j.err = err
	}
}

// send sends buf to rank dest; the caller has rung dest's doorbell for it
// (ring, flush). The ring comes first because a small MPI_Send can block
// until the receiver makes MPI progress (Open MPI's shared memory transport
// does once the sender's slots to that peer are used up), and an idle
// receiver makes none until it hears a ring: a sender that rang only after
// its sends waited for a rank asleep, for up to hundreds of milliseconds.
func (j *job) send(buf []byte, dest, tag int) {
	if err := j.comm.Send(buf, dest, tag); err != nil {
		j.fail(fmt.Errorf("rank %d: sending to rank %d: %w", j.rank, dest, err))
		return
	}
	j.frames[j.rank*j.size+dest]++
}

// ring rings the doorbells of dests (a rank once for every frame about to
// be sent to it; ranks on other machines are skipped), with one system call
// for the sleeping ones: a woken rank cannot preempt the sender between its
// sends when ranks outnumber cores.
func (j *job) ring(dests ...int) { j.bell.ringAll(dests) }

// flush sends the frames that the runs filled since the last flush, after
// one ring for all of them (a rank once for every frame).
func (j *job) flush() {
	if len(j.filled) == 0 {
		return
	}
	if j.bell != nil {
		j.dests = j.dests[:0]
		for _, f := range j.filled {
			if f.in.counts[f.dest] > 0 { // else sent when it was full
				j.dests = append(j.dests, f.dest)
			}
		}
		j.ring(j.dests...)
	}
	for _, f := range j.filled {
		f.in.listed[f.dest] = false
		if f.in.counts[f.dest] > 0 { // else sent when it was full
			f.in.flushTo(f.dest)
		}
	}
	j.filled = j.filled[:0]
}

func (j *job) control(kind byte, run uint8, a uint32, b int32, dest int) {
	if j.ctl == nil {
		j.ctl = make([]byte, ctlSize)
	}
	c := j.ctl
	c[0], c[1] = kind, run
	binary.LittleEndian.PutUint32(c[2:], a)
	binary.LittleEndian.PutUint32(c[6:], uint32(b))
	binary.LittleEndian.PutUint32(c[10:], j.digest)
	if dest == j.rank {
		j.handleControl(c, dest)
		return
	}
	j.ring(dest)
	j.send(c, dest, tagControl)
}

// How an idle rank waits. When every other rank can ring its doorbell (all
// ranks on one machine), a rank calls MPI only while it is owed frames (it
// heard more rings than it received frames from ringing ranks: a sender
// rings before it sends, its send may wait for the receiver's progress, and
// MPI may need a few progress calls before a frame is visible), napping
// minSleep, then twice as long, up to maxNap, between polls; otherwise it
// sleeps in the kernel until its next timer or a ring. A rank that some peer (on
// another machine) cannot ring polls MPI: for spinWindow after activity,
// with the same naps, then every δ/4. Idle ranks sleep instead of spinning,
// and on one machine they make no MPI call while idle, so 32 ranks can
// share 2 cores: each MPI call that finds nothing costs a sched_yield in
// OpenMPI when ranks outnumber cores, and wakes the Go runtime's monitor.
const (
	minSleep   = 20 * time.Microsecond
	maxNap     = 160 * time.Microsecond
	spinWindow = 100 * time.Microsecond
	maxWait    = 50 * time.Millisecond
)

func (j *job) pollEvery() time.Duration {
	return max(time.Duration(j.runs[0].delta/4*float64(time.Second)), minSleep)
}

func (j *job) nap(d time.Duration) {
	if j.ownThread {
		nap(d)
		return
	}
	time.Sleep(d)
}

// mayHaveFrames reports whether polling MPI may find a frame: always, unless
// every rank rings this one and no ring is owed.
func (j *job) mayHaveFrames() bool { return !j.bell.canRing() || j.owed > 0 }

// idle waits for at most the time to the next event (next, in seconds of
// the run), lastActive being the time of the last activity.
func (j *job) idle(sleep *time.Duration, lastActive, next float64) {
	now := j.now()
	timeout := time.Duration(min(next-now, 3600) * float64(time.Second))
	if timeout <= 0 {
		return
	}
	ringing := j.bell.canRing()
	if j.owed > 0 || !ringing && now-lastActive < spinWindow.Seconds() {
		j.nap(min(*sleep, timeout))
		*sleep = min(2**sleep, maxNap)
		return
	}
	*sleep = minSleep
	switch {
	case ringing:
		j.owed += j.bell.wait(min(timeout, maxWait))
	case j.bell != nil:
		j.owed += j.bell.wait(min(timeout, j.pollEvery()))
	default:
		j.nap(min(timeout, j.pollEvery()))
	}
}

// loop runs until every instance has stopped.
func (j *job) loop() error {
	sleep := minSleep
	lastProgress, lastActive := 0.0, 0.0
	for j.err == nil {
		busy, err := j.receive()
		if err != nil {
			return err
		}
		now := j.now()
		next := math.Inf(1)
		live := false
		for _, in := range j.runs {
			if in.stopped {
				continue
			}
			live = true
			if in.runDue(now) {
				busy = true
			}
			if len(in.events) > 0 {
				next = min(next, in.events[0].T)
			}
		}
		j.flush()
		if !live {
			break
		}
		j.keepAlive(now)
		if j.progress != nil && j.rank == 0 && now-lastProgress >= 1 {
			lastProgress = now
			if p := j.failuresSoFar(now); p.FailuresPlanned > 0 {
				j.progress(p)
			}
		}
		if busy {
			sleep, lastActive = minSleep, j.now()
			continue
		}
		long := now-lastActive >= spinWindow.Seconds()
		j.idle(&sleep, lastActive, next)
		if long { // woken by the doorbell or a timeout: look for a while
			sleep, lastActive = minSleep, j.now()
		}
	}
	return j.err
}

// receive receives and handles the frames waiting, if any, and reports
// whether there were some. Rings heard since the last look count as frames
// owed: a rank reads its doorbell here, not only when it goes idle, because
// a rank that stays busy (many nodes, or back from being descheduled with
// timers overdue) would otherwise never learn that frames wait for it.
//
// After a frame, it looks once more for a frame there already, not longer:
// the answers of the frames received wait for the end of receive.
func (j *job) receive() (bool, error) { return j.receiveWith(j.poll) }

// receiveWith is receive with the frames taken by poll (the run's, or a
// delay measurement's): the one receive loop of a rank.
func (j *job) receiveWith(poll func(once bool) (bool, error)) (bool, error) {
	j.owed += j.bell.rung()
	did := false
	for j.mayHaveFrames() {
		ok, err := poll(did)
		if err != nil {
			return did, err
		}
		if !ok {
			break
		}
		did = true
	}
	return did, nil
}

// poll receives one waiting frame, if any, and handles it; with once, it
// looks once, for a frame there already (postedReceiver.Next).
func (j *job) poll(once bool) (bool, error) {
	src, tag, buf, ok, err := j.next(once)
	if errors.Is(err, mpi.ErrTruncated) {
		j.received(src)
		j.malformed(fmt.Errorf("frame from rank %d: %w", src, err))
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("rank %d: receiving: %w", j.rank, err)
	}
	if !ok {
		return false, nil
	}
	j.handle(buf, src, tag)
	return true, nil
}

// next takes the next waiting frame, if any: from the receive posted ahead
// (with once, only a frame there already: postedReceiver.Next), or with
// Iprobe and Recv.
func (j *job) next(once bool) (src, tag int, buf []byte, ok bool, err error) {
	if j.posted != nil {
		return j.posted.Next(once)
	}
	return j.probeRecv()
}

// probeRecv receives the next frame with Iprobe and Recv.
func (j *job) probeRecv() (src, tag int, buf []byte, ok bool, err error) {
	src, tag, count, ok, err := j.comm.Iprobe()
	if err != nil || !ok {
		return src, tag, nil, ok, err
	}
	if cap(j.recv) < count {
		j.recv = make([]byte, count)
	}
	buf = j.recv[:count]
	if _, err := j.comm.Recv(buf, src, tag); err != nil {
		return src, tag, nil, false, fmt.Errorf("from rank %d: %w", src, err)
	}
	return src, tag, buf, true, nil
}

// received counts a frame received from src.
func (j *job) received(src int) {
	j.frames[src*j.size+j.rank]--
	if j.bell.rings(src) {
		j.owed--
	}
}

// handle dispatches a frame received from src.
func (j *job) handle(buf []byte, src, tag int) {
	j.received(src)
	if j.heard != nil {
		j.heard[src] = j.now()
	}
	switch tag {
	case tagData:
		j.handleData(buf, src)
	case tagControl:
		j.handleControl(buf, src)
	case tagTarget:
		j.handleTarget(buf, src)
	default:
		j.malformed(fmt.Errorf("frame from rank %d with unknown tag %d", src, tag))
	}
}

// startReceiving posts the receive ahead, if the Comm has one.
func (j *job) startReceiving() error {
	pr, ok := j.comm.(postedReceiver)
	if !ok {
		return nil
	}
	if err := pr.Post(); err != nil {
		return fmt.Errorf("rank %d: posting a receive: %w", j.rank, err)
	}
	j.posted = pr
	return nil
}

// stopReceiving cancels the posted receive. The run is drained by then: a
// frame that completed it is an error.
func (j *job) stopReceiving() error {
	if j.posted == nil {
		return nil
	}
	src, _, buf, ok, err := j.posted.Cancel()
	j.posted = nil
	if err != nil {
		return fmt.Errorf("rank %d: cancelling the posted receive: %w", j.rank, err)
	}
	if ok {
		return fmt.Errorf("rank %d: a frame of %d bytes from rank %d arrived after the run was drained", j.rank, len(buf), src)
	}
	return nil
}

func (j *job) malformed(err error) {
	in := j.runs[0]
	in.malformed++
	if in.malformedErr == "" {
		in.malformedErr = fmt.Sprintf("rank %d: %v", j.rank, err)
	}
}

func (j *job) instance(run uint8) *instance {
	if int(run) < len(j.runs) {
		return j.runs[run]
	}
	return nil
}

func (j *job) handleData(buf []byte, src int) {
	// The runs of a job may have different sizes: node numbers are checked
	// against the largest here, against the frame's run below.
	h, msgs, err := wire.Decode(buf, j.nodes, j.msgs[:0])
	in := j.instance(h.Run)
	switch {
	case err != nil:
	case h.Digest != j.digest:
		// A frame of another build or configuration (Agree): a rank
		// of another job, or one that disagreed and was not stopped.
		err = fmt.Errorf("frame of a foreign job (digest %08x, this job's %08x)", h.Digest, j.digest)
	case in == nil:
		err = fmt.Errorf("frame for run %d, this job has %d", h.Run, len(j.runs))
	}
	if err != nil {
		j.malformed(fmt.Errorf("from rank %d: %w", src, err))
		return
	}
	j.msgs = msgs
	for k := range j.msgs {
		if m := &j.msgs[k]; int(m.To) >= in.n || int(m.From) >= in.n {
			j.malformed(fmt.Errorf("from rank %d: message from node %d to node %d in a run of %d nodes", src, m.From, m.To, in.n))
			return
		} else if in.rankOf(m.To) != j.rank {
			j.malformed(fmt.Errorf("from rank %d: message for node %d, which rank %d hosts", src, m.To, in.rankOf(m.To)))
			return
		} else if int(m.Type) >= len(in.names) {
			j.malformed(fmt.Errorf("from rank %d: message type %d, %s has %d", src, m.Type, in.spec.Algorithm, len(in.names)))
			return
		}
	}
	if in.stopped {
		in.afterStop += int64(len(j.msgs))
		return
	}
	now := j.now()
	in.noteDelay(now - h.Sent)
	for k := range j.msgs {
		in.deliver(&j.msgs[k], now)
	}
}

func (j *job) handleControl(c []byte, src int) {
	if len(c) != ctlSize {
		j.malformed(fmt.Errorf("control frame of %d bytes from rank %d", len(c), src))
		return
	}
	if d := binary.LittleEndian.Uint32(c[10:]); d != j.digest {
		j.malformed(fmt.Errorf("control frame of a foreign job from rank %d (digest %08x, this job's %08x)", src, d, j.digest))
		return
	}
	switch c[0] {
	case ctlHello:
		j.hellos++
		return
	case ctlAlive: // heard (handle)
		return
	}
	in := j.instance(c[1])
	if in == nil {
		j.malformed(fmt.Errorf("control frame for run %d from rank %d", c[1], src))
		return
	}
	a := binary.LittleEndian.Uint32(c[2:])
	b := int32(binary.LittleEndian.Uint32(c[6:]))
	switch c[0] {
	case ctlBaton:
		if b < 0 || int(b) >= in.n || in.rankOf(proto.NodeID(b)) != j.rank {
			j.malformed(fmt.Errorf("baton for node %d from rank %d", b, src))
			return
		}
		in.at(j.now(), func() { in.issueSequential(b, a) })
	case ctlDone:
		if j.rank != 0 {
			j.malformed(fmt.Errorf("done frame from rank %d at rank %d", src, j.rank))
			return
		}
		in.doneRanks++
		// The sequential workload's end is rank 0's turn (counted), or a
		// stuck rank's note: either ends it.
		o := workload.Observation{More: in.doneRanks < j.size && !in.sequential}
		if in.ctl.WorkloadOver(&o, j.now()) {
			in.at(j.now()+in.ctl.Settle(), func() {
				for r := 0; r < j.size; r++ {
					j.control(ctlStop, in.id, 0, 0, r)
				}
			})
		}
	case ctlStop:
		in.stopped = true
	case ctlExited, ctlCount:
		if j.rank != 0 {
			j.malformed(fmt.Errorf("control frame of kind %d from rank %d at rank %d", c[0], src, j.rank))
			return
		}
		if c[0] == ctlExited {
			in.exited(a)
		} else {
			in.counted(a, uint32(b))
		}
	case ctlProbe:
		j.control(ctlCount, in.id, in.msgsSent, int32(in.msgsRecv), src)
	default:
		j.malformed(fmt.Errorf("control frame of kind %d from rank %d", c[0], src))
	}
}

// greet makes every rank send a frame to every other rank and wait for
// theirs, before the run: MPI transports set up a connection at the first
// message between two ranks (TCP lazily, and only while both make progress),
// which would otherwise delay the first messages of the run far beyond δ.
func (j *job) greet() error {
	for r := 0; r < j.size; r++ {
		if r != j.rank {
			j.control(ctlHello, 0, 0, 0, r)
		}
	}
	sleep := minSleep
	for j.hellos < j.size-1 && j.err == nil {
		ok, err := j.poll(false)
		if err != nil {
			return err
		}
		if !ok {
			j.nap(sleep)
			sleep = min(2*sleep, maxNap)
		}
	}
	return j.err
}

// drain receives the frames still in flight once every instance has
// stopped: the ranks sum their sent and received counts, then each receives
// what the others sent it. Nothing is left in MPI's queues at Finalize.
func (j *job) drain() error { return j.drainWith(j.poll) }

// drainWith is drain with the receive step poll (the δ measurement's
// receives its own frames).
func (j *job) drainWith(poll func(bool) (bool, error)) error {
	total, err := j.comm.SumInt64(j.frames)
	if err != nil {
		return fmt.Errorf("rank %d: counting the frames in flight: %w", j.rank, err)
	}
	left := int64(0)
	for src := 0; src < j.size; src++ {
		left += total[src*j.size+j.rank]
	}
	for left > 0 {
		ok, err := poll(false)
		if err != nil {
			return err
		}
		if ok {
			left--
		} else {
			j.nap(minSleep)
		}
	}
	if left < 0 {
		return fmt.Errorf("rank %d: received %d frames more than were sent", j.rank, -left)
	}
	return j.err
}

// Runtime is the MPI runtime as a bench.Runtime: the ranks of Comm host the
// nodes, placed by Placement ("block" or "cyclic"), in wall-clock time.
// Every rank calls Run with the same specs; rank 0 gets the records.
type Runtime struct {
	Comm      Comm
	Placement string
	// Digest is what the ranks agreed on before (Options.Digest).
	Digest uint32
}

// Name returns "mpi".
func (Runtime) Name() string { return "mpi" }

// Supports returns nil if the ranks can run spec (Check).
func (rt Runtime) Supports(s bench.Spec) error {
	_, _, err := Check(s, rt.Placement, rt.Comm.Size())
	return err
}

// Batch returns MaxConcurrent: the runs of one job.
func (Runtime) Batch() int { return MaxConcurrent }

// Run runs specs at once, as one job (RunSeeds).
func (rt Runtime) Run(specs []bench.Spec) ([]*results.Run, error) {
	return RunSeeds(rt.Comm, specs, Options{Placement: rt.Placement, Digest: rt.Digest})
}

// keepAlive sends rank 0 a ctlAlive frame once per aliveEvery (ranks other
// than 0), and on rank 0 fails the job if a rank has sent nothing for
// silentLimit.
func (j *job) keepAlive(now float64) {
	if j.size == 1 || now-j.alive < aliveEvery {
		return
	}
	j.alive = now
	if j.rank != 0 {
		j.control(ctlAlive, 0, 0, 0, 0)
		return
	}
	if j.heard == nil {
		j.heard = make([]float64, j.size)
		for r := range j.heard {
			j.heard[r] = now
		}
		return
	}
	for r := 1; r < j.size; r++ {
		if now-j.heard[r] > silentLimit {
			j.fail(fmt.Errorf("rank %d has sent nothing for %.0f s (stopped, or its host is gone): ending the job", r, now-j.heard[r]))
			return
		}
	}
}
