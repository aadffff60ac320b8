package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/mpi"
	"github.com/ocbench/ocbench/rank"
	"github.com/ocbench/ocbench/results"
)

// DefaultMPIDelta is δ under MPI without --delta, and the δ that the flags
// are checked with under --delta auto before δ is measured: with 32 ranks
// oversubscribed on 2 cores, a broadcast to 31 ranks often takes 2–5 ms to
// be delivered everywhere (docs/mpi.md). --delta auto measures instead; on
// an oversubscribed laptop its rule picks about 30 ms, which makes the
// default job last over 12 minutes, so it is not the default.
const DefaultMPIDelta = 4e-3

// launcher returns the world size and this process's rank as announced by
// the MPI launcher's environment (Open MPI's mpirun, MPICH's Hydra, Slurm's
// PMI-2, Slurm's srun --mpi=pmix: PMIX_RANK, with the step's task count),
// and whether there is one. A batch script's own environment (SLURM_NTASKS,
// SLURM_PROCID, no PMIX_RANK) is no launch.
func launcher() (size, me int, ok bool) {
	for _, v := range [][2]string{{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"}, {"PMI_SIZE", "PMI_RANK"}, {"SLURM_STEP_NUM_TASKS", "PMIX_RANK"}} {
		s, err1 := strconv.Atoi(os.Getenv(v[0]))
		r, err2 := strconv.Atoi(os.Getenv(v[1]))
		if err1 == nil && err2 == nil {
			return s, r, true
		}
	}
	return 1, 0, false
}

// mpiJob reports whether this process is one of several ranks that an MPI
// launcher started, in a build with MPI: then every rank starts MPI and
// agrees with the others (agreeRanks) even on bad input, since another
// rank may have accepted its own.
func mpiJob() bool {
	size, _, launched := launcher()
	return launched && size > 1 && mpi.Compiled()
}

// useMPI decides the runtime from --runtime and the environment. The
// simulator under an MPI launcher with several ranks is refused: every
// rank would run the same runs and save them (four saves under -np 4); one
// process is the simulator's whole job.
func useMPI(o *options) (bool, error) {
	size, _, launched := launcher()
	switch o.runtime {
	case "sim":
		if launched && size > 1 {
			return false, usageError{fmt.Errorf("--runtime sim: the simulator runs in one process, and mpirun started %d: each would run and save the same runs; run it without mpirun (or with -np 1)", size)}
		}
		return false, nil
	case "mpi":
		if !mpi.Compiled() {
			return false, usageError{fmt.Errorf("--runtime: %w", mpi.ErrNoMPI)}
		}
		return true, nil
	case "auto":
		if !launched {
			return false, nil
		}
		if !mpi.Compiled() {
			if size > 1 {
				return false, usageError{fmt.Errorf("mpirun started %d copies of an ocbench built without MPI support; build it with `make mpi`", size)}
			}
			return false, nil
		}
		return true, nil
	}
	return false, usageError{fmt.Errorf("--runtime: unknown runtime %q (allowed: auto, sim, mpi)", o.runtime)}
}

// runMPI runs the experiments on the MPI ranks: every rank runs the same
// code; rank 0 prints. The ranks first agree on the build, the flags and
// the runs (agreeRanks), with refusal the bad input this rank found before
// (its flags, its runtime), if any: bad input on any rank, or ranks that
// disagree, end every rank with status 2 and one line from rank 0. A
// failure during a run aborts the job. A job that ends every rank exits
// with the same status on every rank, the worst: an invalid run (rank 0's
// verdict) exits 1 on every rank.
func runMPI(o *options, fs *pflag.FlagSet, stdout, stderr io.Writer, refusal error) int {
	if os.Getenv("GOMAXPROCS") == "" {
		// One thread runs the nodes; a rank needs no more, and 32 ranks
		// may share 2 cores.
		runtime.GOMAXPROCS(1)
	}
	mpiStarted = true
	if _, err := mpi.Init(mpi.ThreadFunneled); err != nil {
		fmt.Fprintf(stderr, "ocbench: %v\n", err)
		return 1
	}
	me, size := mpi.WorldRank(), mpi.WorldSize()
	if me != 0 {
		stdout, stderr = io.Discard, io.Discard
		o.save.noSave, o.save.quiet = true, true // rank 0 saves and shows progress
	}
	o.runtimeInfo = &runtimeInfo{ranks: size, rank: me, library: mpi.LibraryVersion(), placement: o.placement, clock: o.clock}
	switch {
	case refusal != nil:
	case o.clock != "virtual" && o.clock != "wall":
		refusal = usageError{fmt.Errorf("--clock: unknown clock %q (allowed: virtual, wall)", o.clock)}
	case o.clock == "virtual" && o.deltaAuto:
		refusal = usageError{fmt.Errorf("--delta auto measures wall-clock delivery times, and this run is in virtual time; give --clock wall or a δ")}
	case fs.Changed("jobs") && o.jobs != 1:
		refusal = usageError{fmt.Errorf("--jobs: under mpirun the ranks run the runs, one job at a time; drop --jobs (or give 1)")}
	case o.clock == "wall" && fs.Changed("verify"):
		refusal = usageError{fmt.Errorf("--verify: it replays runs in virtual time, and --clock wall runs in real time (its parity test compares them); drop --verify")}
	}
	if o.clock == "wall" {
		if !fs.Changed("delta") {
			o.delta = DefaultMPIDelta
		}
		if o.deltaAuto {
			o.delta = DefaultMPIDelta // until measured (measureDelta)
		}
		if !fs.Changed("min-delay") {
			o.minDelay = 0 // real delays
		}
	}
	o.jobs = 1 // the ranks run the runs
	o.rt = o.mpiRuntime(rank.MPI{}, 0)
	var code int
	said := false // the error's line is out
	err := mpi.OnThread(func() error {
		if refusal != nil {
			code = 2
			return agreeRanks(o, fs, nil, refusal)
		}
		var err error
		code, err = execute(o, fs, stdout, stderr)
		if errors.As(err, new(runError)) || !o.runtimeInfo.agreed {
			// A failed rank aborts the job; ranks that did not agree
			// (other ranks may run another command, runAlone) make no
			// collective call.
			return err
		}
		// Rank 0 alone knows the verdict (its records, its checks, its
		// saved file): every rank ends with the worst status, so that an
		// invalid run exits non-zero on every rank, not on rank 0 alone.
		// Rank 0 says its last line first: once a rank exits non-zero,
		// mpirun ends the others, and no rank passes this call before
		// rank 0 reaches it.
		if err != nil {
			fmt.Fprintf(stderr, "ocbench: %v\n", err)
			said = true
		}
		worst, aerr := mpi.AllreduceInt64([]int64{int64(code)}, mpi.OpMax)
		if aerr != nil {
			return runError{fmt.Errorf("agreeing on the exit status: %w", aerr)}
		}
		code = int(worst[0])
		return err
	})
	var re runError
	switch {
	case err == nil:
	case errors.As(err, &re) && interrupting.Load():
		// Rank 0 saved and ended the job (an interrupt): the interrupt's
		// goroutine ends this rank, without a line of its own.
		select {}
	case errors.As(err, &re):
		// This rank failed in the middle of a run: the others wait for it.
		fmt.Fprintf(os.Stderr, "ocbench: rank %d of %d: %v\n", me, size, err)
		mpi.Abort(1)
	case said:
	default: // bad input (code 2, agreed on by every rank)
		fmt.Fprintf(stderr, "ocbench: %v\n", err)
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintf(stderr, "ocbench: %v\n", err)
		return 1
	}
	return code
}

// benchmarkCommand is the command term of the ranks that run the
// benchmark (agreeRanks): their flags are compared term by term after it.
const benchmarkCommand = "`ocbench [flags]` (the benchmark)"

// runAlone runs cmd, a command that runs in one process (a subcommand,
// the help, the version, the list of algorithms), given args. In an MPI
// job (mpiJob) a rank that never started MPI would leave the ranks that
// run the benchmark waiting in MPI_Init for it, and mpirun would end the
// job without a word from ocbench: so every rank starts MPI and agrees on
// the command (the build and the command line, the benchmark's ranks
// bringing benchmarkCommand first): if they differ, every rank ends with
// status 2 and one line from rank 0 ("ranks disagree: rank 2 has the
// command `ocbench version`, rank 0 has …"); if they agree, every rank
// finalizes MPI and rank 0 alone runs cmd (the others have nothing to add:
// each would do the same work and write the same files).
func runAlone(args []string, stdout, stderr io.Writer, cmd func(stdout, stderr io.Writer) int) int {
	if !mpiJob() {
		return cmd(stdout, stderr)
	}
	mpiStarted = true
	if _, err := mpi.Init(mpi.ThreadFunneled); err != nil {
		fmt.Fprintf(stderr, "ocbench: %v\n", err)
		return 1
	}
	var agreeErr error
	err := mpi.OnThread(func() error {
		_, agreeErr = rank.Agree(rank.MPI{}, rank.Agreement{Terms: []rank.Term{
			{Name: "build", Value: buildID()},
			{Name: "the command", Value: commandLine(args)},
		}})
		return nil
	})
	if err == nil {
		err = agreeErr
	}
	// Rank 0 says why before it finalizes: the others, which finalize
	// with it, cannot end the job before its line is out.
	code := 0
	var ae *rank.AgreementError
	switch {
	case errors.As(err, &ae):
		fmt.Fprintf(stderr, "ocbench: %v\n", err)
		code = 2
	case err != nil:
		fmt.Fprintf(stderr, "ocbench: agreeing with the other ranks: %v\n", err)
		code = 1
	}
	if ferr := mpi.Finalize(); ferr != nil && code == 0 {
		fmt.Fprintf(stderr, "ocbench: %v\n", ferr)
		code = 1
	}
	if code != 0 || mpi.WorldRank() != 0 {
		return code
	}
	return cmd(stdout, stderr)
}

// commandLine writes args as the command line of a rank's command, for
// the ranks to compare: "`ocbench check-trace crash.jsonl`".
func commandLine(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n'\"`\\$") {
			q[i] = strconv.Quote(a)
		}
	}
	return "`" + strings.TrimSpace("ocbench "+strings.Join(q, " ")) + "`"
}

