package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestViewCommand: a trace that --trace wrote becomes a page (status 0);
// bad input is one line on stderr naming the problem (and the line), and
// status 2, with no page written.
func TestViewCommand(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "run.jsonl")
	if code := run([]string{"--nodes", "8", "--requests", "20", "--workload", "poisson", "--crashes", "2", "--trace", good, "--no-save", "--quiet"}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("the run exited %d", code)
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	malformed := write("bad.jsonl", `{"t":0,"node":0,"ev":"request"}`+"\n"+`{"t":1,"node":0,"ev":"send","type":"request","from":0`+"\n")
	empty := write("empty.jsonl", "")
	for _, c := range []struct {
		name string
		args []string
		code int
		out  string // in stdout (status 0) or stderr
		page string // the page written, if any
	}{
		{"good", []string{good}, 0, "run.html: 8 nodes", filepath.Join(dir, "run.html")},
		{"-o", []string{"-o", filepath.Join(dir, "x.html"), good}, 0, "x.html: 8 nodes", filepath.Join(dir, "x.html")},
		{"help", []string{"--help"}, 0, "Usage:", ""},
		{"missing", []string{filepath.Join(dir, "none.jsonl")}, 2, "no such file", ""},
		{"directory", []string{dir}, 2, "is a directory", ""},
		{"malformed", []string{malformed}, 2, "bad.jsonl: trace line 2: not a trace event", ""},
		{"empty", []string{empty}, 2, "empty.jsonl: no events", ""},
		{"no trace", nil, 2, "ocbench: view: no trace given", ""},
		{"two traces", []string{good, good}, 2, "one trace at a time", ""},
		{"unknown flag", []string{"--zoom", good}, 2, "unknown flag --zoom", ""},
		{"-o without file", []string{good, "-o"}, 2, "-o needs a file name", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := run(append([]string{"view"}, c.args...), &stdout, &stderr)
			got := stdout.String()
			if c.code != 0 {
				got = stderr.String()
				if c.out != "Usage:" && strings.Count(strings.TrimSpace(got), "\n") != 0 {
					t.Errorf("stderr has more than one line: %q", got)
				}
			}
			if code != c.code || !strings.Contains(got, c.out) {
				t.Errorf("status %d, want %d; output %q, want %q in it", code, c.code, got, c.out)
			}
			if c.page != "" {
				b, err := os.ReadFile(c.page)
				if err != nil || !strings.Contains(string(b), "window.ocbData") {
					t.Errorf("the page %s: %v", c.page, err)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.html")); err == nil {
		t.Errorf("a page was written for a malformed trace")
	}
}

// TestViewDelta (issue 41, point 5): the page gives a trace's times in δ,
// and --delta is δ in seconds (the simulator's default, 1 ms, unless
// given): the page's data carries it; a bad --delta is refused, one line,
// status 2, no page.
func TestViewDelta(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(tr, []byte(`{"t":0,"node":0,"ev":"request"}`+"\n"+`{"t":0,"node":0,"ev":"enter"}`+"\n"+`{"t":0.002,"node":0,"ev":"exit"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "t.html")
	for _, c := range []struct {
		args []string
		code int
		want string // in the page (status 0) or stderr
	}{
		{nil, 0, `"delta":0.001,`},
		{[]string{"--delta", "0.004"}, 0, `"delta":0.004,`},
		{[]string{"--delta=2.5e-05"}, 0, `"delta":0.000025,`},
		{[]string{"--delta", "-1"}, 2, "ocbench: view: --delta: -1 is not in [1e-9, 1000] (seconds)\n"},
		{[]string{"--delta", "NaN"}, 2, "ocbench: view: --delta: NaN is not in [1e-9, 1000] (seconds)\n"},
		{[]string{"--delta"}, 2, "ocbench: view: --delta needs the run's δ in seconds (see ocbench view --help)\n"},
	} {
		os.Remove(page)
		var stdout, stderr strings.Builder
		args := append(append([]string{"view"}, c.args...), tr)
		if c.code == 2 && len(c.args) == 1 {
			args = []string{"view", tr, c.args[0]} // --delta last, without its value
		}
		code := run(args, &stdout, &stderr)
		if code != c.code {
			t.Errorf("%v: status %d, want %d; stderr %q", args, code, c.code, stderr.String())
			continue
		}
		b, err := os.ReadFile(page)
		switch {
		case c.code == 2 && (stderr.String() != c.want || err == nil):
			t.Errorf("%v: stderr %q, page written: %v; want %q and no page", args, stderr.String(), err == nil, c.want)
		case c.code == 0 && (err != nil || !strings.Contains(string(b), c.want)):
			t.Errorf("%v: the page (%v) lacks %s", args, err, c.want)
		}
	}
}
