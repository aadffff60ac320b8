package rank

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/sim"
)

// Virtual is the MPI runtime in virtual time (--clock virtual, the default
// under mpirun): every rank hosts the nodes Placement gives it as one part
// of each run (bench.Part), and the ranks advance every run window by
// window in virtual time. At each window boundary, frames carry the
// messages between ranks and one reduction (Comm.SumMin) adds up every
// rank's report of every run, alike on every rank; so the ranks replay the
// simulator's run of the same seed exactly, and the record equals the
// simulator's but for the runtime's own figures (ranks, placement, wall
// and CPU time, the synchronization's cost). Every rank calls Run with the
// same specs; rank 0 gets the records.
type Virtual struct {
	Comm      Comm
	Placement string
	// Digest is what the ranks agreed on before (Options.Digest).
	Digest uint32
}

// MaxVirtualRuns is the most runs (specs, each with its baseline beside
// it) that one job of Virtual runs at once.
const MaxVirtualRuns = 64

// Name returns "mpi".
func (Virtual) Name() string { return "mpi" }

// Batch returns MaxVirtualRuns.
func (Virtual) Batch() int { return MaxVirtualRuns }

// Supports returns nil if the ranks can run spec in virtual time
// (CheckVirtual).
func (v Virtual) Supports(s bench.Spec) error {
	_, _, err := CheckVirtual(s, v.Placement, v.Comm.Size())
	return err
}

// CheckVirtual returns the filled spec and placement for a run on p ranks
// in virtual time, or a ValidationError around the bench.FieldError at
// fault ("Ranks" for the number of ranks, "Placement" for the placement).
func CheckVirtual(spec bench.Spec, placement string, p int) (bench.Spec, hypercube.Placement, error) {
	bad := func(field, format string, args ...any) (bench.Spec, hypercube.Placement, error) {
		return spec, nil, &ValidationError{&bench.FieldError{Field: field, Err: fmt.Errorf(format, args...)}}
	}
	s, err := bench.Filled(spec)
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
		return bad("Nodes", "%d nodes: MPI runs spread nodes over ranks by hypercube placements and need N a power of two (any N ≥ 2 runs in the simulator for %s)", s.Nodes, strings.Join(bench.AnySizeNames(), ", "))
	}
	if s.Nodes < p {
		return bad("Nodes", "%d nodes cannot be spread over %d ranks (need N ≥ ranks; both powers of two)", s.Nodes, p)
	}
	pl, err := hypercube.NewPlacement(placement, s.Nodes, p)
	if err != nil {
		return bad("Placement", "%s", strings.TrimPrefix(err.Error(), "placement: "))
	}
	if err := bench.Splittable(s); err != nil {
		return spec, nil, &ValidationError{err}
	}
	return s, pl, nil
}

// vrun is one run of a job in virtual time: this rank's part of it.
type vrun struct {
	spec   bench.Spec
	part   *bench.Part
	next   float64 // the start of its next window (+Inf: over)
	trace  *bytes.Buffer
	spec0  int // the index of its spec
	base   bool
	hosts  func(proto.NodeID) bool
	inter  int64 // messages this rank's nodes sent to other ranks' nodes
	hops   int64 // the hypercube hops between the ranks of those messages
	places hypercube.Placement
}

// vrank is what one rank measured of the job, for the record.
type vrank struct {
	Results  []*bench.Result
	Inter    []int64
	Hops     []int64
	Trace    []byte
	Segments []sim.Segment
	// MirrorTrace and MirrorSegments are the whole run's own trace lines
	// (bench.Part.MirrorTrace), from the rank that keeps the mirror.
	MirrorTrace    []byte
	MirrorSegments []sim.Segment
	CPU            float64
	Collective     float64 // seconds in the window collectives
	Windows        int64
	Events         int64 // events popped, all runs

	done atomic.Int64 // Windows, for watchWindows
}

// watchWindows ends the job if no window completes for silentLimit of
// wall-clock time (OCBENCH_SILENT_SECONDS): a rank stopped (SIGSTOP), or
// whose host is gone, would keep every other rank in the window's
// reduction for ever, and a blocked MPI call cannot be interrupted, so the
// process exits, which makes mpirun end the job. A window takes
// milliseconds. It returns the function that ends the watch.
func watchWindows(rk *vrank, me, p int) (stop func()) {
	quit := make(chan struct{})
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		last, since := int64(-1), time.Now()
		for {
			select {
			case <-quit:
				return
			case now := <-tick.C:
				if w := rk.done.Load(); w != last {
					last, since = w, now
				} else if now.Sub(since).Seconds() > silentLimit {
					fmt.Fprintf(os.Stderr, "ocbench: rank %d of %d: no window of virtual time completed for %.0f s (a rank stopped, or its host is gone): ending the job\n",
						me, p, now.Sub(since).Seconds())
					os.Exit(1)
				}
			}
		}
	}()
	return func() { close(quit) }
}

