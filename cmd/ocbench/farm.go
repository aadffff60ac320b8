package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/rank"
	"github.com/ocbench/ocbench/results"
)

// The values of --mpi-mode: how an MPI job maps its runs onto the ranks.
const (
	// modeSplit: every run is split over the ranks, each rank hosting the
	// nodes its placement gives it (rank.Virtual, rank.Runtime).
	modeSplit = "split"
	// modeFarm: a task farm; each run is whole in one rank's simulator,
	// the ranks take runs from a queue that rank 0 serves (rank.Farm).
	modeFarm = "farm"
	// modeAuto: farm for a job of several runs in virtual time, split for
	// one run, or when a flag of the split mapping is given (--clock wall,
	// --placement, --verify).
	modeAuto = "auto"
)

// addMPIModeFlag adds --mpi-mode to fs.
func addMPIModeFlag(fs *pflag.FlagSet, o *options) {
	fs.StringVar(&o.mpiMode, "mpi-mode", modeSplit, "under mpirun: split (each run's nodes spread over the ranks, the placement's mapping), farm (a task farm: every run whole in one rank's simulator, the ranks taking runs from a queue; records and output those of the simulator) or auto (farm for a job of several runs, split for one; split with --clock wall, --placement or --verify)")
}

// farm reports whether the runs are an MPI task farm (--mpi-mode).
func (o *options) farm() bool { return o.runtimeInfo != nil && o.runtimeInfo.farm }

// modeConfigs is configs with the MPI mapping of the runs chosen first
// (--mpi-mode): under farm the runs are the simulator's, so what the
// simulator accepts and its defaults (--check auto: full for N ≤ 256) hold.
// In the simulator --mpi-mode is refused as any MPI flag is (applies.go).
func modeConfigs(o *options, fs *pflag.FlagSet) ([]config, error) {
	ri := o.runtimeInfo
	if ri == nil {
		return configs(o, fs)
	}
	farm := false
	switch o.mpiMode {
	case modeSplit:
	case modeFarm:
		if err := farmRefuses(o, fs); err != nil {
			return nil, usageError{err}
		}
		farm = true
	case modeAuto:
		farm = farmRefuses(o, fs) == nil
	default:
		return nil, usageError{fmt.Errorf("--mpi-mode: unknown mode %q (allowed: %s, %s, %s)", o.mpiMode, modeSplit, modeFarm, modeAuto)}
	}
	if !farm {
		return configs(o, fs)
	}
	ri.farm, o.rt = true, simulator
	list, err := configs(o, fs)
	if err != nil || o.mpiMode == modeFarm || len(list)*o.repeat > 1 {
		return list, err
	}
	ri.farm, o.rt = false, o.mpiRuntime(rank.MPI{}, 0) // auto: one run is split
	return configs(o, fs)
}

// farmRefuses returns why the runs cannot be a task farm: a flag that
// only the split mapping takes.
func farmRefuses(o *options, fs *pflag.FlagSet) error {
	for _, name := range []string{"placement", "verify", "trace"} {
		if fs.Changed(name) {
			return fmt.Errorf("--mpi-mode farm: --%s applies to runs split over the ranks, and a task farm runs each run whole in one rank's simulator; drop --%s or give --mpi-mode split", name, name)
		}
	}
	if o.clock == "wall" {
		return fmt.Errorf("--mpi-mode farm: a task farm runs the simulator (virtual time); --clock wall needs --mpi-mode split")
	}
	return nil
}

// runFarm runs the batches bs (one run each: the simulator's) as an MPI
// task farm (rank.Farm): do runs batch i on whichever rank takes it, and
// rank 0 gets every batch's records, in the order of bs, through emit. A
// record crosses as JSON, whichever rank ran it (rank 0's own too), so the
// records do not depend on where a run ran. A run's failure ends the farm
// as it ends --jobs 1: rank 0 returns the first in the order of bs, with
// its text (a plain error: every rank then finalizes), the other ranks
// nil. Rank 0 serves the queue on the MPI thread while its own runs use a
// second thread (GOMAXPROCS 2 unless the environment sets it).
func runFarm(o *options, bs [][]seedRun, prog *progress, do func(int) ([]*results.Run, error), emit func(int, []*results.Run) error) error {
	if os.Getenv("GOMAXPROCS") == "" && o.runtimeInfo.rank == 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	f := rank.Farm{Comm: rank.MPI{}}
	if prog != nil {
		f.Arrived = func(_ int, b []byte) {
			var recs []*results.Run
			if json.Unmarshal(b, &recs) != nil {
				return // emit reports it
			}
			var p bench.Progress
			for _, r := range recs {
				p.Served += r.RequestsServed
				p.Failures += r.Failures
			}
			p.Runs, p.Done = len(recs), true
			prog.callback()(p)
		}
	}
	return f.Run(len(bs), func(i int) ([]byte, error) {
		recs, err := do(i)
		if err != nil {
			return nil, errors.New(err.Error())
		}
		b, err := json.Marshal(recs)
		if err != nil {
			return nil, fmt.Errorf("encoding the records of batch %d: %w", i, err)
		}
		return b, nil
	}, func(i int, b []byte) error {
		var recs []*results.Run
		if err := json.Unmarshal(b, &recs); err != nil {
			return fmt.Errorf("the records of batch %d: %w", i, err)
		}
		if len(recs) != len(bs[i]) {
			return fmt.Errorf("the records of batch %d: %d, for %d runs", i, len(recs), len(bs[i]))
		}
		return emit(i, recs)
	})
}

// farmHeader is the header's runtime of a task farm.
func farmHeader(ri *runtimeInfo) string {
	lib := ri.library
	if i := strings.IndexAny(lib, ",\n"); i > 0 {
		lib = lib[:i]
	}
	return fmt.Sprintf("MPI task farm, %d ranks (%s), each run in one rank's simulator", ri.ranks, lib)
}
