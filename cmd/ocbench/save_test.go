package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/results"
)

// TestMain runs the tests in a temporary directory, so that runs saved to
// the default results directory never land in the repository.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ocbench-cmd-test")
	if err != nil {
		panic(err)
	}
	if err := os.Chdir(dir); err != nil {
		panic(err)
	}
	code := m.Run()
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
		{"preset", ""}, {"trace", ""}, {"json", ""}, {"no-save", ""}, {"quiet", ""}, {"fifo", ""},
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
