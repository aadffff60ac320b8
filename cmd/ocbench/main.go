// Command ocbench benchmarks fault-tolerant distributed mutual exclusion on
// hypercube-shaped systems: the open-cube algorithm of Hélary and Mostefaoui
// and the other token-and-tree algorithms of the general scheme, in a
// deterministic simulator (the default) or on MPI ranks.
//
// Run `ocbench --help` for the flags.
package main

import (
	"github.com/ocbench/ocbench/algo"
	_ "github.com/ocbench/ocbench/algo/all" // every algorithm, registered
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/internal/field"
	"github.com/ocbench/ocbench/internal/memsize"
	"github.com/ocbench/ocbench/workload"

	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/mpi"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.2.0-dev"

// usageError is bad input: it is printed as one line and exits with status 2.
type usageError struct{ error }

func main() {
	ignoreSIGPIPE()
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	if _, rank, ok := launcher(); ok && rank != 0 && code == 2 && !mpiStarted {
		// Bad input found before MPI started: rank 0 prints it. Give it
		// time to, since mpirun ends the other ranks once one exits with
		// an error, and may end rank 0 before its line is out.
		time.Sleep(badInputGrace)
	}
	os.Exit(code)
}

// badInputGrace is how long a rank other than 0 waits before it exits on
// bad input found before MPI started.
const badInputGrace = 500 * time.Millisecond

type options struct {
	maxMemory string  // --max-memory ("": memsize.Budget)
	budget    float64 // the memory budget in bytes, from --max-memory
	jobs      int     // --jobs: runs at once in the simulator (0 until configs: the cores)
	preset    string
	algos     []string
	nodes     []int
	requests  int64
	workload  string
	seed      uint64
	repeat    int
	json      bool
	format    string // --format: table, json or kv (--json is --format json)
	started   time.Time
	wide      bool     // --wide: every column, lines as long as they need
	columns   []string // --columns: the table's columns, by key
	trace     string
	delta     float64
	csTime    float64
	// deltaAuto: δ is measured before the runs (--delta auto; MPI only).
	deltaAuto bool
	// clock is the MPI runtime's clock (--clock): virtual or wall; verify
	// replays an MPI job's runs in virtual time in the simulator (--verify).
	clock    string
	verify   bool
	think    float64
	minDelay float64
	fifo     bool
	check    string

	crashes      int
	crashSpacing string
	crashEvery   float64
	crashStart   float64
	downtime     float64
	downtimeDist string
	permanent    float64
	crashTarget  string
	csEstimate   float64
	ft           bool
	late         float64
	lateFactor   float64
	noBaseline   bool
	repair       bool
	protocol     string

	ell          int
	kMax         int
	transient    string
	adversary    string
	edits        string
	climb        int
	timeout      float64
	corruptions  int
	corruptEvery float64
	linkCap      int
	search       int

	runtime   string
	placement string
	mpiMode   string // --mpi-mode: split, farm or auto (farm.go)
	// rt is the runtime that runs the experiments, chosen once (main:
	// the simulator, or runMPI); runtimeInfo describes the MPI job for
	// the header and saved runs (nil in the simulator).
	rt          bench.Runtime
	runtimeInfo *runtimeInfo
	save        saveOptions
	help        bool
	version     bool

	// thinkPerN, if not 0, makes the think time thinkPerN × N × cs-time
	// (a preset's choice; --think overrides it).
	thinkPerN float64
}

func newFlags(o *options) *pflag.FlagSet {
	fs := pflag.NewFlagSet("ocbench", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.StringVar(&o.preset, "preset", "", "a named experiment: ipsc2 (the open-cube paper's iPSC/2 runs; the default with no flags, and with --algo naming only fault-tolerant algorithms, e.g. --algo ft)")
	fs.StringSliceVar(&o.algos, "algo", []string{"opencube"}, "algorithms, comma-separated: "+strings.Join(algo.Ordered(), ", ")+"; all (every mutual-exclusion one), kexclusion (the k-out-of-ℓ ones: "+algo.KExclusionNames()+"), survey (the survey's: "+strings.Join(algo.Survey, ", ")+") or ft (those with a failure protocol: "+strings.Join(algo.FaultTolerant(), ", ")+")")
	fs.IntSliceVar(&o.nodes, "nodes", []int{32}, "numbers of nodes N, comma-separated, each a power of two ≥ 2; in the simulator, any N ≥ 2 for the algorithms that need no hypercube ("+strings.Join(algo.AnySizeNames(), ", ")+")")
	fs.Int64Var(&o.requests, "requests", 10000, "critical-section requests per run (with crashes: at least this many, and until the fault plan is over)")
	fs.StringVar(&o.workload, "workload", "sequential", "workload: "+field.Join(workload.Kinds))
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the run: the same seed replays the same run")
	fs.IntVar(&o.repeat, "repeat", 1, "runs per configuration, with seeds seed, seed+1, …; statistics are pooled")
	fs.IntVar(&o.jobs, "jobs", 0, "runs at once in the simulator, in 0..1024 (0: as many as the machine has cores): the command's runs (seeds, N, algorithms) on this many workers, within --max-memory together; the output and the saved runs are those of --jobs 1 (under mpirun: 1)")
	fs.BoolVar(&o.json, "json", false, `print one JSON object {"runs": [...], "validation": {...}} instead of the table (--format json)`)
	fs.StringVar(&o.format, "format", "table", "what stdout gets: table (for people; its last line is the verdict, VALID: … or INVALID: …), json (as --json) or kv (key: value lines for scripts and harnesses, the verdict last; docs/output.md)")
	fs.BoolVar(&o.wide, "wide", false, fmt.Sprintf("print every column of the table, in lines as long as they need (default: the key columns, in %d columns)", results.Width))
	fs.StringSliceVar(&o.columns, "columns", nil, "the table's columns, comma-separated, in this order (e.g. algorithm,N,msg/cs-mean,p99; a wrong name lists the table's columns)")
	fs.StringVar(&o.trace, "trace", "", "write one JSON line per event to this file (single run only; under mpirun, rank 0 merges every rank's events into it); ocbench check-trace checks it, ocbench view draws it")
	o.delta = bench.DefaultDelta
	fs.Var(deltaFlag{&o.delta, &o.deltaAuto}, "delta", "δ, the bound on message delay: seconds in [1e-9, 1000] (under MPI: 0.004 unless given), or auto (MPI only: measured on the ranks before the runs; docs/mpi.md)")
	floatVar(fs, &o.csTime, "cs-time", bench.DefaultCSTime, floatRange{lo: 0, hi: field.MaxTime, unit: "δ"}, false, "time a node stays in the critical section, in δ, in [0, 1e6] (the saturated workload with crashes: at least 0.001)")
	floatVar(fs, &o.think, "think", 0, floatRange{lo: bench.MinThink, hi: field.MaxTime, unit: "δ; 0: N × cs-time"}, false, "poisson: mean think time between a node's requests, in δ, in [0.001, 1e6] (0: N × cs-time, the same offered load at every N, which may exceed 1e6)")
	floatVar(fs, &o.minDelay, "min-delay", bench.DefaultMinDelay, floatRange{lo: 0, hi: 1, unit: "a fraction of δ"}, false, "smallest message delay as a fraction of δ (delays are uniform in [min-delay·δ, δ]; MPI in virtual time needs at least 0.5)")
	fs.BoolVar(&o.fifo, "fifo", false, "FIFO channels (default: non-FIFO, as the papers allow)")
	fs.StringVar(&o.check, "check", "auto", "invariants checked after every step: counts, full, or auto (full for N ≤ 256)")
	fs.IntVar(&o.crashes, "crashes", 0, "node crashes to inject, 0..1000000 (algorithms with a failure protocol: "+strings.Join(algo.FaultTolerant(), ", ")+"; 2 nodes stay up at all times, so N ≥ 4: a crash waits for a recovery while only 2 are up)")
	fs.StringVar(&o.crashSpacing, "crash-spacing", "exp", "gaps between crashes: exp (exponential, mean --crash-every) or fixed")
	floatVar(fs, &o.crashEvery, "crash-every", 200, floatRange{lo: faults.MinGap, hi: field.MaxTime, unit: "δ"}, false, "mean (or fixed) gap between crashes, in δ, in [0.001, 1e6]")
	floatVar(fs, &o.crashStart, "crash-start", 0, floatRange{lo: 0, hi: field.MaxTime, unit: "δ"}, false, "time from which crash gaps are counted, in δ, in [0, 1e6]")
	floatVar(fs, &o.downtime, "downtime", 20, floatRange{lo: faults.MinGap, hi: field.MaxTime, unit: "δ"}, false, "downtime of a crashed node, in δ, in [0.001, 1e6]: mean (exp) or exact (fixed)")
	fs.StringVar(&o.downtimeDist, "downtime-dist", "exp", "downtime distribution: exp or fixed")
	floatVar(fs, &o.permanent, "permanent", 0, floatRange{lo: 0, hi: 1, unit: "a fraction"}, false, "fraction of crashes from which the node never recovers, in [0, 1]; at most N−3 nodes go down for good (so 2 stay up and a third can recover): a plan that expects more is refused, and a crash drawn permanent beyond that recovers after its downtime")
	fs.StringVar(&o.crashTarget, "crash-target", "random", "crash victims: "+field.Join(faults.Targets))
	floatVar(fs, &o.csEstimate, "cs-estimate", 0, floatRange{lo: 0, hi: field.MaxTime, unit: "δ; 0: cs-time"}, false, "the root's estimate e of a critical section, in δ, in [0, 1e6] (0: cs-time)")
	fs.BoolVar(&o.ft, "ft", false, "run the algorithm's failure protocol (its timers, searches, detection traffic) even without crashes (fault-tolerant algorithms only)")
	floatVar(fs, &o.late, "delay-violations", 0, floatRange{lo: 0, hi: 1, unit: "a fraction"}, false, "fraction of messages delayed beyond δ on purpose (safety rests on δ: this shows what breaks)")
	floatVar(fs, &o.lateFactor, "late-factor", 10, floatRange{lo: 1, hi: field.MaxTime, openLo: true, unit: "a multiple of δ"}, false, "a late message's delay is uniform in (δ, late-factor·δ]; late-factor in (1, 1e6]")
	fs.BoolVar(&o.noBaseline, "no-baseline", false, "skip the crash-free baseline run (no differential overhead)")
	fs.StringVar(&o.protocol, "protocol", string(bench.ProtocolOCBench), "the open-cube failure protocol: ocbench (the project's: requesters watch the holders of their requests, confirmed regeneration), paper (§5 as written: suspicion on a 2·pmax·δ clock, regeneration at once; with equal phases the larger id takes the smaller as its father, the tie-break's stated outcome) or paper-mechanism (the same with the larger id silent, the mechanism of the tie-break's example); both paper readings can make two tokens, docs/failures.md")
	fs.BoolVar(&o.repair, "repair", false, "with crashes: after the workload every live node requests once more, one at a time, and the father relation must then be an open-cube (a broken one is a violation)")
	fs.IntVar(&o.ell, "ell", 0, fmt.Sprintf("k-exclusion (kofl): ℓ, the units of the resource (tokens), in 1..%d (0: %d)", bench.MaxEll, bench.DefaultEll))
	fs.IntVar(&o.kMax, "k-max", 0, "k-exclusion (kofl): K, the most units a request asks for, in 1..ℓ (0: ℓ); each request asks for k in 1..K, drawn from the seed and its serial")
	fs.StringVar(&o.transient, "transient", "none", "transient faults of a self-stabilizing algorithm (kofl): none, initial (an arbitrary initial configuration: every variable drawn from its domain, every link filled with junk up to --link-cap), during (--corruptions events: nodes' states scrambled, messages duplicated or destroyed, junk injected) or adversarial (an adversarial initial configuration: --adversary); all from the seed")
	fs.StringVar(&o.adversary, "adversary", "", "--transient adversarial: the configuration ("+adversaryHelp()+"); unset, each seed takes its turn among them")
	fs.StringVar(&o.edits, "edits", "", "--transient initial or adversarial: edits of the initial configuration, nK@S (node K's state re-drawn from seed S) or lK@S (the link out of node K), comma-separated: what --climb prints to replay the worst configuration it found")
	fs.IntVar(&o.climb, "climb", 0, "worst-case climb: this many edits of the initial configuration (--transient initial or adversarial), each kept if stabilization takes no fewer asynchronous rounds; prints the worst found with its replay command")
	floatVar(fs, &o.timeout, "timeout", 0, floatRange{text: "the algorithm's range (" + timeoutHelp() + ")"}, false, "the time-out of an algorithm that takes one as a parameter ("+timeoutHelp()+")")
	fs.IntVar(&o.corruptions, "corruptions", faults.DefaultCorruptions, "--transient during: the number of corruption events, in 1..1000000")
	floatVar(fs, &o.corruptEvery, "corrupt-every", faults.DefaultCorruptEvery, floatRange{lo: 0, hi: field.MaxTime, openLo: true, unit: "δ"}, false, "--transient during: mean gap between corruption events (exponential), in δ, in (0, 1e6]")
	fs.StringVar(&o.maxMemory, "max-memory", "", "memory budget of a run: one estimated to need more is refused (bytes, or with K, M, G, T; default half the machine's memory, MemTotal in /proc/meminfo, else 4G)")
	fs.IntVar(&o.linkCap, "link-cap", faults.DefaultLinkCap, fmt.Sprintf("--transient initial: a link's capacity: 0..link-cap junk messages on each link, link-cap in 1..%d", faults.MaxLinkCap))
	fs.IntVar(&o.search, "search", 0, "worst-case search: run this many seeds from --seed (each a different arbitrary configuration or fault plan) and report the worst stabilization with its seed and replay command (a random search; like --repeat, with the worst run singled out)")
	fs.StringVar(&o.clock, "clock", "virtual", "under mpirun: virtual (the ranks replay the simulator's run of the seed exactly, on any machine) or wall (real time and delays, δ verdicts, --delta auto; for a core per rank)")
	fs.BoolVar(&o.verify, "verify", true, "under mpirun in virtual time: replay every run in the simulator on rank 0 and require the same record (--verify=false skips it)")
	fs.StringVar(&o.runtime, "runtime", "auto", "where nodes run: sim (one process), mpi (the ranks of an MPI job), or auto (mpi when started by mpirun)")
	fs.StringVar(&o.placement, "placement", hypercube.Placements[0], "MPI: how nodes map onto ranks: block (node i on rank i/(N/P)) or cyclic (rank i mod P); both keep hypercube links on rank links")
	addMPIModeFlag(fs, o)
	addSaveFlags(fs, &o.save)
	fs.BoolVarP(&o.help, "help", "h", false, "print this help")
	fs.BoolVarP(&o.version, "version", "v", false, "print the version (as ocbench version)")
	return fs
}

// maxJobs is the most workers --jobs takes.
const maxJobs = 1024

// limits is the help's paragraph on the bounds of the flags and the budget
// of a run (field.MaxTime, bench.MinThink, faults.MinUp, budgetFor).
const limits = `
Bounds and budget:
  A value out of its range (given with each flag above) is refused: one line naming the flag and the
  range, exit status 2. Times in δ are at most 1e6 (the default poisson think time N × cs-time may be
  more, at N ≥ 2^20); the poisson think time, given or N × cs-time (or 10 × N × cs-time in the ipsc2
  preset), is at least 0.001δ, so that virtual time moves on.
  A flag given for a run it does not apply to is refused the same way, not ignored: --think without
  the poisson workload; --crash-spacing, --crash-every, --crash-start, --downtime, --downtime-dist,
  --permanent, --crash-target and --no-baseline without crashes; --cs-estimate and --protocol without
  --crashes or --ft; --late-factor without --delay-violations; --placement, --clock, --verify or --mpi-mode outside MPI; --link-cap
  without --transient initial or adversarial, --adversary without --transient adversarial, --edits and
  --climb without --transient initial or adversarial,
  --corruptions and --corrupt-every without --transient during; --force
  without --trace. Only the flags given count: a preset's values and the defaults are never refused.
  --seed S with --repeat R (or --search R) needs S + R − 1 ≤ 2^64 − 1.
  Crashes keep 2 nodes up at all times: a crash waits for a recovery while only 2 are up, and at most
  N−3 nodes go down for good.
  Every simulated run has a budget of steps and of virtual time, 16 times what its workload and fault
  plan need: a run that spends it is stopped and reported as a liveness violation, with the command that
  replays it (exit status 1). A crash run whose crash-free baseline ends with a violation fails the same
  way ("baseline: …"), with no differential overhead.
`

const examples = `
Examples:
  ocbench                                   the ipsc2 preset: N=32 with 300 crashes, N=64 with 200, beside the paper
                                            (saved as runs/<date>-ipsc2-seed1.json and a row per run in runs/runs.csv)
  ocbench --algo ft                         the ipsc2 experiment for every algorithm with a failure protocol
  ocbench --algo all --nodes 32,64 --workload saturated          failure-free: every algorithm, messages per request
  ocbench --nodes 32 --workload sequential --requests 20000 --seed 1 --json   the JSON record on stdout
  ocbench --algo all --nodes 64 --requests 2000 --wide           every column (default: the key ones, in 100 columns)
  ocbench --nodes 64 --requests 2000 --columns algorithm,N,msg/cs-mean,p99,max   the columns named, in order
  ocbench --nodes 64 --workload poisson --crashes 100 --crash-target token    crashes aimed at the token holder
  ocbench --preset ipsc2 --delay-violations 0.01                 break the δ bound on purpose
  ocbench --algo kofl --nodes 16 --ell 5 --k-max 3 --transient initial --requests 500 --repeat 100
                                            self-stabilizing k-out-of-ℓ exclusion from 100 arbitrary configurations:
                                            stabilization time in CToken traversals and δ, beside the paper's 5
  ocbench --nodes 16 --requests 5 --trace run.jsonl --no-save    one JSON line per event, nothing saved
  ocbench check-trace run.jsonl                                  check a trace (message order, mutual exclusion, …)
  ocbench view run.jsonl                                         run.html: watch the run in a browser (offline, one file)
  ocbench --preset ipsc2 --out /tmp/runs --quiet                 save under /tmp/runs/runs/, no progress bar
  ocbench report runs/                                           a report with plots of the saved runs (ocbench report --help)
  ocbench --algo list                                            the algorithms and their groups (all, survey, ft, kexclusion)
  ocbench version                                                version, commit, Go version, MPI support (also --version, -v)
`

func run(args []string, stdout, stderr io.Writer) int {
	if _, rank, ok := launcher(); ok && rank != 0 {
		// Under mpirun every rank finds the same bad input; rank 0 says it.
		stdout, stderr = io.Discard, io.Discard
	}
	if len(args) > 0 {
		if sub := subcommands[args[0]]; sub != nil {
			// A subcommand runs in one process (under mpirun, on rank 0
			// once every rank agrees: runAlone).
			return runAlone(args, stdout, stderr, func(stdout, stderr io.Writer) int {
				return sub(args[1:], stdout, stderr)
			})
		}
	}
	var o options
	fs := newFlags(&o)
	fs.SetOutput(io.Discard)
	help := func(stdout, _ io.Writer) int {
		printHelp(stdout, fs)
		return 0
	}
	if len(args) == 1 && args[0] == "help" {
		return runAlone(args, stdout, stderr, help)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return runAlone(args, stdout, stderr, help)
		}
		err = parseError(err)
		if mpiJob() { // the other ranks may have accepted theirs
			return runMPI(&o, fs, stdout, stderr, fmt.Errorf("%w (see ocbench --help)", err))
		}
		fmt.Fprintf(stderr, "ocbench: %v (see ocbench --help)\n", err)
		return 2
	}
	if o.help {
		return runAlone(args, stdout, stderr, help)
	}
	if o.version {
		return runAlone(args, stdout, stderr, func(stdout, stderr io.Writer) int {
			if fs.NFlag() > 1 || fs.NArg() > 0 {
				fmt.Fprintf(stderr, "ocbench: --version: it prints the version and takes no other flag or argument\n")
				return 2
			}
			fmt.Fprintln(stdout, versionString())
			return 0
		})
	}
	if len(o.algos) == 1 && o.algos[0] == "list" && fs.NFlag() == 1 && fs.NArg() == 0 {
		return runAlone(args, stdout, stderr, func(stdout, _ io.Writer) int {
			printAlgorithms(stdout)
			return 0
		})
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected argument %q (see ocbench --help)", fs.Arg(0))
		if mpiJob() {
			return runMPI(&o, fs, stdout, stderr, err)
		}
		fmt.Fprintf(stderr, "ocbench: %v\n", err)
		return 2
	}
	o.save.args = withoutJobs(args)
	if defaultsToPreset(fs, o.algos) {
		o.preset = "ipsc2"
	}
	if viaMPI, err := useMPI(&o); err != nil && mpiJob() {
		return runMPI(&o, fs, stdout, stderr, err)
	} else if err != nil {
		fmt.Fprintf(stderr, "ocbench: %v\n", err)
		return 2
	} else if viaMPI {
		return runMPI(&o, fs, stdout, stderr, nil)
	}
	if o.deltaAuto {
		fmt.Fprintf(stderr, "ocbench: %v\n", errDeltaAuto)
		return 2
	}
	o.rt = simulator
	code, err := execute(&o, fs, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "ocbench: %v\n", err)
	}
	return code
}

