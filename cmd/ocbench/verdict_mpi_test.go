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
// invariant), rank 0's one line on stderr, and exits non-zero on every
// rank, within the limit (no rank left waiting). Every job runs as mpirun
// runs it, which ends the job when a rank exits non-zero (mpirun's status
// is checked, and rank 0's lines, which must come out before); an invalid
// one runs again with that off (orte_abort_on_non_zero_status), so that
// every rank's own status is seen (mpirun then exits 0 whatever they are).
func TestMPIVerdict(t *testing.T) {
	bin, mpirun := mpiTools(t)
	dir := t.TempDir()
	wrap := filepath.Join(dir, "rank-exits.sh")
	if err := os.WriteFile(wrap, []byte(rankExits), 0o755); err != nil {
		t.Fatal(err)
	}
	small := []string{"--nodes", "8", "--requests", "50", "--no-save", "--quiet"}
	broken := append([]string{"--protocol", "paper", "--crashes", "2", "--workload", "poisson"}, small...)
	const violations = `^ocbench: \d+ invariant violation\(s\); the output names the seed to replay$`
	cases := []struct {
		name  string
		np    int
		args  []string
		valid bool
		why   string // a regexp the verdict line matches
		said  string // a regexp rank 0's one line on stderr matches ("": no line)
	}{
		{"valid", 2, small, true,
			`^VALID: 0 violations, records complete \(1 configuration, 1 run, 1 equal to the simulator's\)$`, ""},
		{"valid-4-ranks-2-seeds", 4, append([]string{"--repeat", "2"}, small...), true,
			`^VALID: 0 violations, records complete \(1 configuration, 2 runs, 2 equal to the simulator's\)$`, ""},
		{"valid-farm", 3, append([]string{"--mpi-mode", "farm", "--repeat", "2"}, small...), true,
			`^VALID: 0 violations, records complete \(1 configuration, 2 runs\)$`, ""},
		{"violation", 2, append([]string{"--verify=false"}, broken...), false,
			`^INVALID: 1 violations \(1 safety, 0 liveness\), the first in opencube N=8 \(replay: ocbench --algo opencube .*--protocol paper\); no figure above is a valid result$`, violations},
		{"violation-farm", 3, append([]string{"--mpi-mode", "farm", "--repeat", "2"}, broken...), false,
			`^INVALID: \d+ violations \(\d+ safety, 0 liveness\), the first in opencube N=8 \(replay: ocbench --algo opencube .*--protocol paper\); no figure above is a valid result$`, violations},
		{"verify-broken", 2, broken, false,
			`^INVALID: verify: the simulator's run of opencube N=8 seed 1 breaks an invariant .*see it in the simulator: ocbench --algo opencube .*--protocol paper; no figure above is a valid result$`,
			`^ocbench: verify: the simulator's run of opencube N=8 seed 1 breaks an invariant .* as expected of a broken run`},
	}
	for _, c := range cases {
		for _, everyRank := range []bool{false, true} {
			if everyRank && c.valid {
				continue // mpirun ends nothing early: every rank's status was seen
			}
			name := c.name + map[bool]string{false: "/mpirun", true: "/every-rank"}[everyRank]
			t.Run(name, func(t *testing.T) {
				if everyRank {
					t.Setenv("OMPI_MCA_orte_abort_on_non_zero_status", "0")
				}
				checkVerdict(t, dir, mpirun, wrap, bin, c.np, c.args, c.valid, c.why, c.said, everyRank || c.valid)
			})
		}
	}
}

// checkVerdict runs bin with args under mpirun on np ranks, each through
// the script wrap (rankExits), and checks the verdict (why: a regexp of
// it; valid: VALID expected), rank 0's one line on stderr (said: its
// regexp, "" for none), mpirun's status (unless every, in which mpirun
// ends no rank early and exits 0) or else every rank's, and, for an
// invalid run, its replay in the simulator.
func checkVerdict(t *testing.T, dir, mpirun, wrap, bin string, np int, args []string, valid bool, why, said string, every bool) {
	t.Helper()
	line := append([]string{"-np", strconv.Itoa(np), "--tag-output", wrap, bin}, args...)
	r := runJob(t, dir, 90*time.Second, mpirun, line...)
	if r.code == -1 {
		t.Fatalf("mpirun %s: still running after %v (a rank waits); stdout %q, stderr %q", strings.Join(line, " "), r.took.Round(time.Millisecond), r.stdout, r.stderr)
	}
	var verdicts, lines, others []string
	exits := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(r.stdout+r.stderr, "\n"), "\n") {
		m := taggedLine.FindStringSubmatch(l)
		switch {
		case m == nil:
			others = append(others, l)
		case m[2] == "stderr" && rankExit.MatchString(m[3]):
			e := rankExit.FindStringSubmatch(m[3])
			exits[e[1]] = e[2]
		case strings.HasPrefix(m[3], "VALID") || strings.HasPrefix(m[3], "INVALID"):
			verdicts = append(verdicts, m[1]+" "+m[2]+" "+m[3])
		case m[2] == "stderr" || m[1] != "0":
			lines = append(lines, m[1]+" "+m[2]+" "+m[3])
		}
	}
	if len(verdicts) != 1 || !strings.HasPrefix(verdicts[0], "0 stdout ") {
		t.Fatalf("verdict lines (rank, stream, line): %q; want one, on rank 0's stdout\nstdout:\n%s\nstderr:\n%s", verdicts, r.stdout, r.stderr)
	}
	verdict := strings.TrimPrefix(verdicts[0], "0 stdout ")
	if !regexp.MustCompile(why).MatchString(verdict) {
		t.Errorf("the verdict %q does not match %s", verdict, why)
	}
	switch {
	case said == "" && len(lines) > 0:
		t.Errorf("lines on stderr or from other ranks (rank, stream, line): %q; want none", lines)
	case said != "" && (len(lines) != 1 || !strings.HasPrefix(lines[0], "0 stderr ") || !regexp.MustCompile(said).MatchString(strings.TrimPrefix(lines[0], "0 stderr "))):
		t.Errorf("lines on stderr or from other ranks (rank, stream, line): %q; want rank 0's one line matching %s", lines, said)
	}
	if every {
		for rank := range np {
			s, ok := exits[strconv.Itoa(rank)]
			switch {
			case !ok:
				t.Errorf("rank %d said no exit status (untagged lines: %q)", rank, others)
			case (s == "0") != valid:
				t.Errorf("rank %d exited %s; want %s", rank, s, map[bool]string{true: "0", false: "non-zero"}[valid])
			}
		}
		if len(exits) != np {
			t.Errorf("exit statuses %v, want %d ranks'", exits, np)
		}
	} else if (r.code == 0) != valid {
		t.Errorf("mpirun exited %d; valid %v", r.code, valid)
	}
	if valid {
		return
	}
	m := replayCommand.FindStringSubmatch(verdict)
	if m == nil {
		t.Fatalf("no replay command in the verdict %q", verdict)
	}
	// The replay, run without mpirun, is the simulator's run that breaks
	// the invariant.
	out, err := exec.Command(bin, append(strings.Fields(m[1])[1:], "--no-save", "--quiet")...).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "\nINVALID: ") || !strings.Contains(string(out), "tokens exist") {
		t.Errorf("the replay %s: %v; want exit 1, an INVALID verdict and the tokens' violation\n%s", m[1], err, out)
	}
}
