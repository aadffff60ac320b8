//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ocbench/ocbench/results"
)

// envFaultsMPI runs the MPI fault cases: "required" (make faults-mpi)
// fails them where OpenMPI is missing, any other value skips them there;
// unset, they are skipped (they run under make faults-mpi, not twice).
const envFaultsMPI = "OCBENCH_FAULTS_MPI"

// mpiTools returns the MPI build of ocbench (built into a temporary
// directory) and scripts/mpirun.sh, or skips the test (envFaultsMPI).
func mpiTools(t *testing.T) (bin, mpirun string) {
	t.Helper()
	if os.Getenv(envFaultsMPI) == "" {
		t.Skipf("the MPI fault cases run with %s set (make faults-mpi)", envFaultsMPI)
	}
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(here), "..", "..")
	_, errRun := exec.LookPath("mpirun")
	errPkg := exec.Command("pkg-config", "--exists", "ompi").Run()
	if errRun != nil || errPkg != nil {
		if os.Getenv(envFaultsMPI) == "required" {
			t.Fatalf("OpenMPI is missing (mpirun: %v, pkg-config ompi: %v) and %s=required", errRun, errPkg, envFaultsMPI)
		}
		t.Skipf("OpenMPI is missing (mpirun: %v, pkg-config ompi: %v): make test installs it", errRun, errPkg)
	}
	mpiBuild.Do(func() {
		dir, err := os.MkdirTemp("", "ocbench-faults-mpi")
		if err != nil {
			mpiBuild.err = err
			return
		}
		atExit = append(atExit, func() { os.RemoveAll(dir) })
		mpiBuild.bin = filepath.Join(dir, "ocbench-mpi")
		build := exec.Command("go", "build", "-tags", "mpi", "-o", mpiBuild.bin, ".")
		build.Dir = filepath.Dir(here)
		if out, err := build.CombinedOutput(); err != nil {
			mpiBuild.err = fmt.Errorf("go build -tags mpi: %v\n%s", err, out)
		}
	})
	if mpiBuild.err != nil {
		t.Fatal(mpiBuild.err)
	}
	return mpiBuild.bin, filepath.Join(root, "scripts", "mpirun.sh")
}

// mpiBuild is the MPI build of ocbench that the MPI fault cases share.
var mpiBuild struct {
	sync.Once
	bin string
	err error
}

// jobResult is how an mpirun job ended.
type jobResult struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// runJob runs `mpirun.sh args…` in dir, in a process group of its own, and
// kills the group if it is still running after limit (code -1).
func runJob(t *testing.T, dir string, limit time.Duration, mpirun string, args ...string) jobResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, mpirun, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// scripts/mpirun.sh runs mpirun in a session of its own: the
		// script's process group does not hold it, nor its ranks.
		for _, pid := range descendants(cmd.Process.Pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 10 * time.Second // a process that escaped still holds the pipes
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := jobResult{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.code = -1
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.code = 128 + int(ws.Signal())
		}
	case err != nil:
		t.Fatalf("mpirun %v: %v", args, err)
	}
	return r
}

// descendants returns the processes below pid (children, theirs, …),
// from /proc; none where there is no /proc.
func descendants(pid int) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	children := map[int][]int{}
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses.
		i := strings.LastIndex(string(b), ") ")
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b)[i+2:])
		if len(f) < 2 {
			continue
		}
		p, err1 := strconv.Atoi(strings.Fields(string(b))[0])
		pp, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	for next := children[pid]; len(next) > 0; {
		p := next[0]
		next = append(next[1:], children[p]...)
		out = append(out, p)
	}
	return out
}

// oneLine reports whether s is one line ending in a newline.
func oneLine(s string) bool { return strings.Count(s, "\n") == 1 && strings.HasSuffix(s, "\n") }

