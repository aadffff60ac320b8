package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ocbench/ocbench/internal/infile"
	"github.com/ocbench/ocbench/trace"
)

const checkTraceUsage = `ocbench check-trace: check event traces (--trace FILE, simulator or MPI)

Usage:
  ocbench check-trace [--k-exclusion] FILE…

Checks every line's fields, that times never decrease, that every message is
sent once by a node that is up and received or dropped at most once, at its
destination, unchanged, after its send; that nodes crash, recover, request
and enter in a sensible order; and mutual exclusion (no node enters the
critical section while another is in it; not with --k-exclusion, for the
traces of k-out-of-ℓ algorithms). Prints a summary per file.
Exit status: 0 if every trace passes, 1 if one breaks a check, 2 if a file
is no trace at all: it cannot be read, it is not a regular file (a
directory, a device, a FIFO), it is larger than 1 GiB, it has no events, or a
line names a node beyond the largest N (node ids are in 0..2^26−1); the
check stops there, with one line on stderr.
`

// runCheckTrace is `ocbench check-trace FILE…`.
func runCheckTrace(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(stdout, checkTraceUsage)
		return 0
	}
	var opt trace.Options
	if len(args) > 0 && args[0] == "--k-exclusion" {
		opt.KExclusion, args = true, args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(stderr, "ocbench: check-trace: no trace files given (see ocbench check-trace --help)")
		return 2
	}
	refuse := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "ocbench: check-trace: "+format+"\n", a...)
		return 2
	}
	for _, name := range args {
		if strings.HasPrefix(name, "-") {
			return refuse("unknown flag %s (the only flag is --k-exclusion, first; see ocbench check-trace --help)", name)
		}
	}
	// Each file's verdict is held until every file is checked: bad input
	// (a file that is missing, not regular, or no trace) is then the one
	// line said, whatever file it is.
	var oks, broken []string
	for _, name := range args {
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
		oks = append(oks, fmt.Sprintf("%s: ok: %d events to t=%.6gs, nodes 0…%d; %d messages sent, %d received, %d dropped, %d in flight at the end (longest delay %.6gs); %d requests, %d entries, %d crashes, %d recoveries\n",
			name, sum.Lines, sum.End, sum.Nodes-1, sum.Sent, sum.Received, sum.Dropped, sum.InFlight, sum.MaxDelay, sum.Requests, sum.Entries, sum.Crashes, sum.Recovers))
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
