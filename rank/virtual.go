package rank

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"math/bits"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/internal/field"
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

// CheckVirtual returns the plan of spec and the placement for a run on p
// ranks in virtual time, or a ValidationError around the
// field.Error at fault ("Ranks" for the number of ranks, "Placement"
// for the placement).
func CheckVirtual(spec bench.Spec, placement string, p int) (*bench.Plan, hypercube.Placement, error) {
	bad := func(name, format string, args ...any) (*bench.Plan, hypercube.Placement, error) {
		return nil, nil, &ValidationError{field.Errorf(name, format, args...)}
	}
	plan, err := spec.Resolve()
	if err != nil {
		return nil, nil, &ValidationError{err}
	}
	s := plan.Spec
	if placement == "" {
		placement = hypercube.Placements[0]
	}
	if err := hypercube.Validate(p, 1); err != nil {
		return bad("Ranks", "%d ranks: the number of ranks must be a power of two (1, 2, 4, …, 32, …)", p)
	}
	if _, ok := hypercube.Log2(s.Nodes); !ok {
		return bad("Nodes", "%d nodes: MPI runs spread nodes over ranks by hypercube placements and need N a power of two (any N ≥ 2 runs in the simulator for %s)", s.Nodes, strings.Join(algo.AnySizeNames(), ", "))
	}
	if s.Nodes < p {
		return bad("Nodes", "%d nodes cannot be spread over %d ranks (need N ≥ ranks; both powers of two)", s.Nodes, p)
	}
	pl, err := hypercube.NewPlacement(placement, s.Nodes, p)
	if err != nil {
		return bad("Placement", "%s", strings.TrimPrefix(err.Error(), "placement: "))
	}
	if err := bench.Splittable(s); err != nil {
		return nil, nil, &ValidationError{err}
	}
	return plan, pl, nil
}

