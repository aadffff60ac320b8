package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ocbench/ocbench/results"
)

// TestInterrupt: SIGINT or SIGTERM in the middle of the runs ends the
// process with status 130 and one line on stderr; the runs that had
// finished are saved whole, marked partial (a file that loads, its seeds
// as many as the line says), a trace being written is removed, and no
// temporary file is left.
func TestInterrupt(t *testing.T) {
	cases := []struct {
		name  string
		args  []string
		sig   syscall.Signal
		after time.Duration
		want  string // a regular expression for the line
	}{
		{"saved", []string{"--algo", "opencube", "--nodes", "16", "--requests", "500", "--repeat", "10000"}, syscall.SIGINT, 1500 * time.Millisecond,
			`^ocbench: interrupted; saved (\d+) finished runs? as partial to (\S+\.json)\n$`},
		{"sigterm", []string{"--algo", "opencube", "--nodes", "16", "--requests", "500", "--repeat", "10000"}, syscall.SIGTERM, 1500 * time.Millisecond,
			`^ocbench: interrupted; saved (\d+) finished runs? as partial to (\S+\.json)\n$`},
		{"trace", []string{"--nodes", "1024", "--requests", "10000000", "--trace", "run.jsonl"}, syscall.SIGINT, 1500 * time.Millisecond,
			`^ocbench: interrupted; nothing saved \(no run had finished\); removed the unfinished trace run.jsonl\n$`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := ocbenchCmd(t, append(c.args, "--out", "."))
			cmd.Dir = dir
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(c.after)
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != interruptCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, interruptCode, errb.String())
			}
			m := regexp.MustCompile(c.want).FindStringSubmatch(errb.String())
			if m == nil {
				t.Fatalf("stderr %q, want one line matching %s", errb.String(), c.want)
			}
			if len(m) == 3 {
				n, _ := strconv.Atoi(m[1])
				s, err := results.LoadSaved(filepath.Join(dir, m[2]))
				if err != nil {
					t.Fatal(err)
				}
				if !s.Environment.Partial || len(s.Runs) != 1 || len(s.Runs[0].Seeds) != n || n == 0 {
					t.Errorf("saved: partial %v, %d records, seeds %v; want partial, one record of the %d finished seeds", s.Environment.Partial, len(s.Runs), s.Runs[0].Seeds, n)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "run.jsonl")); err == nil {
				t.Errorf("the unfinished trace is left")
			}
			filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
				if err == nil && strings.HasSuffix(path, ".tmp") {
					t.Errorf("a temporary file is left: %s", path)
				}
				return nil
			})
		})
	}
}
