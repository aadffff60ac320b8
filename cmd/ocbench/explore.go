package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/explore"
	"github.com/ocbench/ocbench/internal/memsize"
	"github.com/ocbench/ocbench/internal/outpath"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/workload"
)

const exploreUsage = `ocbench explore: every reachable state of a small system (docs/explore.md)

Usage:
  ocbench explore --algo A[,A…] --nodes N[,N…] [flags]

Explores every order of message deliveries (non-FIFO unless --fifo or the
algorithm needs FIFO), every point at which a node may request, leave the
critical section, crash or recover within the budget, of the algorithm's own
state machines; checks in every state mutual exclusion (k-exclusion), one
token, the algorithm's invariants and that no request waits while nothing can
happen. A violation prints the shortest run to it and writes it as a trace
(--trace). Failure protocols and kofl run in discrete time: δ = --ticks
ticks, a message takes --min-ticks to --ticks ticks, timers fire at their tick;
without time, another algorithm's timers (raynal's) fire at any point after
they are set, which covers every timing. Once every request is issued, the
values an algorithm declares dead are forgotten (--forget).
Ctrl-C ends the search under way as INCOMPLETE, with what it reached.
Exit status: 0 if every system is clean, 1 if one breaks a check or a limit
stopped the search, 2 on bad input, 130 after Ctrl-C.

Flags:
`

type exploreOptions struct {
	algos     []string
	nodes     []int
	requests  int
	reqNodes  int
	crashes   int
	fifo      bool
	ft        bool
	protocol  string
	ticks     int
	minTicks  int
	csTime    float64
	strict    bool
	maxStates int64
	maxMemory string
	budget    float64 // --max-memory in bytes (exploreJobs)
	trace     string
	ell, kMax int
	transient bool
	maxSeq    uint64
	linkCap   int
	domain    string
	timeout   float64
	quiet     bool
	reduce    string
	force     bool
	workers   int
	exact     bool
	forget    bool
	store     string
}