// vrank is what one rank measured of the job, for the record.
type vrank struct {
	Endings    []bench.Ending
	Inter      []int64 // by run (bench.Parcel.Run): messages to other ranks' nodes
	Hops       []int64 // by run: the hypercube hops between the ranks of those messages
	CPU        float64
	Collective float64 // seconds in the window collectives
	Windows    int64
	Colls      int64 // collectives: the windows' and the others
	Bytes      int64 // bytes given the other ranks: frames and reduction vectors
	Events     int64 // events popped, all runs

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
// baseline advance window by window together (bench.RunParts), one
// collective per window; rank r hosts part r of every run.
func (v Virtual) Run(specs []bench.Spec) ([]*results.Run, error) {
	comm := v.Comm
	if len(specs) == 0 || len(specs) > MaxVirtualRuns {
		return nil, &ValidationError{fmt.Errorf("rank: %d runs at once (1 to %d)", len(specs), MaxVirtualRuns)}
	}
	p, me := comm.Size(), comm.Rank()
	plans := make([]*bench.Plan, len(specs))
	places := make([]hypercube.Placement, len(specs))
	var bad error
	for k, s := range specs {
		if plans[k], places[k], bad = CheckVirtual(s, v.Placement, p); bad != nil {
			break
		}
	}
	// Every rank agrees on the job before it returns, even with bad input.
	digest, err := agreeJob(comm, []Term{{"job", fmt.Sprintf("%08x", v.Digest)}, {"clock", "virtual"}, {"placement", v.Placement}}, specs, bad)
	if err != nil {
		return nil, err
	}
	wall := time.Now()
	owners := make([][]int, len(plans))
	ex := &exchange{comm: comm, digest: digest, cpu0: cpuSeconds(), nodes: make([]int, 2*len(plans)), sent: make([]int64, p)}
	ex.rk.Inter, ex.rk.Hops = make([]int64, 2*len(plans)), make([]int64, 2*len(plans))
	for k, plan := range plans {
		s := plan.Spec
		owners[k] = make([]int, s.Nodes)
		for r := range p {
			for _, i := range places[k].Nodes(r) {
				owners[k][i] = r
			}
		}
		ex.nodes[2*k], ex.nodes[2*k+1] = s.Nodes, s.Nodes
	}
	defer ex.shm.close()
	stop := watchWindows(&ex.rk, me, p)
	recs, err := bench.RunParts(ex, plans, owners)
	stop()
	if err != nil || me != 0 {
		return nil, err
	}
	for k, rec := range recs {
		rec.Runtime, rec.Ranks, rec.Clock, rec.Placement = "mpi", p, "virtual", places[k].Name()
		var inter, hops int64
		for _, x := range ex.ranks {
			inter += x.Inter[2*k]
			hops += x.Hops[2*k]
		}
		rec.MessagesInterRank = inter
		rec.MessagesIntraRank = rec.MessagesTotal - inter
		if rec.MessagesTotal > 0 {
			rec.HopsPerMessage = float64(hops) / float64(rec.MessagesTotal)
		}
		if k == 0 {
			rec.WallSeconds = time.Since(wall).Seconds()
			sc := &results.SyncCost{Windows: ex.ranks[0].Windows, Collectives: ex.ranks[0].Colls}
			for _, x := range ex.ranks {
				rec.CPUSecondsPerRank = append(rec.CPUSecondsPerRank, x.CPU)
				sc.CollectiveSecondsPerRank = append(sc.CollectiveSecondsPerRank, x.Collective)
				sc.BytesPerRank = append(sc.BytesPerRank, x.Bytes)
				if x.Windows > 0 {
					sc.EventsPerWindowPerRank = append(sc.EventsPerWindowPerRank, float64(x.Events)/float64(x.Windows))
				}
			}
			rec.Sync = sc
		}
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

// exchange is Virtual's bench.Exchange: the MPI transport of a window
// boundary. Each rank sends every other rank its parcels in frames of at
// most maxFrame bytes (through the shared page when the ranks share a
// machine, shmReduce), one reduction (Comm.SumMin) adds up the runs'
// reports and counts the frames each rank is to receive, and each rank
// receives its frames.
type exchange struct {
	comm   Comm
	digest uint32
	nodes  []int // the nodes of each run (bench.Parcel.Run)
	cpu0   float64
	shm    *shmReduce
	setup  bool    // shm is set up (at the first boundary)
	sent   []int64 // the frames sent to each rank this window
	// full, res and total are a window's reduction vector (with the
	// shared page, which copies it), its result and what Swap returns:
	// buffers reused from one window to the next (the driver reads total
	// before its next Swap).
	full, res, total []int64
	out              []frame // the frames of the window, sent before the reduction
	// logBytes are the bytes of each run's log from each rank, at the
	// rank that keeps its mirror.
	logBytes map[int][][]byte
	rk       vrank
	ranks    []*vrank // every rank's, at rank 0 after Gather
}

// Processes returns the number of ranks and this rank's.
func (e *exchange) Processes() (int, int) { return e.comm.Size(), e.comm.Rank() }

// sumMin is Comm.SumMin, through the shared page if there is one, which
// appends its result to dst[:0] (Comm.SumMin's is new).
func (e *exchange) sumMin(dst, vec []int64, nsum int) ([]int64, error) {
	e.rk.Colls++
	if p := e.comm.Size(); p > 1 {
		e.rk.Bytes += int64(8 * len(vec))
	}
	if e.shm != nil {
		return e.shm.SumMin(dst, vec, nsum, e.iprobe)
	}
	return e.comm.SumMin(vec, nsum)
}

// iprobe makes MPI progress (a rank asleep on the shared page calls it).
func (e *exchange) iprobe() { e.comm.Iprobe() }

// frame adds frame f for rank to to the window's frames.
func (e *exchange) frame(to int, f []byte) {
	e.rk.Bytes += int64(len(f))
	if e.shm == nil || !e.shm.put(int(e.rk.Windows%2), to, f) {
		e.out = append(e.out, frame{to, f})
		e.sent[to]++
	}
}

// Swap carries one window boundary (bench.Exchange).
func (e *exchange) Swap(out [][]bench.Parcel, vec []int64, nsum int) ([]bench.Parcel, []int64, error) {
	comm := e.comm
	p, me := comm.Size(), comm.Rank()
	if !e.setup {
		// The longest reduction: every run's report and a frame count per
		// rank, at the first boundary, where every run is live.
		_, raw := comm.(MPI) // the window loop owns the MPI thread (mpi.OnThread)
		shm, err := setupShmReduce(comm, len(vec)+p, raw)
		if err != nil {
			return nil, nil, err
		}
		e.shm, e.setup = shm, true
	}
	parity := int(e.rk.Windows % 2)
	tag := tagWindowEven + parity
	if e.shm != nil {
		e.shm.reset(parity)
	}
	for to, ps := range out {
		for _, pc := range ps {
			msgs := pc.Msgs
			e.rk.Inter[pc.Run] += int64(len(msgs))
			e.rk.Hops[pc.Run] += int64(len(msgs) * bits.OnesCount(uint(to^me)))
			for len(msgs) > 0 {
				// As many as fit in one frame, at least one.
				n, size := 0, 8
				for n < len(msgs) && (n == 0 || size+bench.RemoteLen(&msgs[n]) <= maxFrame) {
					size += bench.RemoteLen(&msgs[n])
					n++
				}
				e.frame(to, bench.AppendRemotes(binary.LittleEndian.AppendUint32(nil, uint32(pc.Run)), msgs[:n], e.digest))
				msgs = msgs[n:]
			}
			for b := bench.AppendLog(nil, pc.Log, e.digest); len(pc.Log) > 0 && len(b) > 0; {
				n := min(len(b), maxFrame-4)
				e.frame(to, append(binary.LittleEndian.AppendUint32(make([]byte, 0, n+4), uint32(pc.Run)|logFrame), b[:n]...))
				b = b[n:]
			}
		}
	}
	full := e.full[:0] // the shared page copies it; MPI and Local may keep it
	if e.shm == nil {
		full = make([]int64, 0, len(vec)+p)
	}
	full = append(append(append(full, vec[:nsum]...), e.sent...), vec[nsum:]...)
	if e.shm != nil {
		e.full = full
	}
	t0 := time.Now()
	// Sent before the reduction, so that they are there when it ends.
	// (A rank asleep in shmReduce's wait makes MPI progress every
	// shmProgress, so a send that needs it completes.)
	for _, f := range e.out {
		if err := comm.Send(f.buf, f.to, tag); err != nil {
			return nil, nil, fmt.Errorf("rank: sending a window's frames to rank %d: %w", f.to, err)
		}
	}
	clear(e.out)
	e.out = e.out[:0]
	res, err := e.sumMin(e.res, full, nsum+p)
	e.res = res
	clear(e.sent)
	if err != nil {
		return nil, nil, fmt.Errorf("rank: the window reduction: %w", err)
	}
	var in []bench.Parcel
	var logRuns []int
	handle := func(src int, b []byte) error {
		if len(b) < 4 || int(binary.LittleEndian.Uint32(b)&^logFrame) >= len(e.nodes) {
			return fmt.Errorf("rank: a malformed frame of %d bytes from rank %d", len(b), src)
		}
		run := int(binary.LittleEndian.Uint32(b) &^ logFrame)
		if binary.LittleEndian.Uint32(b)&logFrame != 0 {
			if e.logBytes == nil {
				e.logBytes = map[int][][]byte{}
			}
			if e.logBytes[run] == nil {
				e.logBytes[run] = make([][]byte, p)
			}
			if !slices.Contains(logRuns, run) {
				logRuns = append(logRuns, run)
			}
			e.logBytes[run][src] = append(e.logBytes[run][src], b[4:]...)
			return nil
		}
		msgs, rest, err := bench.ReadRemotes(b[4:], e.nodes[run], e.digest)
		if err == nil && len(rest) > 0 {
			err = fmt.Errorf("%d bytes too many", len(rest))
		}
		if err != nil {
			return fmt.Errorf("rank: rank %d's frame: %w", src, err)
		}
		in = append(in, bench.Parcel{Run: run, Msgs: msgs})
		return nil
	}
	if e.shm != nil {
		// First the frames in shared memory: a rank's frames that did
		// not fit there follow by MPI.
		if err := e.shm.frames(parity, handle); err != nil {
			return nil, nil, err
		}
	}
	for want := res[nsum+me]; want > 0; want-- {
		src, b, err := comm.RecvAny(tag)
		if err != nil {
			return nil, nil, fmt.Errorf("rank: receiving a window's messages: %w", err)
		}
		if err := handle(src, b); err != nil {
			return nil, nil, err
		}
	}
	for _, run := range logRuns {
		var log []sim.LogEntry
		for src, b := range e.logBytes[run] {
			if log, err = bench.ReadLog(b, e.nodes[run], e.digest, log); err != nil {
				return nil, nil, fmt.Errorf("rank: rank %d's log of a window: %w", src, err)
			}
			e.logBytes[run][src] = b[:0]
		}
		in = append(in, bench.Parcel{Run: run, Log: log})
	}
	total := append(append(e.total[:0], res[:nsum]...), res[nsum+p:]...)
	e.total = total
	e.rk.Collective += time.Since(t0).Seconds()
	e.rk.Windows++
	e.rk.done.Store(e.rk.Windows)
	return in, total, nil
}

// Reduce is Comm.SumMin (bench.Exchange).
func (e *exchange) Reduce(vec []int64, nsum int) ([]int64, error) { return e.sumMin(nil, vec, nsum) }

// AllGather is Comm.AllGather (bench.Exchange).
func (e *exchange) AllGather(b []byte) ([][]byte, error) {
	t0 := time.Now()
	e.rk.Colls++
	e.rk.Bytes += int64(len(b) * (e.comm.Size() - 1))
	all, err := e.comm.AllGather(b)
	e.rk.Collective += time.Since(t0).Seconds()
	if err != nil {
		return nil, fmt.Errorf("rank: the world view's all-gather: %w", err)
	}
	return all, nil
}

// Gather gathers every rank's endings, and what it measured, to rank 0
// (bench.Exchange).
func (e *exchange) Gather(mine []bench.Ending) ([]bench.Ending, error) {
	comm := e.comm
	e.rk.Endings = mine
	for _, x := range mine {
		e.rk.Events += x.Result.Stats.Popped
	}
	e.rk.CPU = cpuSeconds() - e.cpu0
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&e.rk); err != nil {
		return nil, fmt.Errorf("rank: encoding rank %d's results: %w", comm.Rank(), err)
	}
	all, err := comm.Gather(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("rank: gathering the results to rank 0: %w", err)
	}
	if comm.Rank() != 0 {
		return nil, nil
	}
	e.ranks = make([]*vrank, len(all))
	var out []bench.Ending
	for r, b := range all {
		x := &vrank{}
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(x); err != nil || len(x.Inter) != len(e.nodes) || len(x.Hops) != len(e.nodes) {
			return nil, fmt.Errorf("rank: decoding rank %d's results: %v", r, err)
		}
		e.ranks[r] = x
		out = append(out, x.Endings...)
	}
	return out, nil
}

// frame is a frame for rank to.
type frame struct {
	to  int
	buf []byte
}

// logFrame marks a frame that carries a part's log (its run's index
// with this bit): the log of a self-stabilizing run, for its mirror.
const logFrame = 1 << 31