// virtualMPI reports whether the runs are on MPI ranks in virtual time.
// A task farm (--mpi-mode farm) is not: its runs are the simulator's.
func (o *options) virtualMPI() bool {
	return o.runtimeInfo != nil && o.runtimeInfo.clock == "virtual" && !o.runtimeInfo.farm
}

// mpiRuntime returns the MPI runtime of o's clock on comm, for the job of
// digest.
func (o *options) mpiRuntime(comm rank.Comm, digest uint32) bench.Runtime {
	if o.farm() {
		return simulator // each run whole in one rank's simulator (runFarm)
	}
	if o.clock == "wall" {
		return rank.Runtime{Comm: comm, Placement: o.placement, Digest: digest}
	}
	return rank.Virtual{Comm: comm, Placement: o.placement, Digest: digest}
}

// checkIdentical replays, under MPI in virtual time (--verify), every run
// of recs (the records of spec's seeds) in the simulator on rank 0 and
// requires the same record, field for field but the runtime's own
// (results.RuntimeFields); it notes the check in r, their merged record.
func checkIdentical(o *options, spec bench.Spec, recs []*results.Run, r *results.Run) error {
	if !o.virtualMPI() || !o.verify || len(recs) == 0 {
		return nil
	}
	for _, got := range recs {
		s := spec
		s.Seed, s.Progress, s.Trace = got.Seed, nil, nil
		want, err := simRun(s)
		if err != nil {
			return fmt.Errorf("verify: the simulator's run of seed %d: %w", got.Seed, err)
		}
		field, same := results.SameRun(got, want)
		switch {
		case same:
		case want.SafetyViolations+want.LivenessViolations > 0:
			// The simulator stops at the step that breaks an invariant,
			// the ranks at the next window boundary or not at all
			// (docs/mpi.md): the records differ, as expected.
			return fmt.Errorf("verify: the simulator's run of %s N=%d seed %d breaks an invariant (%d safety, %d liveness violations) and stops at that step, where the MPI ranks stop later or not at all, so the records differ at %s, as expected of a broken run (docs/mpi.md); see it in the simulator: %s",
				s.Algorithm, s.Nodes, got.Seed, want.SafetyViolations, want.LivenessViolations, fieldName(field), bench.Replay(s))
		default:
			return fmt.Errorf("verify: the MPI run of %s N=%d seed %d differs from the simulator's at %s (a bug: please report it with the command line); replay: %s",
				s.Algorithm, s.Nodes, got.Seed, field, bench.Replay(s))
		}
	}
	r.IdenticalToSimulator = len(recs)
	return nil
}

