package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/results"
)

// shuffled is the simulator with the order in which runs end scrambled: each
// run waits a random time before it starts, so that with several workers a
// later run often ends first. It zeroes the wall time of every record (the
// one figure two runs of the same seed never share) and fails the seeds of
// fail, the later ones sooner. It counts the runs under way at once.
type shuffled struct {
	mu           sync.Mutex
	rng          *rand.Rand
	fail         map[uint64]bool
	running, top int
}

func (s *shuffled) Name() string              { return "sim" }
func (s *shuffled) Supports(bench.Spec) error { return nil }
func (s *shuffled) Batch() int                { return 1 }
func (s *shuffled) Run(specs []bench.Spec) ([]*results.Run, error) {
	s.mu.Lock()
	wait := time.Duration(s.rng.IntN(20)) * time.Millisecond
	s.running++
	s.top = max(s.top, s.running)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running--
		s.mu.Unlock()
	}()
	if s.fail[specs[0].Seed] {
		time.Sleep(time.Duration(100-specs[0].Seed) * time.Millisecond)
		return nil, fmt.Errorf("seed %d failed", specs[0].Seed)
	}
	time.Sleep(wait)
	got, err := bench.Simulator{}.Run(specs)
	for _, r := range got {
		r.WallSeconds = 0
	}
	return got, err
}

// outcome is what a command left: its exit status, stdout, stderr and
// every file it saved, by name.
type outcome struct {
	code           int
	stdout, stderr string
	files          map[string][]byte
}

// runJobs runs args with --jobs jobs and --out saved in a new working
// directory (the saved command names it), in the shuffled simulator rt.
func runJobs(t *testing.T, rt *shuffled, args []string, jobs int) outcome {
	t.Helper()
	t.Chdir(t.TempDir())
	dir := "saved"
	var out, errb bytes.Buffer
	all := append(slices.Clone(args), "--jobs", fmt.Sprint(jobs), "--out", dir)
	simulator = rt
	code := run(all, &out, &errb)
	simulator = bench.Simulator{}
	files := map[string][]byte{}
	names, _ := filepath.Glob(filepath.Join(dir, results.RunsDir, "*"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(n)] = b
	}
	return outcome{code, out.String(), errb.String(), files}
}

// TestJobsSameAsOne runs sweeps on one worker and on four, each run
// waiting a random time so that they end in another order than they
// started, and requires the same exit status, stdout, stderr and saved
// files (JSON and CSV), byte for byte: the results are taken in the order
// of the runs, not of their ends. A sweep with a violation fails the same
// way with the same replay command; one whose runs fail reports the first
// failing run in order, though a later one failed sooner.
func TestJobsSameAsOne(t *testing.T) {
	defer func(c func() time.Time) { clock = c }(clock)
	clock = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	cases := []struct {
		name string
		args []string
		fail []uint64 // seeds whose runs fail
		code int
		want string // in stdout or stderr
	}{
		{"seeds, sizes and algorithms with crashes and baselines", []string{"--algo", "opencube,naimi-trehel-ft", "--nodes", "8,16", "--crashes", "4", "--workload", "poisson",
			"--requests", "30", "--repeat", "4"}, nil, 0, "differential"},
		{"every algorithm at two sizes", []string{"--algo", "all", "--nodes", "4,8", "--requests", "40", "--workload", "saturated", "--wide"}, nil, 0, "raymond"},
		{"json", []string{"--algo", "ft", "--nodes", "8", "--requests", "40", "--repeat", "3", "--json"}, nil, 0, `"runs"`},
		{"a violation", []string{"--nodes", "8", "--crashes", "3", "--workload", "saturated", "--delay-violations", "0.3", "--requests", "200", "--repeat", "6"}, nil, 1, "--delay-violations 0.3"},
		{"failing runs", []string{"--nodes", "8", "--requests", "30", "--repeat", "8"}, []uint64{4, 6, 7}, 1, "seed 4 failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fail := map[uint64]bool{}
			for _, s := range c.fail {
				fail[s] = true
			}
			one := runJobs(t, &shuffled{rng: rand.New(rand.NewPCG(1, 2)), fail: fail}, c.args, 1)
			rt := &shuffled{rng: rand.New(rand.NewPCG(3, 4)), fail: fail}
			four := runJobs(t, rt, c.args, 4)
			if one.code != c.code || !bytes.Contains([]byte(one.stdout+one.stderr), []byte(c.want)) {
				t.Fatalf("--jobs 1: exit %d, want %d and %q in the output:\n%s%s", one.code, c.code, c.want, one.stdout, one.stderr)
			}
			if four.code != one.code {
				t.Errorf("exit %d with --jobs 4, %d with --jobs 1", four.code, one.code)
			}
			if four.stdout != one.stdout {
				t.Errorf("stdout differs:\n--jobs 1:\n%s\n--jobs 4:\n%s", one.stdout, four.stdout)
			}
			if four.stderr != one.stderr {
				t.Errorf("stderr differs:\n--jobs 1:\n%s\n--jobs 4:\n%s", one.stderr, four.stderr)
			}
			if len(one.files) == 0 && c.fail == nil {
				t.Error("nothing saved")
			}
			for name, b := range one.files {
				if !bytes.Equal(four.files[name], b) {
					t.Errorf("saved file %s differs:\n--jobs 1:\n%s\n--jobs 4:\n%s", name, b, four.files[name])
				}
			}
			if len(four.files) != len(one.files) {
				t.Errorf("%d files saved with --jobs 4, %d with --jobs 1", len(four.files), len(one.files))
			}
			if c.fail == nil && rt.top < 2 {
				t.Errorf("at most %d run at once with --jobs 4", rt.top)
			}
		})
	}
}

