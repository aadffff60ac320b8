package main

import (
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
// estimated to need (bench.Memory) from o.budget (--max-memory) before it
// starts: the runs at once fit in the budget together, and one that needs
// the whole budget runs alone.
func runPool(o *options, list []config, bs [][]seedRun, do func(int) ([]*results.Run, error), emit func(int, []*results.Run) error) error {
	cost := func(i int) float64 {
		var need float64
		for _, r := range bs[i] {
			need += bench.Memory(list[r.c].plan)
		}
		return need
	}
	return pool.Run(len(bs), pool.Config{Jobs: o.jobs, Budget: o.budget, Cost: cost}, do, emit)
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
