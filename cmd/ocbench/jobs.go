package main

import (
	"runtime"
	"strings"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/internal/pool"
	"github.com/ocbench/ocbench/results"
)

// runPool runs the batches bs of list on o.jobs workers (internal/pool):
// do runs batch i, emit takes its records. emit gets them in the order of
// bs whatever the order in which the runs end, so the records, the output
// and the saved runs are those of one worker; the first failure in that
// order is the one returned. Each batch reserves the memory its runs are
// estimated to need (bench.Memory) from o.budget (--max-memory, less the
// ballast) before it starts: the runs at once fit in the budget together,
// and one that needs the whole budget runs alone.
func runPool(o *options, list []config, bs [][]seedRun, do func(int) ([]*results.Run, error), emit func(int, []*results.Run) error) error {
	cost := func(i int) float64 {
		var need float64
		for _, r := range bs[i] {
			need += bench.Memory(list[r.c].plan)
		}
		return need
	}
	budget := max(o.budget-float64(ballastSize(o)), 1)
	return pool.Run(len(bs), pool.Config{Jobs: o.jobs, Budget: budget, Cost: cost}, do, emit)
}

// withoutJobs returns args without --jobs and its value: the saved command
// (results.Environment.Command) is the experiment's, which --jobs does not
// change, so that the saved runs are the same on any number of workers.
func withoutJobs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case a == "--jobs" && i+1 < len(args):
			i++
		case strings.HasPrefix(a, "--jobs="):
		default:
			out = append(out, a)
		}
	}
	return out
}

// ballast keeps the collector from running for every few megabytes that
// small runs allocate, which cost a sweep about as much CPU time as the
// runs themselves (--algo ft: 7.4 s of CPU without it, 4.2 s with it, most
// of the difference system time): a live block of ballastBytes per worker
// (o.jobs), allocated and never touched, so that no page of it is faulted
// in. Go counts it in its heap, which then grows to about twice the
// ballast before a collection instead of twice a small run's live data;
// a large run's own heap dwarfs it. Its size comes out of the memory
// budget that the runs at once share (runPool). Only the simulator has
// one, on each rank of a task farm too (--mpi-mode farm); the ranks of an
// MPI job that splits its runs keep their heaps small. Call the function
// returned when the runs are over.
func ballast(o *options) func() {
	if o.runtimeInfo != nil && !o.farm() {
		return func() {}
	}
	b := make([]byte, ballastSize(o))
	return func() { runtime.KeepAlive(b) }
}

// ballastSize is the ballast of o's runs: ballastBytes per worker, at most
// a sixteenth of the memory budget.
func ballastSize(o *options) int {
	return int(min(float64(ballastBytes*max(o.jobs, 1)), o.budget/16))
}

// ballastBytes is the ballast per worker.
const ballastBytes = 32 << 20
