package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ocbench/ocbench/view"
)

const viewUsage = `ocbench view: a page to watch a run in a browser

Usage:
  ocbench view [-o PAGE] TRACE

Writes one self-contained HTML page (script, style and data inline; it
fetches nothing, so it works offline) from a trace that --trace wrote, under
the simulator or MPI: a space-time diagram (a line per node, an arrow per
message coloured by type, critical sections, crashes and recoveries, the
token's path), the father relation at the time under the cursor, play,
step, zoom and a search box for a node, a message number or a type.
PAGE is TRACE with its extension replaced by .html unless -o says; an
existing PAGE is replaced. Exit status 2, with one line on stderr, if TRACE
cannot be read or is no trace (a malformed line, named; no events).
`

// runView is `ocbench view [-o PAGE] TRACE`.
func runView(args []string, stdout, stderr io.Writer) int {
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "ocbench: view: "+format+"\n", a...)
		return 2
	}
	var in, out string
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
		case strings.HasPrefix(a, "-") && a != "-":
			return bad("unknown flag %s (the only flag is -o PAGE; see ocbench view --help)", a)
		case in != "":
			return bad("one trace at a time (got %s and %s)", in, a)
		default:
			in = a
		}
	}
	if in == "" {
		fmt.Fprint(stderr, viewUsage)
		return 2
	}
	if out == "" {
		out = strings.TrimSuffix(in, filepath.Ext(in)) + ".html"
	}
	if out == "" || out == in {
		return bad("the page would replace the trace %s: give -o PAGE", in)
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
	d.Title = filepath.Base(in)
	var page bytes.Buffer
	if err := view.Write(&page, d); err != nil {
		return bad("%v", err)
	}
	if err := writeAtomic(out, page.Bytes()); err != nil {
		return bad("%v", err)
	}
	fmt.Fprintf(stdout, "%s: %d nodes, %d events, %d messages, %d KiB; open it in a browser\n", out, d.Nodes, len(d.T), len(d.MsgID), (page.Len()+1023)/1024)
	if d.Warning != "" {
		fmt.Fprintf(stderr, "ocbench: view: %s breaks a check (drawn anyway; the page says so): %s\n", in, d.Warning)
	}
	return 0
}

// writeAtomic writes data to name through a temporary file in the same
// directory, renamed over name: never a half-written page.
func writeAtomic(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), name)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", name, werr)
	}
	return nil
}