func exploreFlags(o *exploreOptions) *pflag.FlagSet {
	fs := pflag.NewFlagSet("ocbench explore", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.StringSliceVar(&o.algos, "algo", []string{"opencube"}, "algorithms, comma-separated: "+strings.Join(algo.Ordered(), ", ")+"; or all, survey, ft, kexclusion")
	fs.IntSliceVar(&o.nodes, "nodes", []int{4}, "numbers of nodes N, comma-separated, each in 2..64 and a power of two but for the algorithms that need no hypercube ("+strings.Join(algo.AnySizeNames(), ", ")+")")
	fs.IntVar(&o.requests, "requests", 1, "critical-section requests per node, 0..20")
	fs.IntVar(&o.reqNodes, "requesters", 0, "how many nodes request: nodes 0 to K−1 (0: every node); a bound on the runs explored, not a reduction")
	fs.IntVar(&o.crashes, "crashes", 0, "crashes a run may have, 0..8, each followed at any point by a recovery (algorithms with a failure protocol; N ≥ 4)")
	fs.BoolVar(&o.fifo, "fifo", false, "FIFO channels (default: non-FIFO, unless the algorithm needs FIFO)")
	fs.BoolVar(&o.ft, "ft", false, "run the failure protocol without crashes (implied by --crashes)")
	fs.StringVar(&o.protocol, "protocol", string(bench.ProtocolOCBench), "the open-cube failure protocol: ocbench, paper (§5 as written, the tie-break's stated outcome) or paper-mechanism (§5 as written, the tie-break's example's mechanism); docs/failures.md")
	fs.IntVar(&o.ticks, "ticks", -1, "D, the ticks of δ, 1..20; 0 explores without time: any message may arrive at any point, and the timers of an algorithm without a failure protocol (raynal's) fire at any point after they are set, which covers every timing; default 2 with a failure protocol or kofl, else 0")
	fs.IntVar(&o.minTicks, "min-ticks", -1, "the least message delay in ticks, 0..D (default ⌈D/2⌉: the simulator's 0.5δ)")
	fs.BoolVar(&o.strict, "strict-timers", false, "a timer due at a tick fires only after the messages due by that tick have arrived (no tie between a timeout and a message at its bound)")
	floatVar(fs, &o.csTime, "cs-time", bench.DefaultCSTime, floatRange{lo: 0, hi: 20, unit: "δ"}, true, "the longest stay in the critical section and the root's estimate e, in δ, in [0, 20]: a node leaves at any tick up to it")
	fs.Int64Var(&o.maxStates, "max-states", 100_000_000, "stop after this many distinct states, 1..4e9 (a 64-bit fingerprint each: 11–21 bytes in the fast store, at most 8 in the compact one (--store), and 20 bytes of path log on disk; plus the BFS levels being expanded); the result then says INCOMPLETE and exits 1")
	fs.StringVar(&o.maxMemory, "max-memory", "3G", "the process's memory: a search stops when its states (the visited set and the BFS levels being expanded) take three quarters of what the process does not hold already (bytes, or with K, M, G); the result then says INCOMPLETE and exits 1")
	fs.StringVar(&o.trace, "trace", "", "write a violation's shortest run to this file as a trace (default explore-ALGO-N.jsonl; - for none)")
	fs.BoolVar(&o.force, "force", false, "let a violation's trace overwrite an existing file (--trace, or explore-ALGO-N.jsonl; refused without it, before exploring)")
	fs.IntVar(&o.ell, "ell", 0, "k-exclusion: ℓ, the units (0: the algorithm's default)")
	fs.IntVar(&o.kMax, "k-max", 0, "k-exclusion: K, the most units a request asks for (0: ℓ)")
	fs.BoolVar(&o.transient, "transient", false, "kofl: explore from every initial configuration within --domain, and compute the exact worst-case stabilization (rounds, traversals)")
	fs.StringVar(&o.domain, "domain", "full", "--transient: the nodes' domain: full (every variable over its domain), idle (no request, no token held, MyT_c = MyT_a = 0 but at Root) or zero (every node at its zero state: the links' messages alone vary)")
	fs.Uint64Var(&o.maxSeq, "max-seq", 1, "--transient: MaxSeq, the CToken's sequence numbers are 0..MaxSeq (1..15)")
	fs.IntVar(&o.linkCap, "link-cap", 0, "--transient: 0 or 1 junk messages on each link (every message of Junk's domain)")
	floatVar(fs, &o.timeout, "timeout", 0, floatRange{lo: 0, hi: 100, unit: "0: the algorithm's default"}, true, "--transient: the algorithm's time-out, in (0, 100] of its unit (proto.TimeoutAlgorithm; kofl: Root's CToken time-out, in δ per ring node); 0: the algorithm's default")
	fs.StringVar(&o.reduce, "reduce", "auto", "auto: a partial-order reduction by persistent sets of deliveries where it is sound for every check (untimed runs without crashes of an algorithm without every-step invariants); none: every interleaving; por: the reduction in untimed runs without crashes, the algorithm's every-step invariants then checked only in the states visited (docs/explore.md)")
	fs.IntVar(&o.workers, "workers", runtime.NumCPU(), "goroutines expanding each BFS level, 1..1024 (the default is this machine's number of cores); the states, the verdict and the shortest run's length do not depend on it")
	fs.StringVar(&o.store, "store", "auto", "how the visited states are kept: fast (64-bit fingerprints, 11–21 bytes a state), compact (the same fingerprints by quotienting, at most 8 bytes a state from a million states on, 1.6–2.1 times the CPU), exact (whole encodings: no hash collision can hide a state; several times the memory); auto: fast, or compact when --max-states states could outgrow the search's memory in fast")
	fs.BoolVar(&o.exact, "exact", false, "the same as --store exact")
	fs.BoolVar(&o.forget, "forget", true, "once every node has issued its last request, forget the values the algorithm declares no longer matter (lamport: its clocks and the stamps of replies and releases), in untimed runs without crashes: states that differ only in them count as one, the verdict is the same (docs/explore.md, \"Forgetting\"); --forget=false counts every state")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress lines on stderr")
	return fs
}

// exploreStores are --store's values.
var exploreStores = []string{"auto", "fast", "compact", "exact"}

// storeOf is the store of --store s, or StoreExact with --exact.
func storeOf(s string, exact bool) explore.Store {
	switch {
	case exact || s == "exact":
		return explore.StoreExact
	case s == "fast":
		return explore.StoreFast
	case s == "compact":
		return explore.StoreCompact
	}
	return explore.StoreAuto
}

// runExplore is `ocbench explore`.
func runExplore(args []string, stdout, stderr io.Writer) int {
	var o exploreOptions
	fs := exploreFlags(&o)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(stdout, exploreUsage+fs.FlagUsages())
			return 0
		}
		fmt.Fprintf(stderr, "ocbench explore: %v (see ocbench explore --help)\n", parseError(err))
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ocbench explore: unexpected argument %q (see ocbench explore --help)\n", fs.Arg(0))
		return 2
	}
	jobs, err := exploreJobs(&o, fs)
	if err != nil {
		fmt.Fprintf(stderr, "ocbench explore: %v\n", err)
		return 2
	}
	if err := checkExploreOutputs(jobs, &o); err != nil {
		fmt.Fprintf(stderr, "ocbench explore: %v\n", err)
		return 2
	}
	if total, ok := memsize.Total(); ok && o.budget > total {
		fmt.Fprintf(stderr, "ocbench explore: warning: --max-memory %s is more than this machine's memory (%s): a search that outgrows the memory may be killed by the system before it stops at its budget\n",
			o.maxMemory, memsize.Format(total))
	}
	if free, ok := explore.TempDiskFree(); ok && float64(o.maxStates)*explore.PathLogBytes > float64(free) {
		fmt.Fprintf(stderr, "ocbench explore: warning: --max-states %d could take %s of path log (%d B a state, besides the BFS levels that spill) where %s has %s free: a search that long stops INCOMPLETE before the disk fills (TMPDIR chooses the file system)\n",
			o.maxStates, memsize.Format(float64(o.maxStates)*explore.PathLogBytes), explore.PathLogBytes, os.TempDir(), memsize.Format(float64(free)))
	}
	// --max-memory bounds the process: the searches stop when their states
	// take three quarters of what the process does not hold already
	// (exploreJobs), and the collector keeps the garbage within the rest (a
	// soft limit: Go's runtime/debug).
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(o.budget)))
	stop, interrupted, release := catchExploreInterrupts(stderr)
	defer release()
	code := 0
	for _, j := range jobs {
		if interrupted() {
			break
		}
		j.cfg.Stop = stop
		if c := runExploreJob(j, &o, stdout, stderr); c > code {
			code = c
		}
	}
	if interrupted() {
		return interruptCode
	}
	return code
}

