//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rankExits is the script that runs a rank's command and says its exit
// status on stderr ("rank-exit R S"): mpirun reports one status for the
// job, and the test wants every rank's.
const rankExits = `#!/bin/sh
"$@"
s=$?
echo "rank-exit ${OMPI_COMM_WORLD_RANK:-?} $s" >&2
exit $s
`

// taggedLine is a line of mpirun --tag-output: [job,rank]<stream>:text.
var taggedLine = regexp.MustCompile(`^\[\d+,(\d+)\]<(stdout|stderr)>:(.*)$`)

// rankExit is the line of rankExits, as mpirun tags it.
var rankExit = regexp.MustCompile(`^rank-exit (\d+) (\d+)$`)

// replayCommand is a replay command in a run's output: after "replay: "
// (a violation's note, the verdict) or "see it in the simulator: " (a
// --verify of a broken run), up to the end of its sentence.
var replayCommand = regexp.MustCompile(`(?:replay|see it in the simulator): (ocbench [^;)]+)`)

// TestMPIVerdict (issue 41, point 3): under mpirun every run ends with one
// verdict line, from rank 0 alone: a valid run prints one VALID line and
// exits 0 on every rank; a run made invalid (--protocol paper makes two
// tokens at this seed) prints one INVALID line that says why and names the
// command that replays it in the simulator (which, run, breaks the same
// invariant), and exits non-zero on every rank, within the limit (no
// rank left waiting).
func TestMPIVerdict(t *testing.T) {
	bin, mpirun := mpiTools(t)
	dir := t.TempDir()
	wrap := filepath.Join(dir, "rank-exits.sh")
	if err := os.WriteFile(wrap, []byte(rankExits), 0o755); err != nil {
		t.Fatal(err)
	}
	small := []string{"--nodes", "8", "--requests", "50", "--no-save", "--quiet"}
	broken := append([]string{"--protocol", "paper", "--crashes", "2", "--workload", "poisson"}, small...)
	cases := []struct {
		name  string
		np    int
		args  []string
		valid bool
		why   string // a regexp the verdict line matches
	}{
		{"valid", 2, small, true,
			`^VALID: 0 violations, records complete \(1 configuration, 1 run, 1 equal to the simulator's\)$`},
		{"valid-4-ranks-2-seeds", 4, append([]string{"--repeat", "2"}, small...), true,
			`^VALID: 0 violations, records complete \(1 configuration, 2 runs, 2 equal to the simulator's\)$`},
		{"valid-farm", 3, append([]string{"--mpi-mode", "farm", "--repeat", "2"}, small...), true,
			`^VALID: 0 violations, records complete \(1 configuration, 2 runs\)$`},
		{"violation", 2, append([]string{"--verify=false"}, broken...), false,
			`^INVALID: 1 violations \(1 safety, 0 liveness\), the first in opencube N=8 \(replay: ocbench --algo opencube .*--protocol paper\); no figure above is a valid result$`},
		{"violation-farm", 3, append([]string{"--mpi-mode", "farm", "--repeat", "2"}, broken...), false,
			`^INVALID: \d+ violations \(\d+ safety, 0 liveness\), the first in opencube N=8 \(replay: ocbench --algo opencube .*--protocol paper\); no figure above is a valid result$`},
		{"verify-broken", 2, broken, false,
			`^INVALID: verify: the simulator's run of opencube N=8 seed 1 breaks an invariant .*see it in the simulator: ocbench --algo opencube .*--protocol paper; no figure above is a valid result$`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"-np", strconv.Itoa(c.np), "--tag-output", wrap, bin}, c.args...)
			r := runJob(t, dir, 90*time.Second, mpirun, args...)
			if r.code == -1 {
				t.Fatalf("mpirun %s: still running after %v (a rank waits); stdout %q, stderr %q", strings.Join(args, " "), r.took.Round(time.Millisecond), r.stdout, r.stderr)
			}
			var verdicts, others []string
			exits := map[string]string{}
			for _, l := range strings.Split(strings.TrimSuffix(r.stdout+r.stderr, "\n"), "\n") {
				m := taggedLine.FindStringSubmatch(l)
				if m == nil {
					others = append(others, l)
					continue
				}
				if e := rankExit.FindStringSubmatch(m[3]); e != nil && m[2] == "stderr" {
					exits[e[1]] = e[2]
					continue
				}
				if strings.HasPrefix(m[3], "VALID") || strings.HasPrefix(m[3], "INVALID") {
					verdicts = append(verdicts, m[1]+" "+m[2]+" "+m[3])
				}
			}
			if len(verdicts) != 1 || !strings.HasPrefix(verdicts[0], "0 stdout ") {
				t.Fatalf("verdict lines (rank, stream, line): %q; want one, on rank 0's stdout\nstdout:\n%s\nstderr:\n%s", verdicts, r.stdout, r.stderr)
			}
			line := strings.TrimPrefix(verdicts[0], "0 stdout ")
			if !regexp.MustCompile(c.why).MatchString(line) {
				t.Errorf("the verdict %q does not match %s", line, c.why)
			}
			for rank := range c.np {
				s, ok := exits[strconv.Itoa(rank)]
				switch {
				case !ok:
					t.Errorf("rank %d said no exit status (untagged lines: %q)", rank, others)
				case (s == "0") != c.valid:
					t.Errorf("rank %d exited %s; want %s", rank, s, map[bool]string{true: "0", false: "non-zero"}[c.valid])
				}
			}
			if len(exits) != c.np {
				t.Errorf("exit statuses %v, want %d ranks'", exits, c.np)
			}
			if (r.code == 0) != c.valid {
				t.Errorf("mpirun exited %d; valid %v", r.code, c.valid)
			}
			if c.valid {
				return
			}
			m := replayCommand.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("no replay command in the verdict %q", line)
			}
			// The replay, run without mpirun, is the simulator's run that
			// breaks the invariant.
			out, err := exec.Command(bin, append(strings.Fields(m[1])[1:], "--no-save", "--quiet")...).CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "\nINVALID: ") || !strings.Contains(string(out), "tokens exist") {
				t.Errorf("the replay %s: %v; want exit 1, an INVALID verdict and the tokens' violation\n%s", m[1], err, out)
			}
		})
	}
}
