//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fileCase is a command line of view, check-trace or report run in a
// directory of inputs: its exit status, and what stdout (status 0) or its
// one line of stderr (status ≠ 0) holds.
type fileCase struct {
	name string
	args []string
	code int
	want string
}

// runFileCases runs each case, within 20 seconds (no read or write may
// block), and checks its status and output; a refusal is one line.
func runFileCases(t *testing.T, cases []fileCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run(c.args, &stdout, &stderr) }()
			var code int
			select {
			case code = <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("%q still running after 20 s", c.args)
			}
			got := stdout.String()
			if c.code != 0 {
				got = stderr.String()
				if strings.Count(got, "\n") != 1 || !strings.HasSuffix(got, "\n") {
					t.Errorf("stderr is not one line: %q", got)
				}
			}
			if code != c.code || !strings.Contains(got, c.want) {
				t.Errorf("%q: exit %d, want %d; output %q, want %q in it (stderr %q)", c.args, code, c.code, got, c.want, stderr.String())
			}
		})
	}
}

// TestFileRules: the rules for the files view, check-trace and report
// read and write. An output never replaces an input, whatever its
// spelling; a device is written in place; -o - is stdout; an input that
// is not a regular file is refused at once (one line, exit 2), or skipped
// with a warning in a directory of runs; check-trace follows each node's
// request → enter → exit.
func TestFileRules(t *testing.T) {
	_, here, _, _ := runtime.Caller(0) // the tests run in a temporary directory (TestMain)
	saved, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "report", "testdata", "crashes.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	const traceText = `{"t":0,"node":0,"ev":"request"}
{"t":1,"node":0,"ev":"send","type":"request","from":0,"to":1,"msg":0,"j":0,"tag":1}
{"t":2,"node":1,"ev":"recv","type":"request","from":0,"to":1,"msg":0,"j":0,"tag":1}
{"t":3,"node":0,"ev":"enter"}
{"t":4,"node":0,"ev":"exit"}
`
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	c1 := write("c1.jsonl", traceText)
	write("noentry.jsonl", `{"t":0,"node":0,"ev":"request"}
{"t":1,"node":0,"ev":"enter"}
{"t":2,"node":0,"ev":"exit"}
{"t":3,"node":0,"ev":"exit"}
`)
	if err := os.Symlink(c1, filepath.Join(dir, "link.html")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "f.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"runs", "mixed", "r"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("runs/a.json", string(saved))
	write("mixed/a.json", string(saved))
	write("r/report.md", string(saved)) // a saved run named like the report
	if err := syscall.Mkfifo("mixed/f.json", 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", "mixed/x.json"); err != nil {
		t.Fatal(err)
	}
	runFileCases(t, []fileCase{
		{"view: the trace by ./", []string{"view", "-o", "./c1.jsonl", "c1.jsonl"}, 2, "./c1.jsonl is the input c1.jsonl: refusing to replace it (give another -o PAGE)"},
		{"view: the trace by its absolute path", []string{"view", "-o", c1, "c1.jsonl"}, 2, "is the input c1.jsonl"},
		{"view: the trace through a link", []string{"view", "-o", "link.html", "c1.jsonl"}, 2, "link.html is the input c1.jsonl"},
		{"view: -o -", []string{"view", "-o", "-", "c1.jsonl"}, 0, "<!DOCTYPE html>"},
		{"view: /dev/null in place", []string{"view", "-o", "/dev/null", "c1.jsonl"}, 0, "/dev/null: 2 nodes"},
		{"view: /dev/full", []string{"view", "-o", "/dev/full", "c1.jsonl"}, 2, "writing /dev/full: no space left on device"},
		{"view: /dev/zero", []string{"view", "/dev/zero"}, 2, "/dev/zero is a character device, not a trace file"},
		{"view: a FIFO", []string{"view", "-o", "x.html", "f.jsonl"}, 2, "f.jsonl is a FIFO (named pipe), not a trace file"},
		{"check-trace: a link to /dev/zero", []string{"check-trace", "zero.jsonl"}, 2, "zero.jsonl is a character device, not a trace file"},
		{"check-trace: a FIFO", []string{"check-trace", "f.jsonl"}, 2, "f.jsonl is a FIFO"},
		{"check-trace: an exit without an entry", []string{"check-trace", "noentry.jsonl"}, 1, "noentry.jsonl: trace line 4: node 0 exits the critical section without an entry"},
		{"check-trace: message 0", []string{"check-trace", "c1.jsonl"}, 0, "c1.jsonl: ok: 5 events"},
		{"report: /dev/zero", []string{"report", "-o", "out", "/dev/zero"}, 2, "/dev/zero is a character device, not a regular file"},
		{"report: a FIFO", []string{"report", "-o", "out", "mixed/f.json"}, 2, "mixed/f.json is a FIFO"},
		{"report: specials in a directory are skipped", []string{"report", "-o", "out", "mixed"}, 0, "wrote out/report.md"},
		{"report: -o - (html)", []string{"report", "-o", "-", "--format", "html", "runs", "runs"}, 0, "<!DOCTYPE html>"},
		{"report: -o - (md)", []string{"report", "-o", "-", "runs"}, 2, "give --format html"},
		{"report: the page would be an input", []string{"report", "-o", "r", "r/report.md"}, 2, "r/report.md is an input: refusing to replace it"},
	})
	if b, err := os.ReadFile(c1); err != nil || string(b) != traceText {
		t.Errorf("the trace now holds %q (%v)", b, err)
	}
	for _, dev := range []string{"/dev/null", "/dev/full"} {
		if st, err := os.Lstat(dev); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("%s is no longer a character device: %v, %v", dev, st, err)
		}
	}
	// The directory's specials are skipped with a warning each.
	var stdout, stderr bytes.Buffer
	if code := run([]string{"report", "-o", "out2", "mixed"}, &stdout, &stderr); code != 0 ||
		!strings.Contains(stderr.String(), "skipping mixed/f.json is a FIFO") || !strings.Contains(stderr.String(), "skipping mixed/x.json is a character device") {
		t.Errorf("report of a directory with specials: exit %d, stderr %q", code, stderr.String())
	}
	// A directory named twice counts each run once: the same page as once.
	once := reportPage(t, "runs")
	if twice := reportPage(t, "runs", "./runs/", "runs/a.json"); twice != once {
		t.Errorf("report of runs named three ways differs from runs once:\n%s\n---\n%s", twice, once)
	}
}

// reportPage returns the Markdown report of ins, without its command line.
func reportPage(t *testing.T, ins ...string) string {
	t.Helper()
	out := t.TempDir()
	var stderr bytes.Buffer
	if code := run(append([]string{"report", "-o", out, "--title", "x"}, ins...), &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatalf("report %v: exit %d: %s", ins, code, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.Contains(l, "ocbench report") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