// catchExploreInterrupts makes the first Ctrl-C (SIGINT) or SIGTERM end
// the search under way as INCOMPLETE, with what it reached printed, and no
// search after it start (interrupted then reports true; the exit status
// is 130); a second one exits at once with 130. Call release when the
// searches are over.
func catchExploreInterrupts(stderr io.Writer) (stop <-chan struct{}, interrupted func() bool, release func()) {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, interruptSignals(nil)...)
	done := make(chan struct{})
	closed := make(chan struct{})
	var got atomic.Bool
	go func() {
		select {
		case <-signals:
		case <-done:
			return
		}
		got.Store(true)
		close(closed)
		fmt.Fprintln(stderr, "ocbench explore: interrupted: the search ends with what it reached (again to quit at once)")
		select {
		case <-signals:
			os.Exit(interruptCode)
		case <-done:
		}
	}()
	return closed, got.Load, func() {
		signal.Stop(signals)
		close(done)
	}
}

type exploreJob struct {
	transient bool
	name      string
	cfg       explore.Config
	desc      string
}

func exploreJobs(o *exploreOptions, fs *pflag.FlagSet) ([]exploreJob, error) {
	switch {
	case o.requests < 0 || o.requests > 20:
		return nil, fmt.Errorf("--requests: %d is not in 0..20", o.requests)
	case o.crashes < 0 || o.crashes > 8:
		return nil, fmt.Errorf("--crashes: %d is not in 0..8", o.crashes)
	case o.ticks < -1 || o.ticks > 20:
		return nil, fmt.Errorf("--ticks: %d is not in 0..20", o.ticks)
	case o.maxStates < 1 || o.maxStates > 4e9:
		return nil, fmt.Errorf("--max-states: %d is not in 1..4000000000", o.maxStates)
	case o.maxSeq < 1 || o.maxSeq > 15:
		return nil, fmt.Errorf("--max-seq: %d is not in 1..15", o.maxSeq)
	case o.linkCap < 0 || o.linkCap > 1:
		return nil, fmt.Errorf("--link-cap: %d is not 0 or 1", o.linkCap)
	case !o.transient && (fs.Changed("domain") || fs.Changed("max-seq") || fs.Changed("link-cap") || fs.Changed("timeout")):
		return nil, errors.New("--domain, --max-seq, --link-cap, --timeout: they shape --transient; give it")
	case o.reduce != "auto" && o.reduce != "por" && o.reduce != "none":
		return nil, fmt.Errorf("--reduce: unknown reduction %q (allowed: auto, none, por)", o.reduce)
	case o.workers < 1 || o.workers > 1024:
		return nil, fmt.Errorf("--workers: %d is not in 1..1024", o.workers)
	case !slices.Contains(exploreStores, o.store):
		return nil, fmt.Errorf("--store: unknown store %q (allowed: %s)", o.store, strings.Join(exploreStores, ", "))
	case o.exact && fs.Changed("store") && o.store != "exact":
		return nil, fmt.Errorf("--exact and --store %s: give one", o.store)
	case !slices.Contains(bench.Protocols, bench.Protocol(o.protocol)):
		return nil, fmt.Errorf("--protocol: unknown protocol %q (allowed: %s)", o.protocol, protocolNames())
	}
	maxBytes, err := memsize.Parse(o.maxMemory)
	if err != nil {
		return nil, fmt.Errorf("--max-memory: %w", err)
	}
	if maxBytes < 1<<20 {
		return nil, fmt.Errorf("--max-memory: %s is less than 1M", o.maxMemory)
	}
	o.budget = maxBytes
	// The searches' states get three quarters of what the process does not
	// hold already (its code, runtime and tables: about 15 MiB).
	held, err := memsize.Peak(os.Getpid())
	if err != nil {
		held = 0 // no /proc: the budget is the searches' and the collector's alone
	}
	if held >= maxBytes {
		return nil, fmt.Errorf("--max-memory: %s is less than the %s the process holds before it searches", o.maxMemory, memsize.Format(held))
	}
	searchBytes := int64(maxBytes-held) * 3 / 4
	algos := expandAlgos(o.algos)
	if len(algos) == 0 {
		return nil, fmt.Errorf("--algo: no algorithm named (allowed: %s; or all, survey, ft, kexclusion)", strings.Join(algo.Ordered(), ", "))
	}
	ft := o.ft || o.crashes > 0
	if fs.Changed("protocol") && !ft {
		return nil, errors.New("--protocol: it chooses a failure protocol; give --crashes or --ft")
	}
	var jobs []exploreJob
	for _, n := range o.nodes {
		if n < 2 || n > 64 {
			return nil, fmt.Errorf("--nodes: %d is not in 2..64", n)
		}
		if n&(n-1) != 0 {
			for _, a := range algos {
				if !algo.AnySize(a) {
					return nil, fmt.Errorf("--nodes: %d is not a power of two, which %s needs (any N in 2..64: %s)", n, a, strings.Join(algo.AnySizeNames(), ", "))
				}
			}
		}
		if o.reqNodes < 0 || o.reqNodes > n {
			return nil, fmt.Errorf("--requesters: %d is not in 0..%d (N)", o.reqNodes, n)
		}
		if o.crashes > 0 && n < 4 {
			return nil, fmt.Errorf("--crashes: N = %d is too few: %d nodes stay up at all times, so crashes need N ≥ 4", n, explore.MinUp)
		}
		for _, a := range algos {
			spec := bench.Spec{Algorithm: a, Nodes: n, Requests: 1, Seed: 1, Workload: workload.Sequential, CSTime: o.csTime, FT: ft,
				Protocol: bench.Protocol(o.protocol), Ell: o.ell, KMax: o.kMax}
			if !slices.Contains(algo.Ordered(), a) {
				return nil, fmt.Errorf("--algo: unknown algorithm %q (allowed: %s)", a, strings.Join(algo.Ordered(), ", "))
			}
			if ft && !slices.Contains(algo.FaultTolerant(), a) {
				return nil, fmt.Errorf("--algo: %s has no failure protocol, so no --crashes or --ft (with a failure protocol: %s, or ft)", a, strings.Join(algo.FaultTolerant(), ", "))
			}
			if !algo.IsKExclusion(a) && (fs.Changed("ell") || fs.Changed("k-max")) {
				return nil, fmt.Errorf("--ell, --k-max: %s is no k-exclusion algorithm", a)
			}
			plan, err := spec.Resolve()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", a, flagError(err))
			}
			alg := plan.Algorithm
			stab := plan.SelfStabilizing != nil
			var initial func() ([]explore.Configuration, error)
			var timeout float64
			if o.transient {
				if alg, timeout, initial, err = enumerable(alg, n, o); err != nil {
					return nil, err
				}
			}
			ticks := o.ticks
			if ticks < 0 {
				ticks = 0
				if ft || stab {
					ticks = 2
				}
			}
			if ticks == 0 && ft {
				return nil, errors.New("--ticks: a failure protocol needs discrete time (1..20)")
			}
			minTicks := o.minTicks
			if minTicks < 0 {
				minTicks = (ticks + 1) / 2
			}
			if minTicks > ticks {
				return nil, fmt.Errorf("--min-ticks: %d is not in 0..%d (--ticks)", minTicks, ticks)
			}
			csTicks := int(o.csTime*float64(ticks) + 0.999999)
			fifo := o.fifo || algo.NeedsFIFO(a)
			cfg := explore.Config{Algorithm: alg, Nodes: n, Requests: o.requests, Requesters: o.reqNodes, Crashes: o.crashes, FIFO: fifo,
				Ticks: ticks, MinTicks: minTicks, CSTicks: csTicks, StrictTimers: o.strict, MaxStates: o.maxStates, MaxBytes: searchBytes,
				Reduce: o.reduce != "none", ReduceEveryStep: o.reduce == "por", Initial: initial, Workers: o.workers, Store: storeOf(o.store, o.exact), Forget: o.forget}
			desc := fmt.Sprintf("%s N=%d, %d request(s) per node", a, n, o.requests)
			if o.reqNodes > 0 && o.reqNodes < n {
				desc = fmt.Sprintf("%s N=%d, %d request(s) per node of nodes 0..%d", a, n, o.requests, o.reqNodes-1)
			}
			if o.crashes > 0 {
				desc += fmt.Sprintf(", %d crash(es)", o.crashes)
			}
			if ft {
				desc += ", failure protocol " + o.protocol
			}
			if fifo {
				desc += ", FIFO"
			} else {
				desc += ", non-FIFO"
			}
			if ticks > 0 {
				desc += fmt.Sprintf(", δ = %d ticks, delays %d..%d ticks, CS 0..%d ticks", ticks, minTicks, ticks, csTicks)
				if o.strict {
					desc += ", strict timers"
				}
			} else {
				desc += ", untimed"
			}
			if o.transient {
				var ell, k int
				if ke, ok := alg.(proto.KExclusionAlgorithm); ok {
					ell, k = ke.Units()
				}
				desc += fmt.Sprintf(", every initial configuration: domain %s, ℓ = %d, K = %d, MaxSeq = %d, %d junk message(s) per link at most, Root's time-out %gnδ = %d ticks",
					o.domain, ell, k, o.maxSeq, o.linkCap, timeout, int(timeout*float64(n)*float64(ticks)+0.999999))
			}
			jobs = append(jobs, exploreJob{name: a, cfg: cfg, desc: desc, transient: o.transient})
		}
	}
	if err := validateJobs(jobs); err != nil {
		return nil, err
	}
	return jobs, nil
}

