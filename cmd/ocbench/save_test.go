package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ocbench/ocbench/results"
)

// TestMain runs the tests in a temporary directory, so that runs saved to
// the default results directory never land in the repository.
func TestMain(m *testing.M) {
	if args := os.Getenv(envMain); args != "" {
		childMain(args)
	}
	dir, err := os.MkdirTemp("", "ocbench-cmd-test")
	if err != nil {
		panic(err)
	}
	if err := os.Chdir(dir); err != nil {
		panic(err)
	}
	code := m.Run()
	for _, f := range atExit {
		f()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// savedFiles returns the saved-run JSON files under dir.
func savedFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, results.RunsDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSavedRunMatchesJSON: the saved file holds the same runs as --json
// prints, plus the environment.
func TestSavedRunMatchesJSON(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--nodes", "8", "--crashes", "10", "--workload", "poisson", "--repeat", "2", "--json", "--out", dir}
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	files := savedFiles(t, dir)
	if len(files) != 1 || !strings.Contains(errb.String(), "saved "+files[0]) {
		t.Fatalf("saved %v, stderr %q", files, errb.String())
	}
	s, err := results.LoadSaved(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var printed results.Report
	if err := json.Unmarshal(out.Bytes(), &printed); err != nil {
		t.Fatal(err)
	}
	// Wall time differs between the two encodings only if they were
	// different runs: they must be the same record.
	if !reflect.DeepEqual(printed.Runs, s.Runs) {
		t.Errorf("saved runs differ from the printed ones")
	}
	e := s.Environment
	if e.Version != version || e.Ranks != 1 || e.Runtime != "simulator" || e.Seed != 1 || e.Repeat != 2 ||
		e.DeltaSeconds != 0.001 || e.Date == "" || len(e.Hostnames) != 1 || !strings.HasPrefix(e.GoVersion, "go") ||
		!strings.Contains(e.Command, "--crashes 10") || len(e.Header) == 0 {
		t.Errorf("environment %+v", e)
	}
	if _, err := os.Stat(filepath.Join(dir, results.RunsDir, results.CSVName)); err != nil {
		t.Errorf("no CSV: %v", err)
	}
}

func TestSaveFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	small := []string{"--nodes", "4", "--requests", "10"}
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string // what stderr contains ("" : nothing)
		saved  bool   // a run saved under the default directory
	}{
		{"default directory", nil, 0, "saved runs/", true},
		{"quiet", []string{"-q"}, 0, "", true},
		{"no-save", []string{"--no-save"}, 0, "", false},
		{"out empty", []string{"--out", ""}, 0, "", false},
		{"out impossible", []string{"--out", filepath.Join(file, "sub")}, 2, "--out: cannot create", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			os.RemoveAll("runs")
			var out, errb bytes.Buffer
			code := run(append(append([]string{}, small...), c.args...), &out, &errb)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, c.code, errb.String())
			}
			if c.stderr == "" && errb.Len() > 0 || !strings.Contains(errb.String(), c.stderr) || strings.Count(errb.String(), "\n") > 1 {
				t.Errorf("stderr %q, want one line with %q", errb.String(), c.stderr)
			}
			if got := len(savedFiles(t, ".")) == 1; got != c.saved {
				t.Errorf("saved: %v, want %v", got, c.saved)
			}
		})
	}
}

// TestDefaultDirUnwritable: with the default results directory impossible
// to create, the run still prints its table and exits 0, with a warning.
func TestDefaultDirUnwritable(t *testing.T) {
	os.RemoveAll("runs")
	if err := os.WriteFile("runs", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove("runs")
	var out, errb bytes.Buffer
	if code := run([]string{"--nodes", "4", "--requests", "10"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "warning: not saving") || !strings.Contains(out.String(), "opencube") {
		t.Errorf("stdout %q, stderr %q", out.String(), errb.String())
	}
}

func TestReportCommand(t *testing.T) {
	runs := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"--nodes", "8", "--crashes", "10", "--workload", "poisson", "--out", runs, "-q"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	dir := filepath.Join(t.TempDir(), "rep")
	out.Reset()
	if code := run([]string{"report", "-o", dir, "--format", "html", filepath.Join(runs, results.RunsDir)}, &out, &errb); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil || !strings.Contains(out.String(), "report.html") {
		t.Errorf("no report.html (%v); stdout %q", err, out.String())
	}
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "no saved runs"},
		{[]string{"report", "--format", "pdf", filepath.Join(runs, results.RunsDir)}, "--format"},
		{[]string{"report", "--image", "gif", filepath.Join(runs, results.RunsDir)}, "--image"},
		{[]string{"report", "--bogus", "x"}, "bogus"},
		{[]string{"report", "/nonexistent/run.json"}, "/nonexistent/run.json"},
	}
	for _, c := range bad {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		if code != 2 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line naming %s", c.args, code, errb.String(), c.want)
		}
	}
}