// subcommands are the commands other than the benchmark, by their first
// argument: each runs in one process.
var subcommands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"version":     runVersion,
	"report":      runReport,
	"check-trace": runCheckTrace,
	"view":        runView,
	"explore":     runExplore,
}

// runVersion is `ocbench version`: it prints the version.
func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "ocbench version: unexpected argument %q (it takes none)\n", args[0])
		return 2
	}
	fmt.Fprintln(stdout, versionString())
	return 0
}

func printHelp(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "ocbench %s: fault-tolerant distributed mutual exclusion on hypercubes\n\n", version)
	fmt.Fprintf(w, "Usage:\n  ocbench [flags]\n  ocbench report [flags] FILE|DIR…\n  ocbench check-trace [--k-exclusion] FILE…\n  ocbench view [-o PAGE] TRACE\n  ocbench explore [flags] (docs/explore.md)\n  ocbench version\n\nFlags:\n%s%s%s", flagUsages(fs), limits, examples)
}

func versionString() string {
	s := "ocbench " + version
	s += " (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	if c := commit(); c != "" {
		s += ", commit " + c
	}
	s += ")"
	if mpi.Compiled() {
		return s + ", MPI support: yes (" + mpi.LibraryVersion() + ")"
	}
	return s + ", MPI support: no"
}

