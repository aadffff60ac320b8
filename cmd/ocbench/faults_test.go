//go:build unix

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ocbench/ocbench/internal/memsize"
)

// faultCase is one command line of the fault-injection suite, run as a
// child process in a directory of inputs (faultInputs): the status it must
// end with, within limit and maxRSS, and what its output must hold.
type faultCase struct {
	finding string   // the issue and finding: "40.19" (issue 40, finding 19)
	args    []string // ocbench's arguments
	code    int
	// want is in stderr's one line (code ≠ 0) or in stdout (code 0).
	want string
	// nobody runs the command as user nobody when the test runs as root
	// (permission bits bind only other users).
	nobody bool
	long   bool          // only without -short (make check)
	limit  time.Duration // 0: 20 s
	maxRSS int64         // bytes, 0: 512 MiB
	// setup prepares the case's inputs in dir; check looks at dir after.
	setup, check func(t *testing.T, dir string)
}

// TestFaults is the fault-injection suite: the adversarial rounds' command
// lines (issue 27's, issue 40's), each a child process given bad input,
// special files, read-only or full outputs, limits: every one ends within
// its time and memory bound with its status and one line (or its output),
// and replaces no input. -short (make test) runs the quick ones; make
// check runs every one. The cases under mpirun are TestFaultsMPI*.
func TestFaults(t *testing.T) {
	const trace = `{"t":0,"node":0,"ev":"request"}
{"t":1,"node":0,"ev":"send","type":"request","from":0,"to":1,"msg":0,"j":0,"tag":1}
{"t":2,"node":1,"ev":"recv","type":"request","from":0,"to":1,"msg":0,"j":0,"tag":1}
{"t":3,"node":0,"ev":"enter"}
{"t":4,"node":0,"ev":"exit"}
`
	unchanged := func(name, text string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != text {
				t.Errorf("%s now holds %.80q (%v)", name, b, err)
			}
		}
	}
	readOnly := func(path string, mode os.FileMode) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, path)
			if mode.IsDir() {
				mustMkdir(t, p)
			} else {
				mustMkdir(t, filepath.Dir(p))
				mustWrite(t, p, "")
			}
			if err := os.Chmod(p, mode.Perm()); err != nil {
				t.Fatal(err)
			}
		}
	}
	nothingSaved := func(t *testing.T, dir string) {
		if m, _ := filepath.Glob(filepath.Join(dir, "ro", "runs", "*.json")); len(m) > 0 {
			t.Errorf("saved %v", m)
		}
	}
	small := []string{"--nodes", "8", "--requests", "50"}
	cases := []faultCase{
		// Issue 40: nothing overwritten.
		{finding: "40.1", args: []string{"view", "-o", "./c1.jsonl", "c1.jsonl"}, code: 2, want: "is the input c1.jsonl: refusing to replace it", check: unchanged("c1.jsonl", trace)},
		{finding: "40.2", args: []string{"view", "-o", "/dev/null", "c1.jsonl"}, code: 0, want: "/dev/null", check: func(t *testing.T, _ string) {
			if st, err := os.Lstat("/dev/null"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
				t.Errorf("/dev/null is no longer a character device: %v, %v", st, err)
			}
		}},
		{finding: "40.2", args: []string{"view", "-o", "-", "c1.jsonl"}, code: 0, want: "<!DOCTYPE html>"},
		{finding: "40.3", args: []string{"explore", "--nodes", "4", "--trace", "c1.jsonl"}, code: 2, want: "c1.jsonl exists (--force overwrites it)", check: unchanged("c1.jsonl", trace)},
		// Wrong answers.
		{finding: "40.4", args: []string{"check-trace", "noentry.jsonl"}, code: 1, want: "node 0 exits the critical section without an entry"},
		{finding: "40.5", args: []string{"check-trace", "c1.jsonl"}, code: 0, want: "c1.jsonl: ok"},
		{finding: "40.6", args: []string{"--algo", "kofl", "--nodes", "4", "--requests", "20", "--transient", "initial", "--climb", "3", "--json", "--no-save"}, code: 0, want: `"runs": [`},
		{finding: "40.7", args: []string{"report", "-o", "-", "--format", "html", "runs", "runs"}, code: 0, want: "<!DOCTYPE html>"},
		// Endless or unbounded.
		{finding: "40.8", args: []string{"--algo", "kofl", "--nodes", "8", "--requests", "20", "--timeout", "NaN"}, code: 2, want: "--timeout: NaN is not in"},
		{finding: "40.9", args: []string{"explore", "--algo", "kofl", "--nodes", "2", "--transient", "--domain", "zero", "--timeout", "NaN"}, code: 2, want: "--timeout: NaN is not in [0, 100]"},
		{finding: "40.10", args: []string{"explore", "--algo", "kofl", "--nodes", "2", "--transient", "--ell", "6"}, code: 2, want: "more than 20000000 initial configurations", limit: 5 * time.Second},
		{finding: "40.10", args: []string{"explore", "--algo", "kofl", "--nodes", "2", "--transient", "--k-max", "99"}, code: 2, want: "more than 20000000 initial configurations", limit: 5 * time.Second},
		{finding: "40.10", args: []string{"explore", "--algo", "kofl", "--nodes", "2", "--transient", "--ell", "5"}, code: 2, want: "initial configurations", limit: 5 * time.Second, long: true},
		{finding: "40.11", args: []string{"--nodes", "8", "--requests", "10000000", "--max-memory", "100M"}, code: 2, want: "lower --nodes or --requests"},
		{finding: "40.13", args: []string{"report", "-o", "out", "/dev/zero"}, code: 2, want: "/dev/zero is a character device, not a regular file"},
		{finding: "40.13", args: []string{"report", "-o", "out", "mixed/f.json"}, code: 2, want: "mixed/f.json is a FIFO"},
		{finding: "40.13", args: []string{"report", "-o", "out", "mixed"}, code: 0, want: "wrote out/report.md"},
		// Unclear.
		{finding: "40.15", args: []string{"explore", "--algo", "all", "--nodes", "2", "--cs-time", "20", "--ticks", "20"}, code: 2, want: "ticks in the critical section"},
		{finding: "40.16", args: []string{"explore", "--cs-time", "NaN"}, code: 2, want: "--cs-time: NaN is not in [0, 20]"},
		{finding: "40.19", args: append([]string{"--out", "ro"}, small...), nobody: true, code: 2, want: "--out: cannot write in ro/runs", setup: readOnly("ro/runs", os.ModeDir|0o555), check: nothingSaved},
		{finding: "40.19", args: append([]string{"--out", "ro"}, small...), nobody: true, code: 2, want: "--out: cannot append to ro/runs/runs.csv", setup: readOnly("ro/runs/runs.csv", 0o444), check: nothingSaved},
		{finding: "40.19", args: append([]string{"--out", "/dev/null/x"}, small...), code: 2, want: "--out: cannot create the results directory"},
		// Issue 27: the first round.
		{finding: "27", args: []string{"--cs-time", "NaN"}, code: 2, want: "--cs-time: NaN is not in [0, 1e6]"},
		{finding: "27", args: []string{"--think", "3", "--nodes", "8"}, code: 2, want: "--think: the think time is the poisson workload's"},
		{finding: "27", args: []string{"--algo", ""}, code: 2, want: "--algo: no algorithm named"},
		{finding: "27", args: []string{"--seed", "18446744073709551615", "--repeat", "2"}, code: 2, want: "beyond 2^64−1"},
		{finding: "27", args: []string{"--late-factor", "0", "--delay-violations", "0.1"}, code: 2, want: "--late-factor: 0 is not in (1, 1e6]"},
		{finding: "27", args: []string{"version", "x"}, code: 2, want: `unexpected argument "x"`},
		{finding: "27", args: []string{"--algo", "lamport", "--nodes", "65536"}, code: 2, want: "more than the budget"},
		{finding: "27", args: append([]string{"--trace", "c1.jsonl", "--no-save"}, small...), code: 2, want: "c1.jsonl exists (--force overwrites it)", check: unchanged("c1.jsonl", trace)},
		{finding: "27", args: []string{"check-trace", "nosuch.jsonl"}, code: 2, want: "nosuch.jsonl"},
		{finding: "27", args: []string{"check-trace", "runs/a.json"}, code: 1, want: "runs/a.json: trace line 1: not a trace event"},
	}
	_, here, _, _ := runtime.Caller(0)
	saved, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "report", "testdata", "crashes.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.finding+"/"+strings.Join(c.args, " "), func(t *testing.T) {
			if c.long && testing.Short() {
				t.Skip("a long case: make check runs it")
			}
			dir := openTempDir(t)
			faultInputs(t, dir, trace, string(saved))
			if c.setup != nil {
				c.setup(t, dir)
			}
			r := runFault(t, dir, c)
			out := r.stdout
			if c.code != 0 {
				out = r.stderr
				if !oneLine(out) {
					t.Errorf("stderr is not one line: %q", out)
				}
			}
			limit, maxRSS := c.limit, c.maxRSS
			if limit == 0 {
				limit = 20 * time.Second
			}
			if maxRSS == 0 {
				maxRSS = 512 << 20
			}
			switch {
			case r.code == -1:
				t.Errorf("still running after %v", limit)
			case r.code != c.code || !strings.Contains(out, c.want):
				t.Errorf("exit %d, want %d; output %.300q, want %q in it (stderr %.300q)", r.code, c.code, out, c.want, r.stderr)
			case r.rss > maxRSS:
				t.Errorf("peak RSS %d MiB, more than %d MiB", r.rss>>20, maxRSS>>20)
			}
			if c.check != nil {
				c.check(t, dir)
			}
		})
	}
}