// TestJobsMemoryBudget gives a budget that holds one run and a half: with
// four workers the runs go one at a time, and the records are the same.
func TestJobsMemoryBudget(t *testing.T) {
	args := []string{"--nodes", "16", "--requests", "50", "--repeat", "6", "--json", "--no-save"}
	var o options
	fs := newFlags(&o)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	list, err := configs(&o, fs)
	if err != nil {
		t.Fatal(err)
	}
	need := bench.Memory(list[0].plan)
	for _, c := range []struct {
		budget float64
		top    int // most runs at once: exactly (1) or at least
	}{{1.5 * need, 1}, {4 * need, 2}} {
		rt := &shuffled{rng: rand.New(rand.NewPCG(5, 6))}
		simulator = rt
		var out, errb bytes.Buffer
		code := run(append(slices.Clone(args), "--jobs", "4", "--max-memory", fmt.Sprint(int64(c.budget))), &out, &errb)
		simulator = bench.Simulator{}
		if code != 0 {
			t.Fatalf("budget %g: exit %d: %s", c.budget, code, errb.String())
		}
		if c.top == 1 && rt.top != 1 || c.top > 1 && rt.top < c.top {
			t.Errorf("budget %.1f runs (of %g bytes each): %d ran at once", c.budget/need, need, rt.top)
		}
	}
}

// TestJobsFlag: --jobs out of range is refused in one line; --jobs is left
// out of the saved command.
func TestJobsFlag(t *testing.T) {
	for _, j := range []string{"-1", "1025", "many"} {
		var out, errb bytes.Buffer
		if code := run([]string{"--nodes", "8", "--jobs", j, "--no-save"}, &out, &errb); code != 2 || !bytes.Contains(errb.Bytes(), []byte("--jobs")) {
			t.Errorf("--jobs %s: exit %d, stderr %q; want exit 2 naming --jobs", j, code, errb.String())
		}
	}
	for _, c := range []struct{ in, want []string }{
		{[]string{"--nodes", "8", "--jobs", "4", "--seed", "2"}, []string{"--nodes", "8", "--seed", "2"}},
		{[]string{"--jobs=3", "--quiet"}, []string{"--quiet"}},
		{[]string{"--quiet"}, []string{"--quiet"}},
	} {
		if got := withoutJobs(c.in); !slices.Equal(got, c.want) {
			t.Errorf("withoutJobs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
