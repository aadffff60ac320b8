package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/internal/infile"
	"github.com/ocbench/ocbench/trace"
)

const checkTraceUsage = `ocbench check-trace: check event traces (--trace FILE, simulator or MPI)

Usage:
  ocbench check-trace [--k-exclusion] [--delta SECONDS] FILE…

Checks every line's fields, that times never decrease, that every message is
sent once by a node that is up and received or dropped at most once, at its
destination, unchanged, after its send; that nodes crash, recover, request
and enter in a sensible order; and mutual exclusion (no node enters the
critical section while another is in it; not with --k-exclusion, for the
traces of k-out-of-ℓ algorithms). Prints a summary per file, its times in
δ, as the run's tables give them: a trace's times are seconds, and --delta
is the run's δ in seconds (default 0.001, the simulator's default; give the
run's --delta, e.g. 0.004 for an MPI run in wall-clock time that did not
set it). Exit status: 0 if every trace passes, 1 if one breaks a check, 2 if
a file is no trace at all: it cannot be read, it is not a regular file (a
directory, a device, a FIFO), it is larger than 1 GiB, it has no events, or a
line names a node beyond the largest N (node ids are in 0..2^26−1); the
check stops there, with one line on stderr; 2 also for a bad --delta.
`

// runCheckTrace is `ocbench check-trace FILE…`.
func runCheckTrace(args []string, stdout, stderr io.Writer) int {
	refuse := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "ocbench: check-trace: "+format+"\n", a...)
		return 2
	}
	var opt trace.Options
	delta := bench.DefaultDelta
	var files []string
	for k := 0; k < len(args); k++ {
		a := args[k]
		switch {
		case a == "-h" || a == "--help":
			fmt.Fprint(stdout, checkTraceUsage)
			return 0
		case a == "--k-exclusion":
			opt.KExclusion = true
		case a == "--delta" || strings.HasPrefix(a, "--delta="):
			var err error
			if delta, k, err = traceDeltaArg(args, k, "check-trace"); err != nil {
				return refuse("%v", err)
			}
		case strings.HasPrefix(a, "-"):
			return refuse("unknown flag %s (the flags are --k-exclusion and --delta SECONDS; see ocbench check-trace --help)", a)
		default:
			files = append(files, a)
		}
	}
	if len(files) == 0 {
		return refuse("no trace files given (see ocbench check-trace --help)")
	}
	// Each file's verdict is held until every file is checked: bad input
	// (a file that is missing, not regular, or no trace) is then the one
	// line said, whatever file it is.
	var oks, broken []string
	for _, name := range files {
		f, err := openTraceFile(name)
		if err != nil {
			return refuse("%v", err)
		}
		sum, err := trace.CheckWith(f, opt)
		f.Close()
		if errors.Is(err, trace.ErrNotTrace) {
			return refuse("%s: %v", name, err)
		}
		if err != nil {
			broken = append(broken, fmt.Sprintf("ocbench: check-trace: %s: %v\n", name, err))
			continue
		}
		oks = append(oks, okLine(name, sum, delta))
	}
	for _, l := range oks {
		fmt.Fprint(stdout, l)
	}
	for _, l := range broken {
		fmt.Fprint(stderr, l)
	}
	if len(broken) > 0 {
		return 1
	}
	return 0
}

// okLine is check-trace's summary of a trace that passes, its times in
// δ (delta seconds), the unit of the run's tables.
func okLine(name string, sum trace.Summary, delta float64) string {
	return fmt.Sprintf("%s: ok: %d events to t=%s, nodes 0…%d; %d messages sent, %d received, %d dropped, %d in flight at the end (longest delay %s); %d requests, %d entries, %d crashes, %d recoveries; δ = %s (--delta)\n",
		name, sum.Lines, inDelta(sum.End, delta), sum.Nodes-1, sum.Sent, sum.Received, sum.Dropped, sum.InFlight, inDelta(sum.MaxDelay, delta), sum.Requests, sum.Entries, sum.Crashes, sum.Recovers, dur(delta))
}

// openTraceFile opens a trace file for reading: a regular file (links
// followed) of at most infile.TraceCap bytes; a directory, a device, a
// FIFO or a socket is refused (bad input) before a read could block on it
// or never end.
func openTraceFile(name string) (*infile.File, error) {
	f, err := infile.Open(name, infile.TraceCap)
	if nr := (*infile.NotRegularError)(nil); errors.As(err, &nr) {
		return nil, fmt.Errorf("%s is %s, not a trace file (give the file that --trace wrote)", name, infile.Kind(nr.Mode))
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}