// Run runs specs at once, as one job: every run and its crash-free
// baseline advance window by window together, one collective per window.
func (v Virtual) Run(specs []bench.Spec) ([]*results.Run, error) {
	comm := v.Comm
	if len(specs) == 0 || len(specs) > MaxVirtualRuns {
		return nil, &ValidationError{fmt.Errorf("rank: %d runs at once (1 to %d)", len(specs), MaxVirtualRuns)}
	}
	p, me := comm.Size(), comm.Rank()
	norm := make([]bench.Spec, len(specs))
	places := make([]hypercube.Placement, len(specs))
	var bad error
	for k, s := range specs {
		if norm[k], places[k], bad = CheckVirtual(s, v.Placement, p); bad != nil {
			break
		}
	}
	// Every rank agrees on the job before it returns, even with bad input.
	digest, err := agreeJob(comm, []Term{{"job", fmt.Sprintf("%08x", v.Digest)}, {"clock", "virtual"}, {"placement", v.Placement}}, specs, bad)
	if err != nil {
		return nil, err
	}
	wall, cpu0 := time.Now(), cpuSeconds()
	var runs []*vrun
	add := func(s bench.Spec, k int, base bool, until float64) *vrun {
		pl := places[k]
		owned := make([]bool, s.Nodes)
		for _, i := range pl.Nodes(me) {
			owned[i] = true
		}
		r := &vrun{spec: s, spec0: k, base: base, places: pl, hosts: func(id proto.NodeID) bool { return owned[id] }}
		var tw io.Writer // nil, not a nil *bytes.Buffer, without a trace
		if s.Trace != nil {
			r.trace = &bytes.Buffer{}
			tw = r.trace
		}
		r.part = bench.NewPart(s, until, owned, tw)
		runs = append(runs, r)
		return r
	}
	for k, s := range norm {
		crash := add(s, k, false, -1)
		if bench.NeedsBaseline(s) {
			add(bench.Baseline(s), k, true, crash.part.Until())
		}
	}
	// The longest reduction: every run's report and a frame count per rank.
	_, raw := comm.(MPI) // the window loop owns the MPI thread (mpi.OnThread)
	shm, err := setupShmReduce(comm, len(runs)*(bench.ReportSums+bench.ReportMins)+p, raw)
	if err != nil {
		return nil, err
	}
	defer shm.close()
	var rk vrank
	stop := watchWindows(&rk, me, p)
	err = v.windows(runs, digest, &rk, shm)
	stop()
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		res := r.part.Result(r.part.End())
		rk.Results = append(rk.Results, res)
		rk.Inter = append(rk.Inter, r.inter)
		rk.Hops = append(rk.Hops, r.hops)
		rk.Events += res.Stats.Popped
	}
	if runs[0].trace != nil {
		rk.Trace, rk.Segments = runs[0].trace.Bytes(), runs[0].part.Sim().Segments
		rk.MirrorTrace, rk.MirrorSegments = runs[0].part.MirrorTrace()
	}
	rk.CPU = cpuSeconds() - cpu0
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&rk); err != nil {
		return nil, fmt.Errorf("rank: encoding rank %d's results: %w", me, err)
	}
	all, err := comm.Gather(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("rank: gathering the results to rank 0: %w", err)
	}
	if me != 0 {
		return nil, nil
	}
	ranks := make([]*vrank, p)
	for r, b := range all {
		ranks[r] = &vrank{}
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(ranks[r]); err != nil || len(ranks[r].Results) != len(runs) {
			return nil, fmt.Errorf("rank: decoding rank %d's results: %v", r, err)
		}
	}
	if specs[0].Trace != nil {
		traces, segs := make([][]byte, p), make([][]sim.Segment, p)
		for r, x := range ranks {
			traces[r], segs[r] = x.Trace, x.Segments
		}
		for _, x := range ranks {
			if x.MirrorSegments != nil {
				// Last: at a step's mark, its lines come first.
				traces, segs = append(traces, x.MirrorTrace), append(segs, x.MirrorSegments)
			}
		}
		if err := sim.MergeTraces(specs[0].Trace, traces, segs); err != nil {
			return nil, err
		}
	}
	recs := make([]*results.Run, len(norm))
	for k := range runs {
		if runs[k].base {
			continue
		}
		of := func(k int) []*bench.Result {
			out := make([]*bench.Result, p)
			for r := range ranks {
				out[r] = ranks[r].Results[k]
			}
			return out
		}
		var base []*bench.Result
		if k+1 < len(runs) && runs[k+1].base {
			base = of(k + 1)
		}
		rec, err := bench.Assemble(runs[k].spec, of(k), base)
		if err != nil {
			return nil, err
		}
		rec.Runtime, rec.Ranks, rec.Clock, rec.Placement = "mpi", p, "virtual", runs[k].places.Name()
		var inter, hops int64
		for r := range ranks {
			inter += ranks[r].Inter[k]
			hops += ranks[r].Hops[k]
		}
		rec.MessagesInterRank = inter
		rec.MessagesIntraRank = rec.MessagesTotal - inter
		if rec.MessagesTotal > 0 {
			rec.HopsPerMessage = float64(hops) / float64(rec.MessagesTotal)
		}
		if runs[k].spec0 == 0 {
			rec.WallSeconds = time.Since(wall).Seconds()
			sc := &results.SyncCost{Windows: ranks[0].Windows}
			for _, x := range ranks {
				rec.CPUSecondsPerRank = append(rec.CPUSecondsPerRank, x.CPU)
				sc.CollectiveSecondsPerRank = append(sc.CollectiveSecondsPerRank, x.Collective)
				if x.Windows > 0 {
					sc.EventsPerWindowPerRank = append(sc.EventsPerWindowPerRank, float64(x.Events)/float64(x.Windows))
				}
			}
			rec.Sync = sc
		}
		recs[runs[k].spec0] = rec
	}
	return recs, nil
}

