package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/internal/outpath"
	"github.com/ocbench/ocbench/view"
)

const viewUsage = `ocbench view: a page to watch a run in a browser

Usage:
  ocbench view [-o PAGE] [--delta SECONDS] TRACE

Writes one self-contained HTML page (script, style and data inline; it
fetches nothing, so it works offline) from a trace that --trace wrote, under
the simulator or MPI: a space-time diagram (a line per node, an arrow per
message coloured by type, critical sections, crashes and recoveries, the
token's path), the father relation at the time under the cursor, play,
step, zoom and a search box for a node, a message number or a type. Its
times are in δ, as the run's tables give them: a trace's times are seconds,
and --delta is the run's δ in seconds (default 0.001, the simulator's
default; give the run's --delta, e.g. 0.004 for an MPI run in wall-clock
time that did not set it).
PAGE is TRACE with its extension replaced by .html unless -o says; -o -
writes the page to the standard output. An existing PAGE is replaced whole
(a device or a FIFO, such as /dev/stdout, is written in place), never the
trace, whatever PAGE's spelling. Exit status 2, with one line on stderr, if
TRACE cannot be read, is not a regular file or is larger than 1 GiB, or is
no trace (a malformed line, named; no events), or if PAGE is the trace.
`

// runView is `ocbench view [-o PAGE] TRACE`.
func runView(args []string, stdout, stderr io.Writer) int {
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "ocbench: view: "+format+"\n", a...)
		return 2
	}
	var in, out string
	delta := bench.DefaultDelta
	for k := 0; k < len(args); k++ {
		a := args[k]
		switch {
		case a == "-h" || a == "--help":
			fmt.Fprint(stdout, viewUsage)
			return 0
		case a == "-o" || a == "--output":
			if k+1 >= len(args) {
				return bad("%s needs a file name (see ocbench view --help)", a)
			}
			k++
			out = args[k]
		case strings.HasPrefix(a, "--output="):
			out = strings.TrimPrefix(a, "--output=")
		case a == "--delta" || strings.HasPrefix(a, "--delta="):
			var err error
			if delta, k, err = traceDeltaArg(args, k, "view"); err != nil {
				return bad("%v", err)
			}
		case strings.HasPrefix(a, "-") && a != "-":
			return bad("unknown flag %s (the flags are -o PAGE and --delta SECONDS; see ocbench view --help)", a)
		case in != "":
			return bad("one trace at a time (got %s and %s)", in, a)
		default:
			in = a
		}
	}
	if in == "" {
		return bad("no trace given (ocbench view [-o PAGE] TRACE; see ocbench view --help)")
	}
	if out == "" {
		out = strings.TrimSuffix(in, filepath.Ext(in)) + ".html"
	}
	if err := outpath.Check(out, in); err != nil {
		return bad("%v (give another -o PAGE)", err)
	}
	f, err := openTraceFile(in)
	if err != nil {
		return bad("%v", err)
	}
	d, err := view.Read(f)
	f.Close()
	if err != nil {
		return bad("%s: %v", in, err)
	}
	d.Title, d.Delta = filepath.Base(in), delta
	var page bytes.Buffer
	if err := view.Write(&page, d); err != nil {
		return bad("%v", err)
	}
	if err := outpath.Write(out, page.Bytes(), stdout, in); err != nil {
		return bad("%v", err)
	}
	if !outpath.IsStdout(out, stdout) { // else stdout is the page's alone
		fmt.Fprintf(stdout, "%s: %d nodes, %d events, %d messages, %d KiB; open it in a browser\n", out, d.Nodes, len(d.T), len(d.MsgID), (page.Len()+1023)/1024)
	}
	if d.Warning != "" {
		fmt.Fprintf(stderr, "ocbench: view: %s breaks a check (drawn anyway; the page says so): %s\n", in, d.Warning)
	}
	return 0
}