// config is one configuration to run, with its repetitions.
type config struct {
	spec  bench.Spec
	plan  *bench.Plan // spec resolved
	paper float64     // the paper's figure, 0 if none
}

// configs turns the options into the configurations to run.
func configs(o *options, fs *pflag.FlagSet) ([]config, error) {
	var check bench.Check
	switch o.check {
	case "auto", "counts":
	case "full":
		check = bench.CheckFull
	default:
		return nil, usageError{fmt.Errorf("--check: unknown level %q (allowed: auto, counts, full)", o.check)}
	}
	if o.repeat < 1 || o.repeat > 10000 {
		return nil, usageError{fmt.Errorf("--repeat: %d is not in 1..10000", o.repeat)}
	}
	if o.search != 0 {
		switch {
		case o.search < 1 || o.search > 1000000:
			return nil, usageError{fmt.Errorf("--search: %d is not in 1..1000000", o.search)}
		case fs.Changed("repeat"):
			return nil, usageError{fmt.Errorf("--search: it runs its own seeds; drop --repeat")}
		case o.transient == "none" || o.transient == "":
			return nil, usageError{fmt.Errorf("--search: the worst-case search is over transient faults; give --transient initial or during")}
		}
		o.repeat = o.search
	}
	seedsFlag := "--repeat"
	if o.search != 0 {
		seedsFlag = "--search"
	}
	if err := checkSeeds(o.seed, o.repeat, seedsFlag); err != nil {
		return nil, usageError{err}
	}
	// The spec reads 0 as the default: refuse an explicit 0.
	switch {
	case o.corruptions == 0:
		return nil, usageError{fmt.Errorf("--corruptions: 0 is not in 1..%d", faults.MaxCrashes)}
	case o.corruptEvery == 0:
		return nil, usageError{fmt.Errorf("--corrupt-every: 0 is not in (0, %s] (δ)", num(field.MaxTime))}
	case o.linkCap == 0:
		return nil, usageError{fmt.Errorf("--link-cap: 0 is not in 1..%d", faults.MaxLinkCap)}
	}
	named := map[string]bool{} // algorithms named, not from a group
	for _, a := range o.algos {
		named[a] = true
	}
	type shape struct {
		algo    string
		nodes   int
		crashes int
	}
	var shapes []shape
	switch o.preset {
	case "":
		algos := expandAlgos(o.algos)
		for _, n := range o.nodes {
			for _, a := range algos {
				shapes = append(shapes, shape{a, n, o.crashes})
			}
		}
	case "ipsc2":
		for _, name := range []string{"nodes", "crashes"} {
			if fs.Changed(name) {
				return nil, usageError{fmt.Errorf("--%s: the ipsc2 preset fixes it (N=32 with 300 crashes and N=64 with 200); drop --preset to choose", name)}
			}
		}
		algos := expandAlgos(o.algos)
		for _, a := range algos {
			if !slices.Contains(algo.FaultTolerant(), a) {
				return nil, usageError{fmt.Errorf("--algo: the ipsc2 preset injects crashes, and %s has no failure protocol (fault-tolerant: %s, or ft for all)", a, strings.Join(algo.FaultTolerant(), ", "))}
			}
		}
		for _, a := range algos {
			for _, f := range results.IPSC2 {
				shapes = append(shapes, shape{a, f.Nodes, f.Failures})
			}
		}
		applyIPSC2(o, fs)
	default:
		return nil, usageError{fmt.Errorf("--preset: unknown preset %q (allowed: ipsc2)", o.preset)}
	}
	if len(expandAlgos(o.algos)) == 0 { // --algo "": nothing to run
		return nil, usageError{fmt.Errorf("--algo: no algorithm named (allowed: %s; or all, kexclusion, survey, ft)", strings.Join(algo.Ordered(), ", "))}
	}
	kind := runKind{workload: o.workload, protocol: o.ft, late: o.late != 0, mpi: o.runtimeInfo != nil, transient: o.transient, trace: o.trace != ""}
	for _, sh := range shapes {
		kind.crashes = kind.crashes || sh.crashes > 0
	}
	kind.protocol = kind.protocol || kind.crashes
	if err := notApplicable(fs, kind); err != nil {
		return nil, usageError{err}
	}
	if o.lateFactor == 0 { // the spec reads 0 as the default, 10
		return nil, usageError{fmt.Errorf("--late-factor: 0 is not in (1, %s] (a multiple of δ)", num(field.MaxTime))}
	}
	if o.jobs < 0 || o.jobs > maxJobs {
		return nil, usageError{fmt.Errorf("--jobs: %d is not in 0..%d", o.jobs, maxJobs)}
	}
	if o.jobs == 0 {
		o.jobs = runtime.NumCPU()
	}
	var out []config
	budget := memsize.Budget()
	if o.maxMemory != "" {
		b, err := memsize.Parse(o.maxMemory)
		if err != nil {
			return nil, usageError{fmt.Errorf("--max-memory: %w", err)}
		}
		budget = b
	}
	o.budget = budget
	for _, sh := range shapes {
		think := o.think
		if o.thinkPerN != 0 { // a multiple of N·cs-time (presets)
			think = o.thinkPerN * float64(sh.nodes) * o.csTime
		}
		if err := checkThink(o, sh.nodes, think); err != nil {
			return nil, usageError{err}
		}
		s := bench.Spec{Algorithm: sh.algo, Nodes: sh.nodes, Requests: o.requests, Workload: workload.Kind(o.workload), Seed: o.seed,
			Delta: o.delta, CSTime: o.csTime, Think: think, MinDelay: o.minDelay, FIFO: o.fifo, Check: check,
			Faults: faults.FaultPlan{Crashes: sh.crashes, Spacing: faults.Dist(o.crashSpacing), Every: o.crashEvery, Start: o.crashStart,
				Down: o.downtime, DownDist: faults.Dist(o.downtimeDist), Permanent: o.permanent, Target: faults.Target(o.crashTarget)},
			FT: o.ft, CSEstimate: o.csEstimate, LateFraction: o.late, LateFactor: o.lateFactor, NoBaseline: o.noBaseline, Repair: o.repair, Protocol: bench.Protocol(o.protocol)}
		// --ell, --k-max and --transient go to the algorithms that take
		// them, and to any algorithm named (which Validate then refuses).
		if named[sh.algo] || algo.IsKExclusion(sh.algo) {
			s.Ell, s.KMax = o.ell, o.kMax
		}
		if named[sh.algo] || algo.IsSelfStabilizing(sh.algo) {
			edits, err := faults.ParseEdits(o.edits)
			if err != nil {
				return nil, usageError{fmt.Errorf("--edits: %w", err)}
			}
			s.Transient = faults.TransientPlan{Mode: faults.TransientMode(o.transient), Events: o.corruptions, Every: o.corruptEvery, LinkCap: o.linkCap, Adversary: o.adversary, Edits: edits}
			s.Timeout = o.timeout
		}
		if o.check == "auto" && sh.nodes <= bench.FullCheckMaxNodes && !o.virtualMPI() {
			s.Check = bench.CheckFull
		}
		if err := s.Validate(); err != nil { // as given: a zero flag is no default here (--delta 0)
			return nil, usageError{flagError(err)}
		}
		plan, err := s.Resolve()
		if err != nil {
			return nil, usageError{flagError(err)}
		}
		if err := checkSpec(o, s); err != nil {
			return nil, usageError{flagError(err)}
		}
		if err := plan.Budget(budget); err != nil {
			return nil, usageError{err}
		}
		c := config{spec: s, plan: plan}
		if r, ok := plan.Registered.(algo.ReferenceAlgorithm); ok && r.Reference() && sh.crashes > 0 { // the paper's figures are the reference algorithm's
			c.paper, _ = results.PaperPerFailure(sh.nodes)
		}
		out = append(out, c)
	}
	if o.trace != "" && (len(out) != 1 || o.repeat != 1) {
		return nil, usageError{fmt.Errorf("--trace: needs a single run (one --algo, one --nodes, --repeat 1), got %d", len(out)*o.repeat)}
	}
	return out, nil
}