// faultInputs writes the suite's inputs into dir: c1.jsonl (a trace with a
// message 0), noentry.jsonl (an exit without an entry), runs/a.json (a
// saved run), mixed/ (a saved run, a FIFO and a link to /dev/zero, all
// named *.json), and makes dir and them readable by anyone (the cases run
// as nobody).
func faultInputs(t *testing.T, dir, trace, saved string) {
	t.Helper()
	mustWrite(t, filepath.Join(dir, "c1.jsonl"), trace)
	mustWrite(t, filepath.Join(dir, "noentry.jsonl"), `{"t":0,"node":0,"ev":"request"}
{"t":1,"node":0,"ev":"enter"}
{"t":2,"node":0,"ev":"exit"}
{"t":3,"node":0,"ev":"exit"}
{"t":4,"node":1,"ev":"exit"}
`)
	for _, d := range []string{"runs", "mixed"} {
		mustMkdir(t, filepath.Join(dir, d))
	}
	mustWrite(t, filepath.Join(dir, "runs", "a.json"), saved)
	mustWrite(t, filepath.Join(dir, "mixed", "a.json"), saved)
	if err := syscall.Mkfifo(filepath.Join(dir, "mixed", "f.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "mixed", "x.json")); err != nil {
		t.Fatal(err)
	}
}

// openTempDir returns a new temporary directory that every user may enter
// and write (t.TempDir's parent is the test's alone), removed at the end.
func openTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ocbench-fault")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

func mustWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustMkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(path, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o777); err != nil {
		t.Fatal(err)
	}
}