// MPI tags of the frames that carry messages between ranks at a window
// boundary: they alternate between windows, so that a rank still
// receiving one window's frames takes none of the next one's (a rank can be
// at most one window ahead: the reduction of each window waits for all).
const (
	tagWindowEven = 20
	tagWindowOdd  = 21
)

// windows advances every run window by window until all are over: each
// window, every run not over runs its window; then, at the boundary, each
// rank sends every other rank its messages for that rank's nodes (frames
// of at most maxFrame bytes), one reduction (Comm.SumMin) adds up the
// runs' reports and counts the frames each rank is to receive, each rank
// receives its frames, and every run takes its boundary. A targeted
// crash due at the boundary adds an all-gather of the world view.
func (v Virtual) windows(runs []*vrun, digest uint32, rk *vrank, shm *shmReduce) error {
	comm := v.Comm
	send, sumMin, recvAny := comm.Send, comm.SumMin, comm.RecvAny
	if shm != nil {
		progress := func() { comm.Iprobe() }
		sumMin = func(in []int64, nsum int) ([]int64, error) { return shm.SumMin(in, nsum, progress) }
	}
	p, me := comm.Size(), comm.Rank()
	var progressAt time.Time
	progress := runs[0].spec.Progress
	// The requests served and issued of each run at its last boundary.
	served, issued := make([]int64, len(runs)), make([]int64, len(runs))
	sent := make([]int64, p) // the frames sent to each rank this window
	var out []frame          // the frames of the window, sent after the reduction
	// A mirrored run's logs of the window (bench.Part.Mirrored), at the
	// rank that keeps its mirror: its own, and the bytes from each rank.
	logs := make([][]sim.LogEntry, len(runs))
	logBytes := make([][][]byte, len(runs))
	for k := range logBytes {
		logBytes[k] = make([][]byte, p)
	}
	boundary := func() (bool, error) {
		first := rk.Windows == 0
		tag := tagWindowEven + int(rk.Windows%2)
		if shm != nil {
			shm.reset(int(rk.Windows % 2))
		}
		var live []int
		for k, r := range runs {
			if first || !math.IsInf(r.next, 1) {
				live = append(live, k)
			}
		}
		reps := make([]bench.Snapshot, len(runs))
		var sums, mins []int64
		world := false
		byRank := make([][]sim.Remote, p)
		for _, k := range live {
			r := runs[k]
			reps[k] = r.part.Report()
			sums, mins = reps[k].AppendVector(sums, mins)
			world = world || r.part.NeedsWorld()
			for i := range byRank {
				byRank[i] = byRank[i][:0]
			}
			for _, m := range r.part.TakeOutbox() {
				to := r.places.Rank(int(m.Msg.To))
				byRank[to] = append(byRank[to], m)
				r.inter++
				r.hops += int64(bits.OnesCount(uint(to ^ me)))
			}
			if r.part.Mirrored() {
				if err := v.sendLog(r, k, digest, shm, rk, &out, sent, logs); err != nil {
					return false, err
				}
			}
			for to, msgs := range byRank {
				for len(msgs) > 0 {
					// As many as fit in one frame, at least one.
					n, size := 0, 8
					for n < len(msgs) && (n == 0 || size+bench.RemoteLen(&msgs[n]) <= maxFrame) {
						size += bench.RemoteLen(&msgs[n])
						n++
					}
					f := bench.AppendRemotes(binary.LittleEndian.AppendUint32(nil, uint32(k)), msgs[:n], digest)
					if shm == nil || !shm.put(int(rk.Windows%2), to, f) {
						out = append(out, frame{to, f})
						sent[to]++
					}
					msgs = msgs[n:]
				}
			}
		}
		nsum := len(sums) + p
		vec := append(append(sums, sent...), mins...)
		t0 := time.Now()
		// Sent before the reduction, so that they are there when it ends.
		// (A rank asleep in shmReduce's wait makes MPI progress every
		// shmProgress, so a send that needs it completes.)
		for _, f := range out {
			if err := send(f.buf, f.to, tag); err != nil {
				return false, fmt.Errorf("rank: sending a window's frames to rank %d: %w", f.to, err)
			}
		}
		clear(out)
		out = out[:0]
		res, err := sumMin(vec, nsum)
		clear(sent)
		if err != nil {
			return false, fmt.Errorf("rank: the window reduction: %w", err)
		}
		handle := func(src int, b []byte) error {
			if len(b) >= 4 && binary.LittleEndian.Uint32(b)&logFrame != 0 {
				k := int(binary.LittleEndian.Uint32(b) &^ logFrame)
				if k >= len(runs) || !runs[k].part.KeepsMirror() {
					return fmt.Errorf("rank: a log frame for run %d from rank %d, which this rank does not mirror", k, src)
				}
				logBytes[k][src] = append(logBytes[k][src], b[4:]...)
				return nil
			}
			if len(b) < 4 || int(binary.LittleEndian.Uint32(b)) >= len(runs) {
				return fmt.Errorf("rank: a malformed frame of %d bytes from rank %d", len(b), src)
			}
			r := runs[binary.LittleEndian.Uint32(b)]
			msgs, rest, err := bench.ReadRemotes(b[4:], r.spec.Nodes, digest)
			if err == nil && len(rest) > 0 {
				err = fmt.Errorf("%d bytes too many", len(rest))
			}
			for i := range msgs {
				if err == nil && !r.hosts(msgs[i].Msg.To) {
					err = fmt.Errorf("a message for node %d, which rank %d hosts", msgs[i].Msg.To, r.places.Rank(int(msgs[i].Msg.To)))
				}
			}
			if err != nil {
				return fmt.Errorf("rank: rank %d's frame: %w", src, err)
			}
			r.part.Accept(msgs)
			return nil
		}
		if shm != nil {
			// First the frames in shared memory: a rank's frames that did
			// not fit there follow by MPI.
			if err := shm.frames(int(rk.Windows%2), handle); err != nil {
				return false, err
			}
		}
		for want := res[len(sums)+me]; want > 0; want-- {
			src, b, err := recvAny(tag)
			if err != nil {
				return false, fmt.Errorf("rank: receiving a window's messages: %w", err)
			}
			if err := handle(src, b); err != nil {
				return false, err
			}
		}
		for _, k := range live {
			r := runs[k]
			if !r.part.KeepsMirror() {
				continue
			}
			all := logs[k]
			for src, b := range logBytes[k] {
				var err error
				if all, err = bench.ReadLog(b, r.spec.Nodes, digest, all); err != nil {
					return false, fmt.Errorf("rank: rank %d's log of a window: %w", src, err)
				}
				logBytes[k][src] = b[:0]
			}
			if err := r.part.Replay(all); err != nil {
				return false, err
			}
			logs[k] = nil
		}
		snaps := make([]bench.Snapshot, len(runs))
		for i, k := range live {
			s, err := bench.FromVector(res[i*bench.ReportSums:(i+1)*bench.ReportSums], res[nsum+i*bench.ReportMins:nsum+(i+1)*bench.ReportMins], &reps[k])
			if err != nil {
				return false, err
			}
			snaps[k] = s
		}
		if world {
			var buf []byte
			for _, k := range live {
				buf = bench.AppendWorld(buf, &reps[k])
			}
			all, err := comm.AllGather(buf)
			if err != nil {
				return false, fmt.Errorf("rank: the world view's all-gather: %w", err)
			}
			for src, b := range all {
				for _, k := range live {
					var w bench.Snapshot
					if b, err = bench.ReadWorld(b, runs[k].spec.Nodes, &w); err != nil {
						return false, fmt.Errorf("rank: rank %d's world view: %w", src, err)
					}
					snaps[k].AddWorld(&w)
				}
				if len(b) != 0 {
					return false, fmt.Errorf("rank: rank %d's world view has %d bytes too many", src, len(b))
				}
			}
		}
		rk.Collective += time.Since(t0).Seconds()
		rk.Windows++
		rk.done.Store(rk.Windows)
		more := false
		for _, k := range live {
			r := runs[k]
			r.next = r.part.Boundary(snaps[k])
			more = more || !math.IsInf(r.next, 1)
		}
		for _, k := range live {
			served[k], issued[k] = snaps[k].Served, snaps[k].Issued
		}
		if err := v.shareLegit(runs, live, sumMin); err != nil {
			return false, err
		}
		if progress != nil && me == 0 && (!more || time.Since(progressAt) > 200*time.Millisecond) {
			progressAt = time.Now()
			progress(sumProgress(runs, served, issued, !more))
		}
		return more, nil
	}
	more, err := boundary()
	for err == nil && more {
		for _, r := range runs {
			if !math.IsInf(r.next, 1) {
				r.part.Window(r.next)
			}
		}
		more, err = boundary()
	}
	return err
}