// checkThink refuses a poisson think time out of bench.Validate's bounds
// when a preset or the default (N × cs-time) chose it: with --cs-time 0 it
// was 0, and the run never ended (a node holding the token entered the
// critical section again at the same instant, for ever). bench.Validate
// checks a think time given with --think.
func checkThink(o *options, nodes int, think float64) error {
	if o.workload != "poisson" || (think != 0 && o.thinkPerN == 0) {
		return nil
	}
	what := fmt.Sprintf("the default think time N × cs-time = %d × %s", nodes, num(o.csTime))
	if o.thinkPerN != 0 {
		what = fmt.Sprintf("the %s preset's think time %s × N × cs-time = %s × %d × %s", o.preset, num(o.thinkPerN), num(o.thinkPerN), nodes, num(o.csTime))
	} else {
		think = float64(nodes) * o.csTime
	}
	if hi := bench.MaxThink(nodes, o.csTime); think >= bench.MinThink && think <= hi {
		return nil
	}
	return fmt.Errorf("--think: %s = %sδ is not in [%s, %s] (δ); give --think, or a --cs-time that puts it in range",
		what, num(think), num(bench.MinThink), num(bench.MaxThink(nodes, o.csTime)))
}

// applyIPSC2 sets the ipsc2 preset's parameters, except those given as flags.
// Why these values: README, "The iPSC/2 experiment".
func applyIPSC2(o *options, fs *pflag.FlagSet) {
	set := func(name string, f func()) {
		if !fs.Changed(name) {
			f()
		}
	}
	set("workload", func() { o.workload = "poisson" })
	set("requests", func() { o.requests = 1 })
	set("repeat", func() { o.repeat = 5 })    // under MPI too: the seeds run at once (rank.RunSeeds)
	set("think", func() { o.thinkPerN = 10 }) // 10·N·cs-time, set per N in configs
	set("crash-every", func() { o.crashEvery = 50 })
	set("downtime", func() { o.downtime = 20 })
}

