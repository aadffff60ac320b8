package main

import (
	"fmt"
	"github.com/ocbench/ocbench/explore"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/internal/memsize"
)

// TestExploreCommand: a clean system exits 0, a limit 1, bad flags 2 with
// one line; a violation's trace is written and check-trace reads it.
func TestExploreCommand(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"--algo", "opencube", "--nodes", "2,4", "--quiet"}, 0, "clean: "},
		{[]string{"--algo", "raymond", "--nodes", "4", "--max-states", "10", "--quiet"}, 1, "INCOMPLETE: the state limit"},
		{[]string{"--algo", "nope"}, 2, "unknown algorithm"},
		{[]string{"--nodes", "3"}, 2, "--nodes: 3 is not a power of two, which opencube needs"},
		{[]string{"--nodes", "65"}, 2, "--nodes: 65 is not in 2..64"},
		{[]string{"--algo", "kakugawa", "--nodes", "3", "--quiet"}, 0, "clean: "},
		{[]string{"--requests", "-1"}, 2, "--requests"},
		{[]string{"--algo", "raymond", "--crashes", "1"}, 2, "no failure protocol"},
		{[]string{"--crashes", "1", "--nodes", "2"}, 2, "N ≥ 4"},
		{[]string{"--protocol", "paper"}, 2, "--protocol"},
		{[]string{"--ticks", "x"}, 2, "--ticks"},
		{[]string{"--max-states", "0"}, 2, "--max-states"},
		{[]string{"--transient"}, 2, "--transient"},
		{[]string{"extra"}, 2, "unexpected argument"},
		{[]string{"--reduce", "some"}, 2, "--reduce"},
		{[]string{"--store", "bits"}, 2, "--store: unknown store \"bits\""},
		{[]string{"--exact", "--store", "compact"}, 2, "--exact and --store compact: give one"},
		{[]string{"--algo", "raymond", "--nodes", "4", "--store", "exact", "--quiet"}, 0, "exact: whole encodings stored"},
		{[]string{"--algo", "raymond", "--nodes", "4", "--store", "compact", "--quiet"}, 0, "64-bit fingerprints, compact:"},
		{[]string{"--algo", "raymond", "--nodes", "4", "--quiet"}, 0, "(64-bit fingerprints:"},
		{[]string{"--algo", "raymond", "--nodes", "4", "--max-states", "200000000", "--quiet"}, 0, "64-bit fingerprints, compact:"},
		{[]string{"--workers", "0"}, 2, "--workers"},
		{[]string{"--algo", "raymond", "--nodes", "4", "--exact", "--reduce", "por", "--quiet"}, 0, "exact: whole encodings stored"},
		{[]string{"--algo", "raymond", "--nodes", "4", "--exact", "--workers", "2", "--quiet"}, 0, "exact: whole encodings stored"},
		{[]string{"--algo", "raymond", "--nodes", "4", "--workers", "3", "--quiet"}, 0, "on 3 worker(s)"},
		{[]string{"--algo", "kofl", "--max-seq", "3"}, 2, "give it"},
		{[]string{"--algo", "kofl", "--transient", "--domain", "x"}, 2, "--domain"},
		{[]string{"--algo", "maekawa", "--nodes", "4", "--quiet"}, 0, "no reduction (its every-step invariants)"},
		{[]string{"--algo", "maekawa", "--nodes", "4", "--reduce", "none", "--forget=false", "--quiet"}, 0, "63725 states"},
		{[]string{"--algo", "maekawa", "--nodes", "4", "--quiet"}, 0, "34922 states"},
		{[]string{"--algo", "maekawa", "--nodes", "4", "--quiet"}, 0, "values forgotten after the last request"},
		{[]string{"--algo", "maekawa", "--nodes", "4", "--reduce", "por", "--quiet"}, 0, "nothing forgotten (with the partial-order reduction)"},
		{[]string{"--algo", "lamport", "--nodes", "4", "--requesters", "2", "--forget=false", "--quiet"}, 0, "clean: 8198 states"},
		{[]string{"--algo", "lamport", "--nodes", "4", "--requesters", "2", "--quiet"}, 0, "clean: 2274 states"},
		{[]string{"--algo", "raynal", "--nodes", "4", "--requesters", "2", "--quiet"}, 0, "untimed (its timers fire at any time: every timing): clean: 2676 states"},
		{[]string{"--algo", "raynal", "--nodes", "4", "--requesters", "2", "--ticks", "0", "--quiet"}, 0, "untimed (its timers fire at any time: every timing): clean"},
		{[]string{"--algo", "raynal", "--nodes", "4", "--requesters", "2", "--strict-timers", "--quiet"}, 0, "untimed (its timers fire at any time: every timing): clean: 2676 states"},
		{[]string{"--algo", "raynal", "--nodes", "4", "--requesters", "2", "--ticks", "2", "--quiet"}, 0, "δ = 2 ticks, delays 1..2 ticks, CS 0..2 ticks: clean: 11612 states"},
		{[]string{"--algo", "maekawa", "--nodes", "4", "--reduce", "por", "--quiet"}, 0, "states expanded by a persistent set"},
		{[]string{"--algo", "kofl", "--nodes", "2", "--transient", "--ell", "1", "--requests", "0", "--domain", "zero", "--timeout", "1",
			"--strict-timers", "--quiet"}, 0, "worst-case stabilization: 3 rounds (within 10 = 5n), 1 traversals"},
		{[]string{"--algo", "kofl", "--nodes", "2", "--transient", "--ell", "1", "--requests", "0", "--domain", "zero", "--timeout", "1",
			"--quiet"}, 1, "UNBOUNDED"},
	} {
		var out strings.Builder
		code := run(append([]string{"explore"}, c.args...), &out, &out)
		if code != c.code || !strings.Contains(out.String(), c.out) {
			t.Errorf("explore %v: exit %d, output %q; want %d and %q", c.args, code, out.String(), c.code, c.out)
		}
		if code == 2 && strings.Count(strings.TrimSpace(out.String()), "\n") > 0 {
			t.Errorf("explore %v: bad input takes more than one line: %q", c.args, out.String())
		}
	}
	// §5 as written makes a second token after one crash at N = 4; the
	// explorer finds the shortest such run and writes its trace.
	if testing.Short() {
		return
	}
	tr := filepath.Join(dir, "paper.jsonl")
	var out strings.Builder
	code := run([]string{"explore", "--algo", "opencube", "--nodes", "4", "--crashes", "1", "--protocol", "paper", "--trace", tr, "--quiet"}, &out, &out)
	if code != 1 || !strings.Contains(out.String(), "VIOLATION") || !strings.Contains(out.String(), "tokens exist") {
		t.Fatalf("explore --protocol paper: exit %d, output %q", code, out.String())
	}
	out.Reset()
	if code := run([]string{"check-trace", tr}, &out, &out); code != 0 {
		t.Fatalf("check-trace of the explorer's trace: exit %d: %s", code, out.String())
	}
}

