package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/results"
)

// TestVerdict: every format states the verdict, VALID for correct runs
// and INVALID (exit 1, no figure in kv) for runs that break an invariant;
// the saved run holds the verdict, the host and the start time.
func TestVerdict(t *testing.T) {
	small := []string{"--algo", "opencube", "--nodes", "8,16", "--requests", "200", "--repeat", "2", "-q"}
	broken := []string{"--preset", "ipsc2", "--delay-violations", "0.05", "--requests", "1", "-q", "--no-save"}
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		last   string // the last line of stdout starts with it
		has    []string
		hasNot []string
	}{
		{"table", append(small, "--no-save"), 0, "VALID: 0 violations, records complete (2 configurations, 4 runs)", nil, nil},
		{"kv", append(small, "--no-save", "--format", "kv"), 0, "verdict: VALID",
			[]string{"\nruns: 4\n", "\nopencube.N16.msgs_per_request.mean: ", "\nviolations: 0\n"}, nil},
		{"table invalid", broken, 1, "INVALID: ", []string{"no figure above is a valid result"}, nil},
		{"kv invalid", append(broken, "--format", "kv"), 1, "reason: ",
			[]string{"\nverdict: INVALID\n", "\nopencube.N32.safety_violations: "}, []string{"overhead_per_failure", "msgs_per_request"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(c.args, &out, &errb)
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, errb.String())
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, c.last) {
				t.Errorf("last line %q, want it to start with %q", last, c.last)
			}
			for _, h := range c.has {
				if !strings.Contains(out.String(), h) {
					t.Errorf("stdout lacks %q:\n%s", h, out.String())
				}
			}
			for _, h := range c.hasNot {
				if strings.Contains(out.String(), h) {
					t.Errorf("stdout holds %q, a figure of an invalid run:\n%s", h, out.String())
				}
			}
		})
	}

	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run(append(small, "--out", dir, "--json"), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep results.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Validation == nil || !rep.Validation.Valid || rep.Validation.Runs != 4 {
		t.Errorf("--json: %v, validation %+v; want a valid verdict over 4 runs", err, rep.Validation)
	}
	files, _ := filepath.Glob(filepath.Join(dir, results.RunsDir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("saved %v, want one file", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var saved results.Saved
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	e := saved.Environment
	if e.Validation == nil || !e.Validation.Valid || e.Host == nil || e.Host.CPUs < 1 || e.Host.Hostname == "" || e.Started == "" || e.Started > e.Date || e.GoVersion == "" || !strings.Contains(e.Command, "--repeat 2") {
		t.Errorf("saved environment %+v (host %+v): want the verdict, the host, the start before the end, the Go version and the command", e, e.Host)
	}
}

func TestFormatFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--format", "xml"}, "--format"},
		{[]string{"--format", "kv", "--json"}, "--json"},
		{[]string{"--format", "kv", "--wide"}, "--wide"},
		{[]string{"--format", "json", "--columns", "algorithm"}, "--columns"},
	} {
		var out, errb bytes.Buffer
		code := run(append(c.args, "--no-save", "--nodes", "8"), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), c.flag) || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line naming %s", c.args, code, errb.String(), c.flag)
		}
	}
}
