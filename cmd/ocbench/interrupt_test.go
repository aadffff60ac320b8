package main

import (
	"bufio"
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

// TestExploreInterrupt: SIGINT or SIGTERM during an explore search ends it
// as INCOMPLETE with what it reached, starts no search after it, says so
// in one line on stderr and exits with status 130.
func TestExploreInterrupt(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			// opencube at N = 8 takes about a minute; raymond would follow.
			cmd := ocbenchCmd(t, []string{"explore", "--algo", "opencube,raymond", "--nodes", "8", "--trace", "-"})
			var out bytes.Buffer
			cmd.Stdout = &out
			errPipe, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(errPipe)
			var errText strings.Builder
			signalled := false
			for lines.Scan() {
				errText.WriteString(lines.Text() + "\n")
				if !signalled && strings.Contains(lines.Text(), "opencube: depth") {
					// The first progress line: the search is under way.
					if err := cmd.Process.Signal(sig); err != nil {
						t.Fatal(err)
					}
					signalled = true
				}
			}
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != interruptCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, interruptCode, errText.String())
			}
			if !strings.Contains(errText.String(), "ocbench explore: interrupted: the search ends with what it reached") {
				t.Errorf("stderr %q: no line saying it was interrupted", errText.String())
			}
			want := regexp.MustCompile(`^opencube N=8, .*: INCOMPLETE: it was interrupted; no violation among the states reached \(\d+ states, `)
			if !want.MatchString(out.String()) || strings.Contains(out.String(), "raymond") || strings.Count(out.String(), "\n") != 1 {
				t.Errorf("stdout %q: want one line, opencube's, INCOMPLETE as interrupted", out.String())
			}
		})
	}
}