func execute(o *options, fs *pflag.FlagSet, stdout, stderr io.Writer) (int, error) {
	o.started = clock()
	list, err := modeConfigs(o, fs)
	var tab *table
	if err == nil {
		if tab, err = chooseTable(o, fs, list); err != nil {
			err = usageError{err}
		}
	}
	var sv *saver
	if err == nil {
		sv, err = newSaver(&o.save, fs, stderr)
	}
	if o.runtimeInfo != nil {
		err = agreeRanks(o, fs, list, err) // every rank agrees, or stops (bad input on any rank)
	}
	if err != nil {
		return 2, err // an --out that cannot be written is bad input, found before anything runs
	}
	if fs.Changed("climb") {
		if err := checkClimb(o, list); err != nil {
			return 2, usageError{err}
		}
		return runClimb(o, list, stdout, stderr)
	}
	if o.runtimeInfo != nil && o.deltaAuto {
		if err := measureDelta(o, list, stderr); err != nil {
			return 1, err
		}
	}
	if o.runtimeInfo != nil {
		warnLong(o, list, stderr)
	}
	prog := newProgress(o.save.quiet, stderr, list, o.repeat)
	var traceFile *os.File
	if o.trace != "" {
		var w io.Writer
		traceFile, w, err = openTrace(o)
		if err != nil {
			return 2, usageError{fmt.Errorf("--trace: %w", err)}
		}
		if traceFile != nil {
			defer traceFile.Close()
		}
		list[0].spec.Trace, list[0].spec.TraceTree = w, true
	}
	done := &finished{runs: make([][]*results.Run, len(list))}
	defer ballast(o)()
	it := &interrupted{o: o, list: list, done: done, sv: sv, prog: prog, trace: traceFile, stderr: stderr}
	release, stop := catchInterrupts(it)
	defer stop()
	rep := &results.Report{}
	violations := 0
	all, err := runAll(o, list, prog, done)
	release()
	if err != nil {
		prog.finish()
		return 1, err
	}
	for ci, c := range list {
		if o.runtimeInfo != nil && o.runtimeInfo.rank != 0 {
			break // the records are rank 0's
		}
		r := results.Merge(all[ci])
		if err := checkParity(o, c.spec, r); err != nil {
			prog.finish()
			return 1, printInvalid(o, stdout, err)
		}
		if err := checkIdentical(o, c.spec, all[ci], r); err != nil {
			prog.finish()
			return 1, printInvalid(o, stdout, err)
		}
		if c.paper > 0 {
			r.Paper = &results.PaperComparison{PerFailure: c.paper, Ratio: r.OverheadPerFailure.Mean / c.paper}
		}
		violations += r.SafetyViolations + r.LivenessViolations
		rep.Runs = append(rep.Runs, r)
	}
	prog.finish()
	var traceErr error
	if traceFile != nil {
		if err := traceFile.Close(); err != nil {
			traceErr = fmt.Errorf("--trace: %w", err)
		}
	}
	if o.runtimeInfo != nil && o.runtimeInfo.rank != 0 {
		return 0, nil
	}
	// Saved before anything is printed: a stdout that fails (a full
	// disk, a closed pipe) loses no run, nor does a trace that could not
	// be written whole.
	v := results.Validate(rep.Runs, o.repeat, o.virtualMPI() && o.verify)
	rep.Validation = &v
	saved, saveErr := sv.save(o, list, rep, stderr)
	w := bufio.NewWriter(stdout)
	switch o.format {
	case "json":
		err = rep.WriteJSON(w)
	case "kv":
		err = results.WriteKV(w, kvHead(o, list), rep.Runs, v)
	default:
		err = tab.write(w, header(o, list), rep.Runs)
		if err == nil {
			err = writeStabilization(w, list, rep.Runs, tab.width())
		}
		if err == nil {
			_, err = fmt.Fprintln(w, v.Line())
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return 1, outputError(err, saved, saveErr, stderr)
	}
	if saveErr != nil {
		return 1, saveErr
	}
	if traceErr != nil {
		return 1, traceErr
	}
	if violations > 0 {
		return 1, fmt.Errorf("%d invariant violation(s); the output names the seed to replay", violations)
	}
	return 0, nil
}

func header(o *options, list []config) []string {
	s := list[0].spec
	channels := "non-FIFO"
	var forced []string
	for _, c := range list {
		if a := c.spec.Algorithm; algo.NeedsFIFO(a) && !slices.Contains(forced, a) {
			forced = append(forced, a)
		}
	}
	switch {
	case o.fifo:
		channels = "FIFO"
	case len(forced) > 0:
		channels = fmt.Sprintf("non-FIFO (FIFO for %s: it assumes FIFO)", strings.Join(forced, ", "))
	}
	load := ""
	if s.Workload == "poisson" {
		switch {
		case o.thinkPerN != 0:
			load = fmt.Sprintf(", think time exp(mean %g × N × cs-time)", o.thinkPerN)
		case o.think == 0:
			load = ", think time exp(mean N × cs-time)"
		default:
			load = fmt.Sprintf(", think time exp(mean %gδ)", o.think)
		}
	}
	what := "failure-free"
	if s.Faults.Crashes > 0 {
		what = "with crashes"
	}
	if s.Transient.On() {
		what = "with transient faults"
	}
	if o.preset != "" {
		what += ", preset " + o.preset
	}
	seeds := fmt.Sprintf("seed %d", o.seed)
	if o.repeat > 1 {
		seeds = fmt.Sprintf("seeds %d..%d", o.seed, o.seed+uint64(o.repeat)-1)
	}
	requests := fmt.Sprintf("%d requests per run", s.Requests)
	if s.Faults.Crashes > 0 {
		requests = fmt.Sprintf("requests until the fault plan is over (at least %d)", s.Requests)
	}
	e := s.CSEstimate
	if e == 0 {
		e = s.CSTime
	}
	rt := "simulator (1 process)"
	timing := fmt.Sprintf("δ = %gs (virtual), delays uniform in [%gδ, δ], %s channels, checks: %s", s.Delta, s.MinDelay, channels, o.check)
	if o.farm() {
		rt = farmHeader(o.runtimeInfo)
	}
	if ri := o.runtimeInfo; ri != nil && !ri.farm {
		lib := ri.library
		if i := strings.IndexAny(lib, ",\n"); i > 0 {
			lib = lib[:i]
		}
		rt = fmt.Sprintf("MPI, %d ranks (%s), placement %s", ri.ranks, lib, ri.placement)
		if o.virtualMPI() {
			rt = fmt.Sprintf("MPI in virtual time, %d ranks (%s), placement %s", ri.ranks, lib, ri.placement)
		}
		if b := batches(o, list); len(b[0]) > 1 {
			rt += fmt.Sprintf(", %d runs at once in %d job(s)", len(b[0]), len(b))
		}
		checks := "no two nodes in the CS (from every entry and exit)"
		if algo.IsKExclusion(s.Algorithm) {
			checks = "at most ℓ units in use (from every entry and exit; off with transient faults)"
		}
		timing = fmt.Sprintf("δ = %gs (wall-clock timers), real delays (measured), FIFO between ranks, checks: %s", s.Delta, checks)
		if ri.delays != nil {
			timing = deltaLine(ri.delays) + ", wall-clock timers, FIFO between ranks, checks: " + checks
		}
		if o.virtualMPI() {
			timing = fmt.Sprintf("δ = %gs (virtual), delays uniform in [%gδ, δ], %s channels, checks: counts after every step of a rank's nodes, and the whole run's critical sections and tokens at every window boundary (%gδ)",
				s.Delta, s.MinDelay, channels, bench.Width(s)/s.Delta)
			if algo.IsSelfStabilizing(s.Algorithm) {
				timing = fmt.Sprintf("δ = %gs (virtual), delays uniform in [%gδ, δ], %s channels, checks: the legitimacy predicate and ≤ ℓ units in use after every step of the whole run, on rank 0's mirror of it",
					s.Delta, s.MinDelay, channels)
			}
		}
	}
	h := []string{
		fmt.Sprintf("ocbench %s — runtime: %s, %s", version, rt, what),
		fmt.Sprintf("workload %s, %s%s, CS time %gδ, %s", s.Workload, requests, load, s.CSTime, seeds),
		whatRan(list, o.runtimeInfo),
		timing,
	}
	// In virtual time the record is the simulator's, stabilization
	// included (rank 0's mirror: docs/mpi.md).
	h = append(h, kexclusionLines(list, o.runtimeInfo != nil && !o.virtualMPI() && !o.farm())...)
	if s.Faults.Crashes > 0 {
		plan := s.Faults
		plan.Crashes = 0
		var crashes []string
		for _, c := range list {
			if d := fmt.Sprintf("%d (N=%d)", c.spec.Faults.Crashes, c.spec.Nodes); !slices.Contains(crashes, d) {
				crashes = append(crashes, d)
			}
		}
		plan.Crashes = list[0].spec.Faults.Crashes
		h = append(h, "fault plan: "+strings.Replace(plan.String(), fmt.Sprintf("%d crashes", plan.Crashes), strings.Join(crashes, ", ")+" crashes", 1))
		h = append(h, protocolLines(list, e)...)
		h = append(h, "overhead/failure: failure-cause messages per crash (enquiries, tests, answers, anomalies, re-issued requests, regenerated tokens), ±95% CI over failures",
			"differential: (messages − same seeds without crashes) / failures, ±95% CI over seeds; it is negative when crashes remove more traffic than their handling adds (a down node neither asks nor answers, requests are lost)",
			"msg/CS: messages of the failure-free protocol per served request, return of a lent token included")
		h = append(h, suspicionLines(list)...)
		if s.LateFraction > 0 {
			h = append(h, fmt.Sprintf("DELAY VIOLATIONS ON PURPOSE: %g of messages delayed up to %gδ; safety is not guaranteed", s.LateFraction, s.LateFactor))
		}
	} else if !s.Transient.On() {
		if s.FT {
			h = append(h, protocolLines(list, e)...)
			h = append(h, "detection/req: heartbeats and chases per served request")
			h = append(h, suspicionLines(list)...)
		}
		h = append(h, "msg/CS: messages per served request, return of a lent token included; stated: the paper's or the survey's cost at this N (stated formula, in --wide or --columns: its formula and its source, survey T1–T3 being Velazquez 1993's tables; every one in docs/stated-costs.md); an order of growth (O(…), avg log N) and a figure marked * (the project's derivation, not a paper's) are never divided into mean/stated, which compares with a paper's figure (its upper end)",
			"sync: from an exit while a request waits to the next entry; response: enter_cs to exit; times in δ"+meanDelay(o, s))
		if slices.ContainsFunc(list, func(c config) bool { return c.spec.Algorithm == "opencube" }) {
			h = append(h, "max, p99: of one request's messages; opencube's max can reach log2 N + 2, one above the top of its paper's range 0…log2 N+1: the paper's derivation counts one message fewer than a request's path takes (docs/results.md, Against the paper)")
		}
	}
	return h
}

// meanDelay says how long one message takes on average in the simulator, in
// δ; nothing under MPI, where delays are real.
func meanDelay(o *options, s bench.Spec) string {
	if o.runtimeInfo != nil && !o.farm() {
		return ""
	}
	return fmt.Sprintf(" (one message takes %gδ on average)", (1+s.MinDelay)/2)
}

// expandAlgos expands the groups of --algo (all, kexclusion, survey, ft) into names,
// each once, in the order given.
func expandAlgos(given []string) []string {
	var algos []string
	for _, a := range given {
		group := []string{a}
		switch a {
		case "all":
			group = nil // mutual exclusion: the k-exclusion algorithms have their own group
			for _, n := range algo.Ordered() {
				if !algo.IsKExclusion(n) {
					group = append(group, n)
				}
			}
		case "kexclusion":
			group = nil
			for _, n := range algo.Ordered() {
				if algo.IsKExclusion(n) {
					group = append(group, n)
				}
			}
		case "survey":
			group = algo.Survey
		case "ft":
			group = algo.FaultTolerant()
		}
		for _, g := range group {
			if !slices.Contains(algos, g) {
				algos = append(algos, g)
			}
		}
	}
	return algos
}

// protocolLines are the header lines that name the failure protocols of
// the runs: for an algorithm that offers variants of its protocol
// (algo.ProtocolAlgorithm: the open-cube's) the one run, and for every
// other fault-tolerant algorithm the fault model its paper assumes.
func protocolLines(list []config, e float64) []string {
	var h, seen []string
	for _, c := range list {
		a := c.spec.Algorithm
		if slices.Contains(seen, a) {
			continue
		}
		seen = append(seen, a)
		reg := c.plan.Registered
		if v, ok := reg.(algo.ProtocolAlgorithm); ok {
			protocol := string(c.spec.Protocol)
			if protocol == string(bench.ProtocolOCBench) {
				protocol = "" // the algorithm's own
			}
			h = append(h, v.DescribeProtocol(protocol, e))
			continue
		}
		if ft, ok := reg.(proto.FaultTolerantAlgorithm); ok {
			h = append(h, fmt.Sprintf("%s: failure protocol of its paper, fault model: %s (docs/algorithms/%s.md)", a, ft.FaultModel().Text, a))
		}
	}
	return h
}

// suspicionLines are the header lines that say what "false susp." counts
// for each fault-tolerant algorithm of the runs: a failure detector
// suspecting a live node (algo.DetectorAlgorithm: the open-cube's; an
// error: must be 0), and for the others, whose papers presume a failure
// when a request's time-out expires, a time-out that expired with no
// failure to explain it (the paper's recovery runs for nothing: a cost of
// its time-outs under load, not a detector's error).
func suspicionLines(list []config) []string {
	var detector, timeout []string
	for _, c := range list {
		a := c.spec.Algorithm
		if slices.Contains(detector, a) || slices.Contains(timeout, a) {
			continue
		}
		reg := c.plan.Registered
		if _, ok := reg.(proto.FaultTolerantAlgorithm); !ok {
			continue
		}
		if d, ok := reg.(algo.DetectorAlgorithm); ok && d.DetectsFailures() {
			detector = append(detector, a)
		} else {
			timeout = append(timeout, a)
		}
	}
	var h []string
	if len(detector) > 0 {
		h = append(h, "false susp. of "+strings.Join(detector, ", ")+": its failure detector suspected a live node that no failure explains; must be 0 (exact without crashes, a lower bound with them)")
	}
	if len(timeout) > 0 {
		h = append(h, "false susp. of "+strings.Join(timeout, ", ")+": a request's time-out (the paper's presumption of failure) expired with no failure to explain it, and the paper's recovery protocol ran although nothing failed: a cost of its time-outs under load or long critical sections, not a detector's error (safety is still checked: violations)")
	}
	return h
}

// experimentFlags choose what runs; without any of them, ocbench runs the
// ipsc2 preset (the other flags adjust it, or the output), and so it does
// with --algo alone when every algorithm named has a failure protocol.
var experimentFlags = []string{"preset", "algo", "nodes", "workload", "requests", "crashes"}

func defaultsToPreset(fs *pflag.FlagSet, algos []string) bool {
	for _, name := range experimentFlags {
		if fs.Changed(name) && (name != "algo" || !allFaultTolerant(algos)) {
			return false
		}
	}
	return true
}

// allFaultTolerant reports whether every algorithm of --algo has a failure
// protocol: --algo alone then runs the ipsc2 experiment for them.
func allFaultTolerant(algos []string) bool {
	for _, a := range expandAlgos(algos) {
		if !slices.Contains(algo.FaultTolerant(), a) {
			return false
		}
	}
	return true
}

// parseError rewrites pflag's error for a value that does not parse
// ("invalid argument "-5" for "--seed" flag: strconv.ParseUint: …") as one
// line that names the flag and what it takes; other errors are returned as
// they are.
func parseError(err error) error {
	var ive *pflag.InvalidValueError
	var fve *flagValueError
	if errors.As(err, &ive) && errors.As(err, &fve) {
		return fmt.Errorf("--%s: %w", ive.GetFlag().Name, fve)
	}
	msg := err.Error()
	var value, flag string
	if _, e := fmt.Sscanf(msg, "invalid argument %q for %q flag:", &value, &flag); e != nil {
		return err
	}
	var what string
	switch {
	case strings.Contains(msg, "ParseUint"):
		what = "an integer in 0..2^64−1"
	case strings.Contains(msg, "ParseInt"), strings.Contains(msg, "Atoi"):
		what = "an integer"
	case strings.Contains(msg, "ParseFloat"):
		what = "a number"
	case strings.Contains(msg, "ParseBool"):
		what = "true or false"
	default:
		return err
	}
	if i := strings.Index(flag, "--"); i >= 0 {
		flag = flag[i:]
	}
	return fmt.Errorf("%s: %q is not %s", flag, value, what)
}

// printAlgorithms writes the algorithms --algo takes, with the groups each
// belongs to, and the groups (--algo list).
func printAlgorithms(w io.Writer) {
	fmt.Fprintln(w, "algorithms (--algo NAME[,NAME…]), with their groups:")
	width := 0
	for _, n := range algo.Ordered() {
		width = max(width, len(n))
	}
	for _, n := range algo.Ordered() {
		var groups []string
		if !algo.IsKExclusion(n) {
			groups = append(groups, "all")
		}
		if slices.Contains(algo.Survey, n) {
			groups = append(groups, "survey")
		}
		if slices.Contains(algo.FaultTolerant(), n) {
			groups = append(groups, "ft")
		}
		if algo.IsKExclusion(n) {
			groups = append(groups, "kexclusion")
		}
		fmt.Fprintf(w, "  %-*s %s\n", width, n, strings.Join(groups, ", "))
	}
	fmt.Fprintln(w, "groups: all (every mutual-exclusion algorithm), survey (Velazquez's survey), ft (with a failure protocol), kexclusion")
}