// frame is a frame for rank to.
type frame struct {
	to  int
	buf []byte
}

// logFrame marks a frame that carries a part's log (its run's index
// with this bit): bench.Part.Mirrored.
const logFrame = 1 << 31

// sendLog frames run k's log of the window for the rank that keeps its
// mirror, in frames of at most maxFrame bytes (appended to out, counted in
// sent); the rank that keeps it keeps its own in logs[k].
func (v Virtual) sendLog(r *vrun, k int, digest uint32, shm *shmReduce, rk *vrank, out *[]frame, sent []int64, logs [][]sim.LogEntry) error {
	log := r.part.TakeLog()
	if r.part.KeepsMirror() {
		logs[k] = append(logs[k], log...)
		return nil
	}
	if len(log) == 0 {
		return nil
	}
	to := r.places.Rank(0)
	b := bench.AppendLog(nil, log, digest)
	for len(b) > 0 {
		n := min(len(b), maxFrame-4)
		f := append(binary.LittleEndian.AppendUint32(make([]byte, 0, n+4), uint32(k)|logFrame), b[:n]...)
		if shm == nil || !shm.put(int(rk.Windows%2), to, f) {
			*out = append(*out, frame{to, f})
			sent[to]++
		}
		b = b[n:]
	}
	return nil
}