// TestExploreOutputs: explore refuses, before exploring, to replace an
// existing trace (--trace FILE or explore-ALGO-N.jsonl) unless --force, in
// the main command's words; a directory is refused, a device written in
// place, one --trace FILE takes one job (issue 40, defect 3).
func TestExploreOutputs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	const old = "an earlier trace\n"
	existing := filepath.Join(dir, "old.jsonl")
	if err := os.WriteFile(existing, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("explore-opencube-4.jsonl", []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	// §5 as written makes a second token after one crash at N = 4 (a
	// violation, so a trace) in well under a second.
	paper := []string{"explore", "--algo", "opencube", "--nodes", "4", "--crashes", "1", "--protocol", "paper", "--quiet"}
	with := func(args ...string) []string { return append(append([]string{}, paper...), args...) }
	for _, c := range []struct {
		args    []string
		code    int
		errs    string // a one-line refusal, when code is 2
		changed string // the file the run replaces, "" if none
	}{
		{with("--trace", existing), 2, "ocbench explore: --trace: " + existing + " exists (--force overwrites it)", ""},
		{with(), 2, "ocbench explore: --trace: explore-opencube-4.jsonl exists (--force overwrites it)", ""},
		{with("--trace", dir), 2, "is a directory", ""},
		{[]string{"explore", "--algo", "opencube,centralized", "--nodes", "4", "--trace", "x.jsonl"}, 2, "--trace: one file takes one job's trace", ""},
		{with("--trace", "-"), 1, "", ""},
		{with("--trace", os.DevNull), 1, "", ""},
		{with("--trace", existing, "--force"), 1, "", existing},
		{with("--force"), 1, "", "explore-opencube-4.jsonl"},
	} {
		var out, errs strings.Builder
		code := run(c.args, &out, &errs)
		if code != c.code || c.code == 2 && (strings.Count(errs.String(), "\n") != 1 || !strings.Contains(errs.String(), c.errs) || out.Len() > 0) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, out.String(), errs.String(), c.code, c.errs)
		}
		for _, f := range []string{existing, "explore-opencube-4.jsonl"} {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if replaced := string(b) != old; replaced != (f == c.changed) {
				t.Errorf("%q: %s replaced: %v", c.args, f, replaced)
			}
			if f == c.changed {
				if code := run([]string{"check-trace", f}, io.Discard, io.Discard); code != 0 {
					t.Errorf("%q: check-trace of %s: exit %d", c.args, f, code)
				}
				os.WriteFile(f, []byte(old), 0o644)
			}
		}
	}
}