// TestHelp: every flag is listed with its default, but for an empty string
// and false, which say nothing; the examples cover the main uses.
func TestHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, &out, &errb); code != 0 {
		t.Fatal(code)
	}
	h := out.String()
	var o options
	fs := newFlags(&o)
	for _, c := range []struct {
		name, want string // want "": no default shown
	}{
		{"nodes", "(default 32)"}, {"out", `(default ".")`}, {"crashes", "(default 0)"}, {"workload", `(default "sequential")`},
		{"preset", ""}, {"trace", ""}, {"json", ""}, {"no-save", ""}, {"quiet", ""}, {"force", ""}, {"fifo", ""},
	} {
		f := fs.Lookup(c.name)
		line := ""
		for _, l := range strings.Split(h, "\n") {
			if strings.Contains(l, "--"+c.name+" ") {
				line = l
				break
			}
		}
		switch {
		case c.want != "" && !strings.Contains(line, c.want):
			t.Errorf("--%s: no %s in %q", c.name, c.want, line)
		case c.want == "" && strings.Contains(line, "(default "+f.DefValue+")"):
			t.Errorf("--%s: %q shows its empty default", c.name, line)
		}
	}
	for _, want := range []string{"ocbench report runs/", "ocbench version", "--preset ipsc2", "--json"} {
		if !strings.Contains(h, want) {
			t.Errorf("help lacks the example %q", want)
		}
	}
	out.Reset()
	if code := run([]string{"version"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "MPI support: ") {
		t.Errorf("version: %q", out.String())
	}
}

// atExit are the package's cleanups after every test (a build shared by
// tests).
var atExit []func()

// envMain, set, makes the test binary ocbench itself (childMain): its
// value is the arguments, as a JSON array.
const envMain = "OCBENCH_TEST_MAIN"

// envFileSize, set, is the file-size limit of childMain, in bytes (what
// `ulimit -f` sets).
const envFileSize = "OCBENCH_TEST_FSIZE"

// childMain runs main with the arguments args (a JSON array), after setting
// the file-size limit of envFileSize if any; main exits.
func childMain(args string) {
	var a []string
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		panic(err)
	}
	if n, err := strconv.ParseUint(os.Getenv(envFileSize), 10, 64); err == nil {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
			panic(err)
		}
	}
	os.Args = append([]string{"ocbench"}, a...)
	main()
}

// ocbenchCmd returns the command that runs ocbench with args in a child
// process (this test binary, as childMain), with the environment variables
// env added.
func ocbenchCmd(t *testing.T, args []string, env ...string) *exec.Cmd {
	t.Helper()
	js, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), envMain+"="+string(js)), env...)
	return cmd
}

