package main

import (
	"fmt"
	"math"

	"github.com/spf13/pflag"
)

// The rule for flags that do not apply to the run (README, "Bounds and
// budget" in the help): a flag given on the command line for a run it
// means nothing to is refused with one line naming the flag and what it
// needs (exit status 2), instead of being ignored; the --think of a
// sequential run ran as if it had not been given. Only flags the user
// gave count (pflag's Changed): a preset's values and the defaults never
// make a refusal. A value the spec reads as "the default" (0) is judged
// the same way.

// runKind is what decides whether a flag applies: the run's workload
// (after the preset), whether it injects crashes or runs a failure
// protocol, and where it runs.
type runKind struct {
	workload  string
	crashes   bool // some configuration injects crashes (--crashes, or the preset's)
	protocol  bool // a failure protocol runs: crashes, or --ft
	late      bool // --delay-violations > 0
	mpi       bool
	transient string
	trace     bool // --trace
}

// conditional is a group of flags that apply only to some runs.
type conditional struct {
	flags   []string
	applies func(k runKind) bool
	// needs says what the flags need, and what this run is.
	needs func(k runKind) string
}

var conditionals = []conditional{
	{[]string{"think"}, func(k runKind) bool { return k.workload == "poisson" },
		func(k runKind) string {
			return fmt.Sprintf("the think time is the poisson workload's, and this run's workload is %s; give --workload poisson or drop it", k.workload)
		}},
	{[]string{"crash-spacing", "crash-every", "crash-start", "downtime", "downtime-dist", "permanent", "crash-target", "no-baseline"},
		func(k runKind) bool { return k.crashes },
		func(runKind) string {
			return "it applies only to runs with crashes; give --crashes N (N ≥ 1) or drop it"
		}},
	{[]string{"cs-estimate", "protocol"}, func(k runKind) bool { return k.protocol },
		func(runKind) string {
			return "it applies only when a failure protocol runs; give --crashes N or --ft, or drop it"
		}},
	{[]string{"late-factor"}, func(k runKind) bool { return k.late },
		func(runKind) string {
			return "it applies only to late messages; give --delay-violations F (F > 0) or drop it"
		}},
	{[]string{"placement"}, func(k runKind) bool { return k.mpi },
		func(runKind) string {
			return "it places nodes on MPI ranks, and this run is in the simulator (one process); run under mpirun or drop it"
		}},
	{[]string{"mpi-mode"}, func(k runKind) bool { return k.mpi },
		func(runKind) string {
			return "it chooses how an MPI job maps its runs onto the ranks, and this run is in the simulator (one process); run under mpirun or drop it"
		}},
	{[]string{"clock", "verify"}, func(k runKind) bool { return k.mpi },
		func(runKind) string {
			return "it chooses how MPI ranks keep time, and this run is in the simulator (one process, virtual time); run under mpirun or drop it"
		}},
	{[]string{"link-cap"}, func(k runKind) bool { return k.transient == "initial" || k.transient == "adversarial" },
		func(runKind) string {
			return "it applies only to --transient initial or adversarial; give one or drop --link-cap"
		}},
	{[]string{"edits", "climb"}, func(k runKind) bool { return k.transient == "initial" || k.transient == "adversarial" },
		func(runKind) string {
			return "it edits an initial configuration: give --transient initial or adversarial, or drop the flag"
		}},
	{[]string{"adversary"}, func(k runKind) bool { return k.transient == "adversarial" },
		func(runKind) string { return "it applies only to --transient adversarial; give it or drop --adversary" }},
	{[]string{"corruptions", "corrupt-every"}, func(k runKind) bool { return k.transient == "during" },
		func(runKind) string { return "it applies only to --transient during; give it or drop the flag" }},
	{[]string{"force"}, func(k runKind) bool { return k.trace },
		func(runKind) string { return "it lets --trace overwrite a file; give --trace FILE or drop it" }},
}

// notApplicable returns an error naming the first flag given on the
// command line that does not apply to a run of kind k.
func notApplicable(fs *pflag.FlagSet, k runKind) error {
	for _, c := range conditionals {
		if c.applies(k) {
			continue
		}
		for _, name := range c.flags {
			if fs.Changed(name) {
				return fmt.Errorf("--%s: %s", name, c.needs(k))
			}
		}
	}
	return nil
}

// checkSeeds refuses a first seed whose run of n seeds (seed, seed+1, …,
// seed+n−1) goes beyond the largest uint64: it wrapped to seed 0. what is
// the flag that sets n.
func checkSeeds(seed uint64, n int, what string) error {
	if n < 1 || seed <= math.MaxUint64-uint64(n-1) {
		return nil
	}
	return fmt.Errorf("--seed: %d with %s %d runs seeds beyond 2^64−1 = %d; give a seed ≤ %d",
		seed, what, n, uint64(math.MaxUint64), uint64(math.MaxUint64)-uint64(n-1))
}