// mpiStarted is set once runMPI starts MPI: from then on bad input ends
// every rank together (rank 0 prints before the ranks finalize).
var mpiStarted bool

// runtimeInfo describes the MPI runtime of a run, nil for the simulator.
type runtimeInfo struct {
	ranks, rank int
	library     string
	placement   string
	clock       string                    // virtual or wall
	farm        bool                      // a task farm (--mpi-mode): each run in one rank's simulator
	records     []*results.Run            // rank 0: the records of the runs so far
	delays      *results.DelayMeasurement // --delta auto: the measurement
	// agreed: every rank of the job runs the benchmark and agreed on it
	// (agreeRanks), so each reaches the end of the command and may take
	// part in a last collective call (the exit status, runMPI).
	agreed bool
}

// simulator is the simulator runtime (tests replace it): the runtime of a
// run without MPI, and the one the MPI runs' parity check replays.
var simulator bench.Runtime = bench.Simulator{}

// simRun runs one experiment in the simulator.
func simRun(s bench.Spec) (*results.Run, error) {
	got, err := simulator.Run([]bench.Spec{s})
	if err != nil {
		return nil, err
	}
	return got[0], nil
}

// seedRun is one run of the job: configuration c with its k-th seed of
// --repeat (its spec's seed + k).
type seedRun struct{ c, k int }