// validateJobs checks every job's configuration before any is explored: a
// refusal is one line, naming the algorithm only when some jobs pass.
func validateJobs(jobs []exploreJob) error {
	var first error
	failed := 0
	for _, j := range jobs {
		if err := j.cfg.Validate(); err != nil {
			if first == nil {
				first = fmt.Errorf("%s: %w", j.name, err)
			}
			failed++
		}
	}
	if first != nil && failed == len(jobs) {
		return errors.Unwrap(first) // every job's: the algorithm names nothing
	}
	return first
}

// traceName is the file a violation of j is written to ("-": none).
func traceName(j exploreJob, o *exploreOptions) string {
	if o.trace != "" {
		return o.trace
	}
	return fmt.Sprintf("explore-%s-%d.jsonl", j.name, j.cfg.Nodes)
}

// checkExploreOutputs refuses, before anything is explored, an output a
// violation would replace: an existing regular file unless --force (as the
// main command's --trace), or a directory; a device or a FIFO is written in
// place (outpath). One --trace FILE takes one job's trace.
func checkExploreOutputs(jobs []exploreJob, o *exploreOptions) error {
	if o.trace != "" && o.trace != "-" && len(jobs) > 1 {
		return fmt.Errorf("--trace: one file takes one job's trace, and this command has %d jobs (one --algo, one --nodes; or leave --trace out: explore-ALGO-N.jsonl each)", len(jobs))
	}
	for _, j := range jobs {
		name := traceName(j, o)
		if name == "-" || j.transient { // --transient writes no trace
			continue
		}
		if err := outpath.Check(name); err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
		if st, err := os.Stat(name); err == nil && st.Mode().IsRegular() && !o.force {
			return fmt.Errorf("--trace: %s exists (--force overwrites it)", name)
		}
	}
	return nil
}

