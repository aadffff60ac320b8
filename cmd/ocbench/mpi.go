package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"

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
// PMI), and whether there is one.
func launcher() (size, me int, ok bool) {
	for _, v := range [][2]string{{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"}, {"PMI_SIZE", "PMI_RANK"}} {
		s, err1 := strconv.Atoi(os.Getenv(v[0]))
		r, err2 := strconv.Atoi(os.Getenv(v[1]))
		if err1 == nil && err2 == nil {
			return s, r, true
		}
	}
	return 1, 0, false
}

// useMPI decides the runtime from --runtime and the environment.
func useMPI(o *options) (bool, error) {
	size, _, launched := launcher()
	switch o.runtime {
	case "sim":
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
// code; rank 0 prints. Bad input ends every rank with status 2 and one line
// from rank 0; a failure during a run aborts the job.
func runMPI(o *options, fs *pflag.FlagSet, stdout, stderr io.Writer) int {
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
	if !fs.Changed("delta") {
		o.delta = DefaultMPIDelta
	}
	if o.deltaAuto {
		o.delta = DefaultMPIDelta // until measured (measureDelta)
	}
	o.runtimeInfo = &runtimeInfo{ranks: size, rank: me, library: mpi.LibraryVersion(), placement: o.placement}
	var code int
	err := mpi.OnThread(func() error {
		var err error
		code, err = execute(o, fs, stdout, stderr)
		return err
	})
	var re runError
	switch {
	case err == nil:
	case errors.As(err, &re):
		// This rank failed in the middle of a run: the others wait for it.
		fmt.Fprintf(os.Stderr, "ocbench: rank %d of %d: %v\n", me, size, err)
		mpi.Abort(1)
	default: // bad input (code 2, found alike on every rank) or the verdict (rank 0)
		fmt.Fprintf(stderr, "ocbench: %v\n", err)
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintf(stderr, "ocbench: %v\n", err)
		return 1
	}
	return code
}

// mpiStarted is set once runMPI starts MPI: from then on bad input ends
// every rank together (rank 0 prints before the ranks finalize).
var mpiStarted bool

// runtimeInfo describes the MPI runtime of a run, nil for the simulator.
type runtimeInfo struct {
	ranks, rank int
	library     string
	placement   string
	records     []*results.Run            // rank 0: the records of the runs so far
	delays      *results.DelayMeasurement // --delta auto: the measurement
}

// simRun runs one experiment in the simulator (tests replace it).
var simRun = bench.Run

// runSeeds runs spec with the seeds of --repeat (spec.Seed, spec.Seed+1, …)
// in the runtime of o: one after the other in the simulator, at once under
// MPI (up to rank.MaxConcurrent seeds in one job). Under MPI, only rank 0
// gets the records.
func runSeeds(o *options, spec bench.Spec, prog *progress) ([]*results.Run, error) {
	var runs []*results.Run
	for first := 0; first < o.repeat; {
		k := 1
		if o.runtimeInfo != nil {
			k = min(o.repeat-first, rank.MaxConcurrent)
		}
		specs := make([]bench.Spec, k)
		for i := range specs {
			specs[i] = spec
			specs[i].Seed = spec.Seed + uint64(first+i)
		}
		specs[0].Progress = scaled(prog.callback(), k)
		got, err := runBatch(o, specs)
		if err != nil {
			seeds := fmt.Sprint(specs[0].Seed)
			if k > 1 {
				seeds = fmt.Sprintf("s %d..%d", specs[0].Seed, specs[k-1].Seed)
			}
			return nil, fmt.Errorf("run %s N=%d seed%s: %w", spec.Algorithm, spec.Nodes, seeds, err)
		}
		runs = append(runs, got...)
		first += k
	}
	return runs, nil
}

// scaled shows the progress of k runs at once as k times the first one's.
func scaled(f func(bench.Progress), k int) func(bench.Progress) {
	if f == nil || k == 1 {
		return f
	}
	return func(b bench.Progress) {
		b.Served, b.Issued, b.Failures, b.FailuresPlanned = b.Served*int64(k), b.Issued*int64(k), b.Failures*k, b.FailuresPlanned*k
		f(b)
	}
}

// runBatch runs specs (the same experiment with different seeds) in the
// runtime of o.
func runBatch(o *options, specs []bench.Spec) ([]*results.Run, error) {
	if o.runtimeInfo == nil {
		r, err := simRun(specs[0])
		if err != nil {
			return nil, err
		}
		return []*results.Run{r}, nil
	}
	recs, err := rank.RunSeeds(rank.MPI{}, specs, rank.Options{Placement: o.placement})
	for _, r := range recs {
		r.DeltaAuto = o.deltaAuto
		r.DeltaMeasured = o.runtimeInfo.delays
		o.runtimeInfo.records = append(o.runtimeInfo.records, r)
	}
	var ve *rank.ValidationError
	if err != nil && !errors.As(err, &ve) {
		return nil, runError{err}
	}
	return recs, err
}

// runError is a failure of the runtime during a run (not bad input).
type runError struct{ error }

// checkSpec checks s against the runtime of o.
func checkSpec(o *options, s bench.Spec) error {
	if o.runtimeInfo == nil {
		return nil
	}
	if s.Repair {
		return fmt.Errorf("--repair: only the simulator has the repair pass")
	}
	_, _, err := rank.Check(s, o.placement, o.runtimeInfo.ranks)
	return err
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
		f, err := os.Create(o.trace)
		return f, f, err
	}
	var f *os.File
	var err error
	var failed int64
	if ri.rank == 0 {
		if f, err = os.Create(o.trace); err != nil {
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