// shareLegit gives every part of each mirrored run whose next window
// starts with a controller call the mirror's verdict (one reduction, only
// at such boundaries): whether the run is legitimate.
func (v Virtual) shareLegit(runs []*vrun, live []int, sumMin func([]int64, int) ([]int64, error)) error {
	need := false
	for _, k := range live {
		need = need || runs[k].part.NeedsLegit()
	}
	if !need {
		return nil
	}
	vec := make([]int64, len(runs))
	for _, k := range live {
		if runs[k].part.Legit() {
			vec[k] = 1
		}
	}
	res, err := sumMin(vec, len(vec))
	if err != nil {
		return fmt.Errorf("rank: sharing the legitimacy verdict: %w", err)
	}
	for _, k := range live {
		runs[k].part.SetLegit(res[k] > 0)
	}
	return nil
}

// sumProgress is the progress of the job's runs (their crash-free
// baselines aside): requests served and issued as the last boundary of each
// run saw them, failures injected, the latest virtual time; done on the
// last call, when every run is over.
func sumProgress(runs []*vrun, served, issued []int64, done bool) bench.Progress {
	var pr bench.Progress
	for k, r := range runs {
		if r.base {
			continue
		}
		pr.Runs++
		pr.Served += served[k]
		pr.Issued += issued[k]
		pr.Requests += r.spec.Requests
		pr.Failures += r.part.Failures()
		pr.FailuresPlanned += r.spec.Faults.Crashes
		pr.Virtual = max(pr.Virtual, r.part.Sim().Now())
	}
	pr.Done = done
	return pr
}