func runExploreJob(j exploreJob, o *exploreOptions, stdout, stderr io.Writer) int {
	if !o.quiet {
		last := time.Now()
		j.cfg.Progress = func(depth int, states int64) {
			// Every 10th level, and a level that ends 10 s or more after
			// the last line (deep levels take minutes).
			if depth%10 == 9 || time.Since(last) >= 10*time.Second {
				fmt.Fprintf(stderr, "  %s: depth %d, %d states\n", j.name, depth+1, states)
				last = time.Now()
			}
		}
		j.cfg.StabProgress = func(states int64) {
			fmt.Fprintf(stderr, "  %s: %d states before legitimacy\n", j.name, states)
		}
	}
	ex, err := explore.New(j.cfg)
	if err != nil {
		fmt.Fprintf(stderr, "ocbench explore: %s: %v\n", j.name, err)
		return 2
	}
	cpu0 := cpuSeconds()
	if j.transient {
		return runStabilization(j, ex, stdout, stderr)
	}
	res, err := ex.Run()
	if errors.Is(err, explore.ErrNeedsTime) && j.cfg.Ticks == 0 {
		// An algorithm without a failure protocol that sets timers
		// (raynal waits between rounds), explored without time: again,
		// with its timers firing at any point after they are set, which
		// covers every timing (docs/explore.md, "Time").
		j.cfg.AnyTimer = true
		j.desc = strings.Replace(j.desc, ", untimed", ", untimed (its timers fire at any time: every timing)", 1)
		if ex, err = explore.New(j.cfg); err == nil {
			res, err = ex.Run()
		}
	}
	cpu := cpuSeconds() - cpu0
	var se *explore.StepError
	if errors.As(err, &se) {
		fmt.Fprintf(stdout, "%s: FAILED: a step cannot be carried out: %v\n", j.desc, se)
		explore.Describe(stdout, j.cfg.Algorithm, se.Path, j.cfg.Ticks)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "ocbench explore: %s: %v\n", j.name, err)
		return 1
	}
	rate := float64(res.States) / res.Elapsed.Seconds()
	red := "no reduction"
	if res.NoReduction != "" {
		red += " (" + res.NoReduction + ")"
	}
	if res.Reduced {
		red = fmt.Sprintf("reduction: %d states expanded by a persistent set, %d in full (%d by the proviso)", res.ReducedStates, res.FullStates, res.Provisos)
		if res.ReduceOff {
			red += fmt.Sprintf(", then off: it applied to fewer than a fifth of the first %d", res.ReducedStates+res.FullStates)
		}
		if res.ReducedStates > 0 {
			red += "; the algorithm's every-step invariants were checked in the states visited, not all reachable (--reduce none for those)"
		}
	}
	switch {
	case res.Forgot:
		red += "; values forgotten after the last request (--forget=false: none)"
	case res.NoForget != "":
		red += "; nothing forgotten (" + res.NoForget + ")"
	}
	store := "exact: whole encodings stored"
	if !res.Exact {
		kind := "64-bit fingerprints"
		if res.Compact {
			kind = "64-bit fingerprints, compact"
		}
		store = fmt.Sprintf("%s: a collision hid a state with probability ≤ %.1e (n²/2^65)", kind, res.Collision)
	}
	disk := fmt.Sprintf("%.0f B/state of path log on disk", float64(res.LogBytes)/float64(max(res.States, 1)))
	if res.SpilledBytes > 0 {
		disk += fmt.Sprintf(", %d B of BFS levels spilled to disk", res.SpilledBytes)
	}
	stats := fmt.Sprintf("%d states, %d transitions, depth %d, %d terminal; %.2fs on %d worker(s) (%.0f states/s; %.2f CPU s, %.0f states per CPU s); %.1f B/state stored (%s; %s), largest level %d B, %d node states (%d B); %s",
		res.States, res.Transitions, res.Depth, res.Terminal, res.Elapsed.Seconds(), res.Workers, rate, cpu, float64(res.States)/max(cpu, 1e-9), res.BytesPerState, store, disk, res.PeakFrontier, res.NodeStates, res.NodeBytes, red)
	switch {
	case res.Violation != nil:
		v := res.Violation
		fmt.Fprintf(stdout, "%s: VIOLATION after %d steps: %s\n  (%s)\n", j.desc, countSteps(v.Path), v.What, stats)
		fmt.Fprintln(stdout, "  shortest run:")
		explore.Describe(stdout, j.cfg.Algorithm, v.Path, j.cfg.Ticks)
		if name := traceName(j, o); name != "-" {
			if err := writeExploreTrace(name, j, v.Path, stdout); err != nil {
				fmt.Fprintf(stderr, "ocbench explore: %v\n", err)
				return 1
			}
			fmt.Fprintf(stdout, "  trace: %s (ocbench check-trace %s)\n", name, name)
		}
		return 1
	case res.Limit != "":
		fmt.Fprintf(stdout, "%s: INCOMPLETE: %s; no violation among the states reached (%s)\n", j.desc, res.Limit, stats)
		return 1
	}
	fmt.Fprintf(stdout, "%s: clean: %s\n", j.desc, stats)
	return 0
}