// batches groups the runs of list, each configuration repeated o.repeat
// times, as the runtime of o runs them: one at a time in the simulator;
// under MPI, up to the runtime's Batch runs in one job. A job lasts as
// long as its longest run, whatever it runs, so the ipsc2 preset's five
// seeds of both sizes take the time of the N = 32 plan. In wall-clock
// time algorithms get jobs of their own: their traffic differs a
// hundredfold (a broadcast per request), and on a small machine two at
// once make deliveries late; in virtual time every configuration shares
// the job's windows.
func batches(o *options, list []config) [][]seedRun {
	var out [][]seedRun
	done := make([]bool, len(list))
	for c0 := range list {
		if done[c0] {
			continue
		}
		var all []seedRun
		for c := c0; c < len(list); c++ {
			// In virtual time a job's traffic delays nothing: every
			// configuration shares its windows.
			if !done[c] && (list[c].spec.Algorithm == list[c0].spec.Algorithm || o.virtualMPI()) {
				done[c] = true
				for k := 0; k < o.repeat; k++ {
					all = append(all, seedRun{c, k})
				}
			}
		}
		per := 1
		if o.rt != nil {
			per = o.rt.Batch()
		}
		for len(all) > 0 {
			n := min(per, len(all))
			out = append(out, all[:n])
			all = all[n:]
		}
	}
	return out
}

// runAll runs every configuration of list with the seeds of --repeat in the
// runtime of o, in batches, and returns each configuration's records in
// seed order. Under MPI only rank 0 gets records. In the simulator the
// batches run on o.jobs workers (runPool); under MPI one after the other.
func runAll(o *options, list []config, prog *progress, done *finished) ([][]*results.Run, error) {
	out := make([][]*results.Run, len(list))
	bs := batches(o, list)
	do := func(i int) ([]*results.Run, error) {
		b := bs[i]
		specs := make([]bench.Spec, len(b))
		for i, r := range b {
			specs[i] = list[r.c].spec
			specs[i].Seed += uint64(r.k)
			if o.runtimeInfo != nil && r != (seedRun{}) {
				specs[i].Trace = nil // MPI traces the first run only
			}
		}
		specs[0].Progress = prog.callback()
		got, err := runBatch(o, specs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", describeBatch(list, b), err)
		}
		return got, nil
	}
	emit := func(i int, got []*results.Run) error {
		for k, r := range got {
			c := bs[i][k].c
			out[c] = append(out[c], r)
			done.add(c, r)
		}
		return nil
	}
	if o.farm() {
		if err := runFarm(o, bs, prog, do, emit); err != nil {
			return nil, err
		}
		return out, nil
	}
	if o.runtimeInfo != nil || o.jobs <= 1 {
		for i := range bs {
			got, err := do(i)
			if err != nil {
				return nil, err
			}
			emit(i, got)
		}
		return out, nil
	}
	if err := runPool(o, list, bs, do, emit); err != nil {
		return nil, err
	}
	return out, nil
}

