// Command ocbench benchmarks fault-tolerant distributed mutual exclusion on
// hypercube-shaped systems: the open-cube algorithm of Hélary and Mostefaoui
// and the other token-and-tree algorithms of the general scheme, in a
// deterministic simulator (the default) or on MPI ranks.
//
// Run `ocbench --help` for the flags.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/sim"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// usageError is bad input: it is printed as one line and exits with status 2.
type usageError struct{ error }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	algos    []string
	nodes    []int
	requests int64
	workload string
	seed     uint64
	json     bool
	trace    string
	delta    float64
	csTime   float64
	think    float64
	minDelay float64
	fifo     bool
	check    string
	help     bool
}

func newFlags(o *options) *pflag.FlagSet {
	fs := pflag.NewFlagSet("ocbench", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.StringSliceVar(&o.algos, "algo", []string{"opencube"}, "algorithms, comma-separated: "+strings.Join(bench.AlgorithmNames(), ", ")+", or all")
	fs.IntSliceVar(&o.nodes, "nodes", []int{32}, "numbers of nodes N, comma-separated, each a power of two ≥ 2")
	fs.Int64Var(&o.requests, "requests", 10000, "critical-section requests per run")
	fs.StringVar(&o.workload, "workload", "sequential", "workload: "+strings.Join(bench.Workloads, ", "))
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the run: the same seed replays the same run")
	fs.BoolVar(&o.json, "json", false, `print one JSON object {"runs": [...]} instead of the table`)
	fs.StringVar(&o.trace, "trace", "", "write one JSON line per event to this file (single run only)")
	fs.Float64Var(&o.delta, "delta", bench.DefaultDelta, "δ, the bound on message delay, in seconds")
	fs.Float64Var(&o.csTime, "cs-time", bench.DefaultCSTime, "time a node stays in the critical section, in δ")
	fs.Float64Var(&o.think, "think", 0, "poisson: mean think time between a node's requests, in δ (0: N × cs-time)")
	fs.Float64Var(&o.minDelay, "min-delay", 0, "smallest message delay as a fraction of δ (delays are uniform in [min-delay·δ, δ])")
	fs.BoolVar(&o.fifo, "fifo", false, "FIFO channels (default: non-FIFO, as the papers allow)")
	fs.StringVar(&o.check, "check", "auto", "invariants checked after every step: counts, full, or auto (full for N ≤ 256)")
	fs.BoolVarP(&o.help, "help", "h", false, "print this help")
	return fs
}

const examples = `
Examples:
  ocbench                                        failure-free open-cube, N=32, 10000 sequential requests
  ocbench --algo all --nodes 32,64 --workload saturated
  ocbench --nodes 32 --workload sequential --requests 20000 --seed 1 --json
  ocbench --nodes 16 --requests 5 --trace run.jsonl
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "version" {
		fmt.Fprintln(stdout, versionString())
		return 0
	}
	var o options
	fs := newFlags(&o)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			printHelp(stdout, fs)
			return 0
		}
		fmt.Fprintf(stderr, "ocbench: %v (see ocbench --help)\n", err)
		return 2
	}
	if o.help {
		printHelp(stdout, fs)
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ocbench: unexpected argument %q (see ocbench --help)\n", fs.Arg(0))
		return 2
	}
	code, err := execute(&o, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "ocbench: %v\n", err)
		var ue usageError
		if errors.As(err, &ue) {
			return 2
		}
		return 1
	}
	return code
}

func printHelp(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "ocbench %s: fault-tolerant distributed mutual exclusion on hypercubes\n\n", version)
	fmt.Fprintf(w, "Usage:\n  ocbench [flags]\n  ocbench version\n\nFlags:\n%s%s", fs.FlagUsages(), examples)
}

func versionString() string {
	s := "ocbench " + version
	if bi, ok := debug.ReadBuildInfo(); ok {
		s += " (" + bi.GoVersion
		for _, kv := range bi.Settings {
			if kv.Key == "vcs.revision" {
				s += ", commit " + kv.Value
			}
		}
		s += ")"
	}
	return s + ", MPI support: no"
}

// specs turns the options into the runs to make.
func specs(o *options) ([]bench.Spec, error) {
	algos := o.algos
	if len(algos) == 1 && algos[0] == "all" {
		algos = bench.AlgorithmNames()
	}
	var check sim.Check
	switch o.check {
	case "auto", "counts":
	case "full":
		check = sim.CheckFull
	default:
		return nil, usageError{fmt.Errorf("--check: unknown level %q (allowed: auto, counts, full)", o.check)}
	}
	var out []bench.Spec
	for _, n := range o.nodes {
		for _, a := range algos {
			s := bench.Spec{Algorithm: a, Nodes: n, Requests: o.requests, Workload: o.workload, Seed: o.seed,
				Delta: o.delta, CSTime: o.csTime, Think: o.think, MinDelay: o.minDelay, FIFO: o.fifo, Check: check}
			if o.check == "auto" && n <= bench.FullCheckMaxNodes {
				s.Check = sim.CheckFull
			}
			if err := s.Validate(); err != nil {
				return nil, usageError{err}
			}
			out = append(out, s)
		}
	}
	if o.trace != "" && len(out) != 1 {
		return nil, usageError{fmt.Errorf("--trace: needs a single run (one --algo and one --nodes), got %d runs", len(out))}
	}
	return out, nil
}

func execute(o *options, stdout io.Writer) (int, error) {
	list, err := specs(o)
	if err != nil {
		return 2, err
	}
	var traceFile *os.File
	if o.trace != "" {
		traceFile, err = os.Create(o.trace)
		if err != nil {
			return 2, usageError{fmt.Errorf("--trace: %w", err)}
		}
		defer traceFile.Close()
		list[0].Trace = traceFile
	}
	rep := &results.Report{}
	violations := 0
	for _, s := range list {
		r, err := bench.Run(s)
		if err != nil {
			return 1, fmt.Errorf("run %s N=%d: %w", s.Algorithm, s.Nodes, err)
		}
		violations += r.SafetyViolations + r.LivenessViolations
		rep.Runs = append(rep.Runs, r)
	}
	if traceFile != nil {
		if err := traceFile.Close(); err != nil {
			return 1, fmt.Errorf("--trace: %w", err)
		}
	}
	w := bufio.NewWriter(stdout)
	if o.json {
		err = rep.WriteJSON(w)
	} else {
		err = results.WriteTable(w, header(o, list[0]), results.FailureFreeColumns, rep.Runs)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return 1, err
	}
	if violations > 0 {
		return 1, fmt.Errorf("%d invariant violation(s); the table names the seed to replay", violations)
	}
	return 0, nil
}

func header(o *options, s bench.Spec) []string {
	channels := "non-FIFO"
	if o.fifo {
		channels = "FIFO"
	}
	load := ""
	if o.workload == "poisson" {
		if o.think == 0 {
			load = ", think time exp(mean N × cs-time)"
		} else {
			load = fmt.Sprintf(", think time exp(mean %gδ)", o.think)
		}
	}
	return []string{
		fmt.Sprintf("ocbench %s — runtime: simulator (1 process), failure-free", version),
		fmt.Sprintf("workload %s, %d requests per run%s, CS time %gδ, seed %d", o.workload, o.requests, load, o.csTime, o.seed),
		fmt.Sprintf("δ = %gs (virtual), delays uniform in [%gδ, δ], %s channels, checks: %s", o.delta, o.minDelay, channels, o.check),
		"msg/req: messages per served request, return of a lent token included; wait: enter_cs to entry, in δ",
	}
}