func countSteps(path []explore.Step) int {
	n := 0
	for _, st := range path {
		if st.Kind != explore.Tick {
			n++
		}
	}
	return n
}

// writeExploreTrace writes the trace of a violation's path to name by
// outpath's rule: a regular file whole or not at all, a device in place.
func writeExploreTrace(name string, j exploreJob, path []explore.Step, stdout io.Writer) error {
	var b bytes.Buffer
	if err := explore.WriteTrace(&b, j.cfg.Algorithm, path, j.cfg.Ticks, bench.DefaultDelta); err != nil {
		return fmt.Errorf("--trace: %s: %w", name, err)
	}
	if err := outpath.Write(name, b.Bytes(), stdout); err != nil {
		return fmt.Errorf("--trace: %w", err)
	}
	return nil
}

// cpuSeconds is the CPU time the process has used, in seconds (0 if the
// system does not say).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// runStabilization is --transient: the closure and safety check from
// every initial configuration (Run), then the exact worst case (Stabilization).
func runStabilization(j exploreJob, ex *explore.Explorer, stdout, stderr io.Writer) int {
	cpu0 := cpuSeconds()
	st, err := ex.Stabilization()
	if err != nil {
		fmt.Fprintf(stderr, "ocbench explore: %s: %v\n", j.name, err)
		return 1
	}
	n := j.cfg.Nodes
	fmt.Fprintf(stdout, "%s:\n  %d initial configurations, %d states before legitimacy (with rounds' marks), %.2fs (%.2f CPU s, %.0f states/s; a map entry a state, about 50 B)\n",
		j.desc, st.Configurations, st.States, st.Elapsed.Seconds(), cpuSeconds()-cpu0, float64(st.States)/st.Elapsed.Seconds())
	switch {
	case st.Limit != "":
		fmt.Fprintf(stdout, "  INCOMPLETE: %s\n", st.Limit)
		return 1
	case st.Unbounded != "":
		fmt.Fprintf(stdout, "  UNBOUNDED: %s\n", st.Unbounded)
		if confs, err := j.cfg.Initial(); err == nil {
			fmt.Fprintf(stdout, "  that configuration: %s\n", j.cfg.Algorithm.(proto.EnumerableAlgorithm).DescribeConfiguration(confs[st.UnboundedFrom]))
		}
		return 1
	}
	verdict := func(x, bound int) string {
		if x > bound {
			return fmt.Sprintf("above %d", bound)
		}
		return fmt.Sprintf("within %d", bound)
	}
	bound, unit := 0.0, "rounds"
	if b, ok := j.cfg.Algorithm.(proto.BoundedStabilization); ok {
		bound, unit = b.StabilizationBound()
	}
	fmt.Fprintf(stdout, "  worst-case stabilization: %d rounds (%s = 5n), %d %s (Root's STARTs; %s)\n",
		st.Rounds, verdict(st.Rounds, 5*n), st.Events, unit, verdict(st.Events, int(bound)))
	if confs, err := j.cfg.Initial(); err == nil {
		fmt.Fprintf(stdout, "  a worst configuration for rounds: %s\n", j.cfg.Algorithm.(proto.EnumerableAlgorithm).DescribeConfiguration(confs[st.RoundsFrom]))
		fmt.Fprintf(stdout, "  a worst configuration for traversals: %s\n", j.cfg.Algorithm.(proto.EnumerableAlgorithm).DescribeConfiguration(confs[st.EventsFrom]))
	}
	ex2, err := explore.New(j.cfg)
	if err != nil {
		fmt.Fprintf(stderr, "ocbench explore: %s: %v\n", j.name, err)
		return 2
	}
	res, err := ex2.Run()
	if err != nil {
		fmt.Fprintf(stderr, "ocbench explore: %s: %v\n", j.name, err)
		return 1
	}
	switch {
	case res.Violation != nil:
		fmt.Fprintf(stdout, "  closure and safety: VIOLATION after %d steps: %s\n", countSteps(res.Violation.Path), res.Violation.What)
		explore.Describe(stdout, j.cfg.Algorithm, res.Violation.Path, j.cfg.Ticks)
		return 1
	case res.Limit != "":
		fmt.Fprintf(stdout, "  closure and safety: INCOMPLETE: %s (%d states, %.0f states/s, %.1f B/state stored)\n",
			res.Limit, res.States, float64(res.States)/res.Elapsed.Seconds(), res.BytesPerState)
		return 1
	}
	fmt.Fprintf(stdout, "  closure and safety: clean, %d states (%.2fs, %.0f states/s, %.1f B/state stored)\n",
		res.States, res.Elapsed.Seconds(), float64(res.States)/res.Elapsed.Seconds(), res.BytesPerState)
	return 0
}