// checkSaved checks the saved runs under dir: every .json file reads, and
// runs.csv has the header then whole rows, each naming a saved file. It
// returns the number of saved files and of rows.
func checkSaved(t *testing.T, dir string) (files, rows int) {
	t.Helper()
	names := map[string]bool{}
	for _, f := range savedFiles(t, dir) {
		if _, err := results.LoadSaved(f); err != nil {
			t.Errorf("a saved file does not read: %v", err)
		}
		names[filepath.Base(f)] = true
	}
	f, err := os.Open(filepath.Join(dir, results.RunsDir, results.CSVName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = len(results.CSVHeader())
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", results.CSVName, err)
	}
	for _, rec := range recs[1:] {
		if !names[rec[0]] {
			t.Errorf("a row names %s, not a saved file", rec[0])
		}
	}
	return len(names), len(recs) - 1
}

// TestStdoutFails: a run whose output cannot be written (a full disk, a
// pipe closed by its reader) is saved all the same, and exits with status
// 1 and one line that says so (not killed by SIGPIPE).
func TestStdoutFails(t *testing.T) {
	cases := []struct {
		name   string
		stdout func(t *testing.T) *os.File
		json   bool
		want   string
	}{
		{"disk full", func(t *testing.T) *os.File {
			f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
			if err != nil {
				t.Skip(err)
			}
			return f
		}, false, "no space left"},
		{"closed pipe", func(t *testing.T) *os.File {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
			return w
		}, true, "broken pipe"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"--algo", "all", "--nodes", "2,4,8,16,32", "--requests", "10", "--out", dir, "-q"}
			if c.json {
				args = append(args, "--json")
			}
			cmd := ocbenchCmd(t, args)
			out := c.stdout(t)
			defer out.Close()
			var errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = out, &errb
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("ended with %v, want exit status 1; stderr %q", err, errb.String())
			}
			msg := errb.String()
			files, rows := checkSaved(t, dir)
			if files != 1 || rows != 5*len(expandAlgos([]string{"all"})) {
				t.Errorf("saved %d files and %d rows, want the run's", files, rows)
			}
			if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, c.want) || !strings.Contains(msg, "the run is saved in "+dir) {
				t.Errorf("stderr %q, want one line: %s, and the run saved", msg, c.want)
			}
		})
	}
}

