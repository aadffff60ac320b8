//go:build unix

package report

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadOnce: a saved run reached twice, by any spelling (a directory
// named twice, a directory and a file in it, a link, a relative and an
// absolute path), counts once; a file that is not regular is refused when
// named and skipped, with its reason, in a directory, and no read blocks.
func TestLoadOnce(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/crashes.json")
	if err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(dir, "runs")
	mixed := filepath.Join(dir, "mixed")
	for _, d := range []string{runs, mixed} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	a := filepath.Join(runs, "a.json")
	if err := os.WriteFile(a, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a, filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mixed, "a.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(mixed, "x.json")); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(mixed, "f.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(a)
	if err != nil {
		t.Fatal(err)
	}
	const per = 2 // runs in testdata/crashes.json
	cases := []struct {
		name    string
		paths   []string
		runs    int
		skipped []string // in the reasons of the files skipped, in order
		err     string
	}{
		{"a directory twice", []string{runs, runs}, per, nil, ""},
		{"a directory and its file", []string{runs, a}, per, nil, ""},
		{"a file by three spellings", []string{a, abs, filepath.Join(runs, ".", "a.json")}, per, nil, ""},
		{"a file and a link to it", []string{filepath.Join(dir, "link.json"), runs}, per, nil, ""},
		{"two copies are two runs", []string{runs, mixed}, 2 * per, []string{"f.json is a FIFO", "x.json is a character device"}, ""},
		{"/dev/zero named", []string{"/dev/zero"}, 0, nil, "/dev/zero is a character device, not a regular file"},
		{"a FIFO named", []string{fifo}, 0, nil, "f.json is a FIFO (named pipe), not a regular file"},
		{"a link to /dev/zero named", []string{filepath.Join(mixed, "x.json")}, 0, nil, "x.json is a character device"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			type result struct {
				ins     []Input
				skipped []Skipped
				err     error
			}
			done := make(chan result, 1)
			go func() {
				ins, skipped, err := Load(c.paths)
				done <- result{ins, skipped, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Load blocks")
			}
			if c.err != "" {
				if r.err == nil || !strings.Contains(r.err.Error(), c.err) || strings.Contains(r.err.Error(), "\n") {
					t.Fatalf("error %v, want one line containing %q", r.err, c.err)
				}
				return
			}
			if r.err != nil {
				t.Fatal(r.err)
			}
			n := 0
			for _, in := range r.ins {
				n += len(in.Saved.Runs)
			}
			if n != c.runs {
				t.Errorf("%d runs, want %d", n, c.runs)
			}
			if len(r.skipped) != len(c.skipped) {
				t.Fatalf("skipped %v, want %d", r.skipped, len(c.skipped))
			}
			for k, want := range c.skipped {
				if !strings.Contains(r.skipped[k].Err.Error(), want) {
					t.Errorf("skipped %d: %v, want %q", k, r.skipped[k].Err, want)
				}
			}
		})
	}
}
