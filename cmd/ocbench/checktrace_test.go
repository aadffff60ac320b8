package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestCheckTraceCommand: a trace written by --trace passes check-trace
// (status 0); a broken one fails (1); a missing file is bad input (2).
func TestCheckTraceCommand(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "run.jsonl")
	if code := run([]string{"--nodes", "16", "--requests", "20", "--workload", "poisson", "--trace", good, "--no-save", "--quiet"}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("the run exited %d", code)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	bad := filepath.Join(dir, "bad.jsonl")
	// Without its first request line (father lines come first), the first
	// request's send has no request.
	first := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, `"ev":"request"`) })
	if first < 0 {
		t.Fatal("the trace has no request")
	}
	if err := os.WriteFile(bad, []byte(strings.Join(slices.Delete(lines, first, first+1), "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{good}, 0, "ok: "},
		{[]string{bad}, 1, "trace line"},
		{[]string{filepath.Join(dir, "none.jsonl")}, 2, "no such file"},
		{nil, 2, "ocbench: check-trace: no trace files given (see ocbench check-trace --help)"},
	} {
		var out strings.Builder
		if code := run(append([]string{"check-trace"}, c.args...), &out, &out); code != c.code || !strings.Contains(out.String(), c.out) {
			t.Errorf("check-trace %v: status %d, want %d; output %q, want %q in it", c.args, code, c.code, out.String(), c.out)
		}
	}
}

// TestCheckTraceUnits (issue 41, point 5): check-trace's summary gives a
// trace's times in δ, the unit of the run's tables: the trace's seconds
// divided by --delta (the simulator's default δ, 1 ms, unless given),
// with δ's value named; never seconds.
func TestCheckTraceUnits(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "t.jsonl")
	// A request at 0; a message sent at 1 ms and received at 1.5 ms (the
	// longest delay, 0.5 ms); the critical section from 1.5 ms to 2.5 ms,
	// the trace's end.
	tr := `{"t":0,"node":0,"ev":"request"}
{"t":0.001,"node":1,"ev":"send","type":"token","from":1,"to":0,"msg":1,"j":0,"tag":1}
{"t":0.0015,"node":0,"ev":"recv","type":"token","from":1,"to":0,"msg":1,"j":0,"tag":1}
{"t":0.0015,"node":0,"ev":"enter"}
{"t":0.0025,"node":0,"ev":"exit"}
`
	if err := os.WriteFile(name, []byte(tr), 0o644); err != nil {
		t.Fatal(err)
	}
	seconds := regexp.MustCompile(`[0-9](s|ms|µs)\b`)
	for _, c := range []struct {
		flags          []string
		end, delay, is string
	}{
		{nil, "t=2.5δ", "longest delay 0.5δ", "δ = 1 ms"},
		{[]string{"--delta", "0.0005"}, "t=5δ", "longest delay 1δ", "δ = 500 µs"},
		{[]string{"--delta=0.004", "--k-exclusion"}, "t=0.625δ", "longest delay 0.125δ", "δ = 4 ms"},
		{[]string{"--delta", "2"}, "t=0.00125δ", "longest delay 0.00025δ", "δ = 2 s"},
	} {
		var out, errs strings.Builder
		args := append(append([]string{"check-trace"}, c.flags...), name)
		if code := run(args, &out, &errs); code != 0 {
			t.Fatalf("%v: status %d, stderr %q", args, code, errs.String())
		}
		got := out.String()
		if !strings.HasPrefix(got, name+": ok: 5 events to "+c.end+", nodes 0…1;") || !strings.Contains(got, "("+c.delay+")") ||
			!strings.HasSuffix(got, "; "+c.is+" (--delta)\n") {
			t.Errorf("%v: %q; want the end at %s, the %s and %s", args, got, c.end, c.delay, c.is)
		}
		if m := seconds.FindString(strings.TrimSuffix(got, c.is+" (--delta)\n")); m != "" {
			t.Errorf("%v: %q gives a time in seconds (%q) besides δ's value", args, got, m)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--delta", "0", name}, "ocbench: check-trace: --delta: 0 is not in [1e-9, 1000] (seconds)\n"},
		{[]string{"--delta=x", name}, "ocbench: check-trace: --delta: \"x\" is not a number\n"},
		{[]string{name, "--delta"}, "ocbench: check-trace: --delta needs the run's δ in seconds (see ocbench check-trace --help)\n"},
		{[]string{"--deltas", "1", name}, "ocbench: check-trace: unknown flag --deltas (the flags are --k-exclusion and --delta SECONDS; see ocbench check-trace --help)\n"},
	} {
		var out, errs strings.Builder
		if code := run(append([]string{"check-trace"}, c.args...), &out, &errs); code != 2 || errs.String() != c.want || out.Len() != 0 {
			t.Errorf("check-trace %v: status %d, stderr %q, stdout %q; want 2 and %q", c.args, code, errs.String(), out.String(), c.want)
		}
	}
}