// faultResult is how a fault case's process ended: its status (-1: killed
// at the time limit), its output and its peak RSS in bytes (as last seen
// before it ended: pollPeak).
type faultResult struct {
	code           int
	stdout, stderr string
	rss            int64
}

// runFault runs c's command line as ocbench (this test binary, childMain)
// in dir, killed at its time limit.
func runFault(t *testing.T, dir string, c faultCase) faultResult {
	t.Helper()
	limit := c.limit
	if limit == 0 {
		limit = 20 * time.Second
	}
	cmd := ocbenchCmd(t, c.args)
	if c.nobody && os.Geteuid() == 0 {
		cmd.Path = nobodyBinary(t)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			cmd.Process.Kill()
		case <-ended:
		}
	}()
	var peak atomic.Int64
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		pollPeak(cmd.Process.Pid, ended, &peak)
	}()
	cmd.Wait()
	close(ended)
	<-polled
	r := faultResult{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String(), rss: peak.Load()}
	if ctx.Err() != nil {
		r.code = -1
	}
	return r
}

// pollPeak keeps in peak the child pid's peak resident memory
// (memsize.Peak, bytes) until ended, reading it every 20 ms.
func pollPeak(pid int, ended <-chan struct{}, peak *atomic.Int64) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := memsize.Peak(pid); err == nil && int64(b) > peak.Load() {
			peak.Store(int64(b))
		}
		select {
		case <-ended:
			return
		case <-tick.C:
		}
	}
}

// nobodyBinary returns a copy of this test binary that user nobody may run
// (the build directory is root's alone).
func nobodyBinary(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ocbench-nobody")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	path := filepath.Join(dir, "ocbench.test")
	dst, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExploreMemoryBound: explore's --max-memory bounds the process (finding
// 40.12: 1G peaked at 2.19 GB): a search whose BFS levels outgrow it (300,000
// states of N = 64, about 400 bytes each) spills them to disk and stops
// INCOMPLETE at its state limit (exit 1) with a peak resident memory within
// an eighth over the budget.
func TestExploreMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("a search of 10 s")
	}
	const budget = 96 << 20
	r := runFault(t, t.TempDir(), faultCase{args: []string{"explore", "--nodes", "64", "--max-memory", "96M", "--max-states", "300000", "--quiet"}, limit: 120 * time.Second})
	switch {
	case r.code != 1 || !strings.Contains(r.stdout, "INCOMPLETE: the state limit") || !strings.Contains(r.stdout, "spilled to disk"):
		t.Fatalf("exit %d, stdout %.300q, stderr %.300q; want exit 1, INCOMPLETE for the state limit and levels spilled", r.code, r.stdout, r.stderr)
	case r.rss > budget+budget/8:
		t.Errorf("peak RSS %d MiB with --max-memory 96M", r.rss>>20)
	default:
		t.Logf("peak RSS %d MiB with --max-memory 96M", r.rss>>20)
	}
}