// describeBatch names the runs of b for an error: "run opencube N=32 seed
// 1", or "runs opencube N=32 seeds 1..5, opencube N=64 seeds 1..5".
func describeBatch(list []config, b []seedRun) string {
	var parts []string
	for i := 0; i < len(b); {
		j := i
		for j+1 < len(b) && b[j+1].c == b[i].c {
			j++
		}
		s := list[b[i].c].spec
		first, last := s.Seed+uint64(b[i].k), s.Seed+uint64(b[j].k)
		seeds := fmt.Sprintf("seed %d", first)
		if j > i {
			seeds = fmt.Sprintf("seeds %d..%d", first, last)
		}
		parts = append(parts, fmt.Sprintf("%s N=%d %s", s.Algorithm, s.Nodes, seeds))
		i = j + 1
	}
	if len(b) == 1 {
		return "run " + parts[0]
	}
	return "runs " + strings.Join(parts, ", ")
}

// runBatch runs specs at once in the runtime of o.
func runBatch(o *options, specs []bench.Spec) ([]*results.Run, error) {
	recs, err := o.rt.Run(specs)
	if ri := o.runtimeInfo; ri != nil {
		runsMu.Lock() // an interrupt's save reads them (environment)
		defer runsMu.Unlock()
		for _, r := range recs {
			r.DeltaAuto = o.deltaAuto
			r.DeltaMeasured = ri.delays
			ri.records = append(ri.records, r)
		}
	}
	var ve *rank.ValidationError
	if err != nil && !errors.As(err, &ve) {
		return nil, runError{err}
	}
	if err != nil {
		return nil, flagError(err)
	}
	return recs, nil
}

// runError is a failure of the runtime during a run (not bad input).
type runError struct{ error }

// checkSpec checks s against the runtime of o (the simulator's if none is
// chosen yet).
func checkSpec(o *options, s bench.Spec) error {
	if o.rt == nil {
		return nil
	}
	return o.rt.Supports(s)
}

// openTrace creates the --trace file and returns it and the writer the run
// traces into. In the simulator that is the file; under MPI, rank 0 creates
// it and writes the merged trace (rank.Run), the other ranks get a writer
// that only says "trace" (they send their events to rank 0), and the ranks
// agree on whether rank 0 could create it, so that a file that cannot be
// created ends every rank with status 2.
func openTrace(o *options) (*os.File, io.Writer, error) {
	ri := o.runtimeInfo
	if ri == nil {
		f, err := createTrace(o.trace, o.save.force)
		return f, f, err
	}
	var f *os.File
	var err error
	var failed int64
	if ri.rank == 0 {
		if f, err = createTrace(o.trace, o.save.force); err != nil {
			failed = 1
		}
	}
	all, aerr := mpi.AllreduceInt64([]int64{failed}, mpi.OpSum)
	switch {
	case aerr != nil:
		return nil, nil, fmt.Errorf("agreeing on the trace file: %w", aerr)
	case err != nil:
		return nil, nil, err
	case all[0] != 0:
		return nil, nil, fmt.Errorf("rank 0 could not create %s", o.trace)
	case f == nil:
		return nil, io.Discard, nil
	}
	return f, f, nil
}

// fieldName is the name of the field in results.SameRun's description of
// a difference ("events ({…}, not {…})" → "events").
func fieldName(diff string) string {
	name, _, _ := strings.Cut(diff, " (")
	return name
}