// enumerable returns the algorithm of an --transient exploration, alg with
// the sequence numbers of --max-seq and the time-out of --timeout (0: its
// own), that time-out, and the generator of its initial configurations
// within --domain (proto.EnumerableAlgorithm).
func enumerable(alg proto.Algorithm, n int, o *exploreOptions) (proto.Algorithm, float64, func() ([]explore.Configuration, error), error) {
	en, ok := alg.(proto.EnumerableAlgorithm)
	if !ok {
		return nil, 0, nil, fmt.Errorf("--transient: the explorer does not enumerate the initial configurations of %s (only those of: %s)", alg.Name(), strings.Join(algo.Enumerable(), ", "))
	}
	if !slices.Contains(en.Domains(), o.domain) {
		return nil, 0, nil, fmt.Errorf("--domain: unknown domain %q (allowed: %s)", o.domain, strings.Join(en.Domains(), ", "))
	}
	alg, err := en.WithMaxSeq(o.maxSeq)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("--max-seq: %w", err)
	}
	var timeout float64
	if t, ok := alg.(proto.TimeoutAlgorithm); ok {
		if o.timeout != 0 {
			if alg, err = t.WithTimeout(o.timeout); err != nil {
				return nil, 0, nil, fmt.Errorf("--timeout: %w", err)
			}
			t = alg.(proto.TimeoutAlgorithm)
		}
		timeout, _ = t.Timeout()
	}
	initial, _, err := alg.(proto.EnumerableAlgorithm).Configurations(n, o.domain, o.linkCap, 20_000_000)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("--transient: %w (give a smaller --domain, ring or --link-cap)", err)
	}
	return alg, timeout, initial, nil
}

// protocolNames lists the open-cube failure protocols, comma-separated.
func protocolNames() string {
	names := make([]string, len(bench.Protocols))
	for i, p := range bench.Protocols {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}