// TestFaultsMPISubcommand (issue 40, finding 14): an MPMD job whose other
// ranks run a subcommand, the help, the version or the list of algorithms
// ends every rank within seconds with status 2 and one line from rank 0
// naming both commands; before, such a job hung in MPI_Init, or mpirun
// ended it without a word from ocbench. A job whose every rank runs the
// same subcommand runs it once, on rank 0.
func TestFaultsMPISubcommand(t *testing.T) {
	bin, mpirun := mpiTools(t)
	dir := t.TempDir()
	trace := filepath.Join(dir, "crash.jsonl")
	if out, err := exec.Command(bin, "--nodes", "8", "--crashes", "2", "--workload", "poisson", "--requests", "1", "--no-baseline", "--no-save", "--quiet", "--trace", trace).CombinedOutput(); err != nil {
		t.Fatalf("writing a trace: %v\n%s", err, out)
	}
	bench := []string{bin, "--nodes", "8", "--requests", "50", "--no-save", "--quiet"}
	cases := []struct {
		name string
		args []string
	}{
		{"check-trace", append(append([]string{"-np", "2"}, bench...), ":", "-np", "2", bin, "check-trace", "crash.jsonl")},
		{"version", append(append([]string{"-np", "2"}, bench...), ":", "-np", "2", bin, "version")},
		{"report", append(append([]string{"-np", "2"}, bench...), ":", "-np", "2", bin, "report", "crash.jsonl")},
		{"help", append(append([]string{"-np", "2"}, bench...), ":", "-np", "1", bin, "--help")},
		{"algo-list", append(append([]string{"-np", "3"}, bench...), ":", "-np", "1", bin, "--algo", "list")},
		{"subcommand-first", append([]string{"-np", "2", bin, "version", ":", "-np", "2"}, bench...)},
		{"two-subcommands", []string{"-np", "2", bin, "version", ":", "-np", "2", bin, "check-trace", "crash.jsonl"}},
		{"bad-flag-and-subcommand", []string{"-np", "2", bin, "--bogus", ":", "-np", "2", bin, "view", "crash.jsonl"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runJob(t, dir, 60*time.Second, mpirun, c.args...)
			if r.code != 2 || !oneLine(r.stderr) || !strings.Contains(r.stderr, "ocbench: ranks disagree: rank ") ||
				!strings.Contains(r.stderr, "has the command `ocbench ") || r.stdout != "" || r.took > 30*time.Second {
				t.Errorf("mpirun %s: exit %d after %v (-1: killed at the limit); want 2 and one line naming both commands; stderr %q, stdout %q",
					strings.Join(c.args, " "), r.code, r.took.Round(time.Millisecond), r.stderr, r.stdout)
			}
		})
	}
	t.Run("every-rank-alike", func(t *testing.T) {
		r := runJob(t, dir, 60*time.Second, mpirun, "-np", "3", bin, "check-trace", "crash.jsonl")
		if r.code != 0 || strings.Count(r.stdout, "crash.jsonl: ok") != 1 {
			t.Errorf("mpirun -np 3 ocbench check-trace: exit %d, stdout %q (want one ok line), stderr %q", r.code, r.stdout, r.stderr)
		}
	})
	if _, err := os.Stat(filepath.Join(dir, "crash.html")); err == nil {
		t.Errorf("a refused job wrote crash.html")
	}
}

// TestFaultsMPIInterrupt (issue 40, finding 17): SIGINT or SIGTERM to
// scripts/mpirun.sh in the middle of an MPI job ends it with status 130
// and rank 0's one line saying what it saved, as without MPI; the saved
// file holds the runs the line counts. Before, mpirun answered the signal
// by killing the ranks: exit 1, and the line was often lost.
func TestFaultsMPIInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("about 40 s: make check runs it")
	}
	bin, mpirun := mpiTools(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			// A hundred jobs of 64 runs, under a second each on 2 ranks
			// (a few seconds on a loaded machine): some are over by the
			// signal.
			cmd := exec.Command(mpirun, "-np", "2", bin, "--nodes", "8", "--requests", "200", "--repeat", "6400", "--verify=false", "--out", dir)
			cmd.Dir = dir
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			ended := make(chan struct{})
			go func() { cmd.Wait(); close(ended) }()
			select {
			case <-time.After(10 * time.Second):
			case <-ended:
				t.Fatalf("the job ended before the signal: stderr %q", stderr.String())
			}
			sent := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-ended:
			case <-time.After(30 * time.Second):
				t.Fatalf("still running 30 s after %v: stderr %q", sig, stderr.String())
			}
			code := cmd.ProcessState.ExitCode()
			m := regexp.MustCompile(`^ocbench: interrupted; saved (\d+) finished runs as partial to (\S+\.json)\n$`).FindStringSubmatch(stderr.String())
			if code != interruptCode || m == nil || stdout.Len() != 0 {
				t.Fatalf("exit %d %v after %v; want %d and one line saying what was saved; stderr %q, stdout %q",
					code, cmd.ProcessState, time.Since(sent).Round(time.Millisecond), interruptCode, stderr.String(), stdout.String())
			}
			s, err := results.LoadSaved(m[2])
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := strconv.Atoi(m[1]); !s.Environment.Partial || len(s.Runs) != 1 || len(s.Runs[0].Seeds) != n || n == 0 {
				t.Errorf("saved: partial %v, %d records; want partial, one record of the %s finished seeds", s.Environment.Partial, len(s.Runs), m[1])
			}
		})
	}
}

// TestFaultsMPIVerifyBroken (issue 40, finding 18): --verify of an MPI job
// whose run breaks an invariant (--protocol paper makes two tokens at this
// seed) says that the records differ as expected of a broken run, in one
// line, exit 1; not "a bug: please report it".
func TestFaultsMPIVerifyBroken(t *testing.T) {
	bin, mpirun := mpiTools(t)
	r := runJob(t, t.TempDir(), 60*time.Second, mpirun, "-np", "2", bin, "--nodes", "8", "--requests", "50", "--protocol", "paper",
		"--crashes", "2", "--workload", "poisson", "--no-save", "--quiet")
	if r.code != 1 || !oneLine(r.stderr) || !strings.Contains(r.stderr, "breaks an invariant (2 safety, 0 liveness violations)") ||
		!strings.Contains(r.stderr, "as expected of a broken run") || strings.Contains(r.stderr, "a bug") {
		t.Errorf("exit %d; want 1 and the expected difference in one line; stderr %q", r.code, r.stderr)
	}
}