// TestSaveFileSizeLimit is issue 27's report: 24 runs under a file-size
// limit (ulimit -f 4) that cuts runs.csv, then one without. Those the limit
// stops fail with one line; no partial row or file is left, and the last
// run adds whole rows.
func TestSaveFileSizeLimit(t *testing.T) {
	dir := t.TempDir()
	failed := 0
	for seed := 1; seed <= 24; seed++ {
		cmd := ocbenchCmd(t, []string{"--nodes", "8", "--requests", "100", "--seed", strconv.Itoa(seed), "--out", dir, "-q"}, envFileSize+"=4096")
		var errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &errb
		if err := cmd.Run(); err != nil {
			failed++
			if msg := errb.String(); strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "file too large") {
				t.Errorf("seed %d: %v, stderr %q; want one line", seed, err, msg)
			}
		}
	}
	t.Logf("%d of 24 saves stopped by the limit", failed)
	if failed == 0 {
		t.Fatal("the file-size limit stopped no save: the test tests nothing")
	}
	var out, errb bytes.Buffer
	if code := run([]string{"--nodes", "8", "--requests", "100", "--seed", "99", "--out", dir, "-q"}, &out, &errb); code != 0 || errb.Len() > 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	files, rows := checkSaved(t, dir)
	if rows != 25-failed || files < rows {
		t.Errorf("%d saved files and %d rows after %d failed saves of 25; want a row per save that did not fail", files, rows, failed)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, results.RunsDir, ".*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// TestKilledSaveReport: a run killed (SIGKILL) in the middle of its save —
// its JSON written to the temporary file, waiting for the lock on runs.csv
// that the test holds — leaves no .json file; `ocbench report` on the
// directory then works, and skips, naming each on stderr, the 0-byte and
// half-written .json files that an older ocbench killed while saving left.
func TestKilledSaveReport(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"--nodes", "8", "--requests", "100", "--out", dir, "-q"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	runs := filepath.Join(dir, results.RunsDir)
	lock, err := os.OpenFile(filepath.Join(runs, results.CSVName), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	cmd := ocbenchCmd(t, []string{"--nodes", "8", "--requests", "100", "--seed", "2", "--out", dir, "-q"})
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var tmp []string
	for deadline := time.Now().Add(time.Minute); len(tmp) == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		tmp, _ = filepath.Glob(filepath.Join(runs, ".*.tmp"))
	}
	cmd.Process.Kill()
	cmd.Wait()
	lock.Close()
	if len(tmp) != 1 {
		t.Fatalf("the run never reached its save (temporary files %v)", tmp)
	}
	if files := savedFiles(t, dir); len(files) != 1 {
		t.Errorf("saved files %v, want only the first run's", files)
	}
	good := savedFiles(t, dir)[0]
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	bad := []string{filepath.Join(runs, "20250101T000000Z-opencube-N8-seed3.json"), filepath.Join(runs, "20250101T000000Z-opencube-N8-seed4.json")}
	if err := os.WriteFile(bad[0], nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad[1], data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	rep := filepath.Join(t.TempDir(), "rep")
	out.Reset()
	errb.Reset()
	if code := run([]string{"report", "-o", rep, runs}, &out, &errb); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
	if len(lines) != len(bad) {
		t.Fatalf("report's stderr %q, want a line per bad file", errb.String())
	}
	for k, b := range bad {
		if !strings.HasPrefix(lines[k], "ocbench report: warning: skipping "+b+": ") {
			t.Errorf("line %q, want one skipping %s", lines[k], b)
		}
	}
	if md, err := os.ReadFile(filepath.Join(rep, "report.md")); err != nil || !strings.Contains(string(md), filepath.Base(good)) {
		t.Errorf("the report (%v) does not name the good file", err)
	}
	// A directory of bad files only, or a bad file named on its own, is
	// refused.
	for _, args := range [][]string{{bad[0]}, {bad[1]}} {
		errb.Reset()
		if code := run(append([]string{"report", "-o", rep}, args...), &out, &errb); code != 2 || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("report %v: exit %d, stderr %q; want 2 and one line", args, code, errb.String())
		}
	}
	only := t.TempDir()
	os.WriteFile(filepath.Join(only, "x.json"), nil, 0o644)
	errb.Reset()
	if code := run([]string{"report", "-o", rep, only}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "is a valid saved run") {
		t.Errorf("report of bad files only: exit %d, stderr %q", code, errb.String())
	}
}

// TestTraceExisting: --trace refuses an existing file (one line, exit 2,
// the file untouched) unless --force; a new file, or a device, is written.
func TestTraceExisting(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.jsonl")
	cases := []struct {
		name  string
		path  string
		force bool
		code  int
	}{
		{"existing", existing, false, 2},
		{"existing, --force", existing, true, 0},
		{"new", filepath.Join(dir, "new.jsonl"), false, 0},
		{"device", os.DevNull, false, 0},
		{"runs.csv", filepath.Join(dir, results.RunsDir, results.CSVName), false, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := os.MkdirAll(filepath.Join(dir, results.RunsDir), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{existing, filepath.Join(dir, results.RunsDir, results.CSVName)} {
				if err := os.WriteFile(p, []byte("keep\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := []string{"--nodes", "4", "--requests", "5", "--trace", c.path, "--no-save", "-q"}
			if c.force {
				args = append(args, "--force")
			}
			var out, errb bytes.Buffer
			code := run(args, &out, &errb)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, c.code, errb.String())
			}
			b, _ := os.ReadFile(c.path)
			switch {
			case c.code == 2 && (string(b) != "keep\n" || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "--trace: "+c.path+" exists (--force")):
				t.Errorf("file %q, stderr %q; want it untouched and one line", b, errb.String())
			case c.code == 0 && c.path != os.DevNull && !strings.HasPrefix(string(b), "{"):
				t.Errorf("trace %.40q, want JSON lines", b)
			}
		})
	}
}

// TestCommit: the commit is the build's (the -ldflags stamp, or what go
// build stamps), else "unknown" — never the commit of a git checkout the
// current directory is in (a test binary has no VCS stamp).
func TestCommit(t *testing.T) {
	repo := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q")
	git("commit", "-q", "--allow-empty", "-m", "x")
	wd, _ := os.Getwd()
	if err := os.Chdir(repo); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	for _, c := range []struct{ stamp, want string }{{"", "unknown"}, {"0123abc-dirty", "0123abc-dirty"}} {
		commitStamp = c.stamp
		got, v := commit(), versionString()
		commitStamp = ""
		if got != c.want || !strings.Contains(v, "commit "+c.want+")") {
			t.Errorf("stamp %q: commit %q, version %q; want %s", c.stamp, got, v, c.want)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"--nodes", "4", "--requests", "5", "--out", repo, "-q"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if s, err := results.LoadSaved(savedFiles(t, repo)[0]); err != nil || s.Environment.Commit != "unknown" {
		t.Errorf("saved commit %q (%v), want unknown", s.Environment.Commit, err)
	}
}