// TestExploreRefusalOnce: a refusal that applies to every job of
// --algo all is one line, without an algorithm's name (issue 40, defect
// 15); one that applies to some names the first.
func TestExploreRefusalOnce(t *testing.T) {
	checkRefusals(t, []refusal{
		{[]string{"explore", "--algo", "all", "--nodes", "2", "--cs-time", "20", "--ticks", "20"}, "ocbench explore: explore: 400 ticks in the critical section"},
		{[]string{"explore", "--algo", "all", "--nodes", "2,4", "--requesters", "3"}, "--requesters: 3 is not in 0..2"},
	})
}

// TestExploreMemoryWarning: a --max-memory above the machine's memory is
// searched with, after a warning that says so; one within it is not
// warned about.
// TestExploreDiskWarning: a --max-states whose path log alone would not fit
// the free disk of the temporary files gets a one-line warning, and the
// search runs; a small one gets none.
func TestExploreDiskWarning(t *testing.T) {
	free, ok := explore.TempDiskFree()
	if ok && free/explore.PathLogBytes+1_000_000 > 4e9 {
		// More disk free than 4e9 states' path log: a tmpfs is smaller.
		t.Setenv("TMPDIR", "/dev/shm")
		free, ok = explore.TempDiskFree()
	}
	over := free/explore.PathLogBytes + 1_000_000
	if !ok || over > 4e9 {
		t.Skipf("no file system for the temporary files with less than 80 GB free (%d B)", free)
	}
	for _, c := range []struct {
		states int64
		warn   bool
	}{{over, true}, {1000, false}} {
		var out, errb strings.Builder
		code := run([]string{"explore", "--nodes", "2", "--max-states", fmt.Sprint(c.states), "--quiet", "--trace", "-"}, &out, &errb)
		if got := strings.Contains(errb.String(), "of path log"); code != 0 || got != c.warn || strings.Count(errb.String(), "\n") > 1 {
			t.Errorf("--max-states %d: exit %d, stderr %q; want 0 and a one-line warning %v", c.states, code, errb.String(), c.warn)
		}
	}
}

func TestExploreMemoryWarning(t *testing.T) {
	total, ok := memsize.Total()
	if !ok {
		t.Skip("this system does not tell its memory")
	}
	for _, c := range []struct {
		max  string
		warn bool
	}{
		{"1000T", true},
		{fmt.Sprintf("%dM", int(total/2)>>20), false},
	} {
		var out, errb strings.Builder
		code := run([]string{"explore", "--nodes", "2", "--max-memory", c.max, "--quiet", "--trace", "-"}, &out, &errb)
		if got := strings.Contains(errb.String(), "is more than this machine's memory"); code != 0 || got != c.warn {
			t.Errorf("--max-memory %s: exit %d, stderr %q; want 0 and a warning %v", c.max, code, errb.String(), c.warn)
		}
	}
}
