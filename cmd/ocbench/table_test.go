package main

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ocbench/ocbench/results"
)

// TestDefaultTableFits: the default table of every preset and group, and
// the tables scripts/compare.sh writes, has no line longer than
// results.Width runes, header and notes included; the key columns are in.
func TestDefaultTableFits(t *testing.T) {
	cases := []struct {
		args  []string
		long  bool     // left out with -short
		heads []string // columns the default table must show
	}{
		{nil, false, []string{"algorithm", "N", "failures", "overhead/failure", "paper", "differential", "msg/CS", "violations"}}, // the ipsc2 preset
		{[]string{"--preset", "ipsc2", "--algo", "ft"}, true, []string{"overhead/failure", "paper", "differential"}},
		{[]string{"--algo", "all", "--nodes", "16,64", "--workload", "saturated", "--requests", "300"}, false, []string{"msg/CS", "stated", "mean/stated", "sync (δ)"}},
		// scripts/compare.sh's shapes (its N and workloads, fewer requests:
		// poisson's 60 give raynal's 10^5 messages per entry at N = 256, the
		// widest figure; the invariants' full check, which costs the most at
		// N = 256, does not change the table).
		{[]string{"--algo", "all", "--nodes", "16,64,256", "--workload", "sequential", "--requests", "300", "--check", "counts"}, true, []string{"msg/CS", "stated", "response (δ)"}},
		{[]string{"--algo", "all", "--nodes", "16,64,256", "--workload", "poisson", "--requests", "60", "--check", "counts"}, true, []string{"msg/CS", "stated"}},
		{[]string{"--algo", "survey", "--nodes", "64", "--requests", "200"}, false, []string{"msg/CS", "stated", "mean/stated"}},
		{[]string{"--algo", "kexclusion", "--nodes", "16", "--requests", "300"}, false, []string{"msg/CS"}},
		{[]string{"--algo", "kofl", "--nodes", "16", "--ell", "5", "--k-max", "3", "--transient", "initial", "--repeat", "5", "--requests", "200"}, false, []string{"traversals", "bound", "over bound"}},
		{[]string{"--algo", "ft", "--nodes", "16", "--crashes", "10", "--workload", "poisson"}, false, []string{"overhead/failure", "differential"}},
	}
	for _, c := range cases {
		if c.long && testing.Short() {
			continue
		}
		var out, errb bytes.Buffer
		if code := run(append(c.args, "--no-save", "--quiet"), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errb.String())
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		for _, l := range lines {
			if n := utf8.RuneCountInString(l); n > results.Width {
				t.Errorf("%v: a line of %d runes: %q", c.args, n, l)
			}
		}
		var head string
		for _, l := range lines {
			if !strings.HasPrefix(l, "#") {
				head = l
				break
			}
		}
		for _, h := range c.heads {
			if !strings.Contains(head, h) {
				t.Errorf("%v: the heading %q has no column %q", c.args, head, h)
			}
		}
	}
}

// TestTableFlags: --wide prints the full table (long lines, every column
// that says something); --columns prints those named, in their order; a
// wrong name, or either flag with --json or with each other, is refused
// in one line with exit status 2, before anything runs.
func TestTableFlags(t *testing.T) {
	base := []string{"--nodes", "16", "--requests", "200", "--no-save", "--quiet"}
	var out, errb bytes.Buffer
	if code := run(append(base, "--wide"), &out, &errb); code != 0 {
		t.Fatalf("--wide: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "msg/CS mean") || !strings.Contains(out.String(), "messages (total)") || strings.Contains(out.String(), "not shown") {
		t.Errorf("--wide: not the full table:\n%s", out.String())
	}
	out.Reset()
	if code := run(append(base, "--columns", "N,algorithm,p99"), &out, &errb); code != 0 {
		t.Fatalf("--columns: exit %d: %s", code, errb.String())
	}
	var rows []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "VALID: ") {
			rows = append(rows, strings.Join(strings.Fields(l), " "))
		}
	}
	if len(rows) != 2 || rows[0] != "N algorithm p99" || !strings.HasPrefix(rows[1], "16 opencube ") {
		t.Errorf("--columns N,algorithm,p99: rows %q", rows)
	}
	out.Reset()
	if code := run([]string{"--algo", "nishio", "--nodes", "16", "--crashes", "3", "--no-save", "-q", "--columns", "algorithm,N,paper"}, &out, &errb); code != 0 {
		t.Fatalf("--columns with crashes: exit %d: %s", code, errb.String())
	}
	table, verdict, _ := strings.Cut(out.String(), "\nVALID: ")
	if !strings.Contains(table, "paper") || !strings.HasSuffix(strings.TrimSpace(table), "-") || verdict == "" {
		t.Errorf("--columns algorithm,N,paper: a column of \"-\" left out:\n%s", out.String())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--columns", "algorithm,bogus"}, `--columns: no column "bogus"`},
		{[]string{"--columns", "overhead/failure"}, `--columns: no column "overhead/failure"`}, // a crash table's, in a failure-free run
		{[]string{"--wide", "--json"}, "--wide"},
		{[]string{"--columns", "N", "--json"}, "--columns"},
		{[]string{"--columns", "N", "--wide"}, "--columns"},
	} {
		var out, errb bytes.Buffer
		code := run(append(base, c.args...), &out, &errb)
		if msg := errb.String(); code != 2 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, c.want) || out.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout %d bytes; want exit 2, one line with %q, no output", c.args, code, msg, out.Len(), c.want)
		}
	}
}
