//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// wallTimes matches the wall time of a JSON record, the one field that two
// runs of one seed never share.
var wallTimes = regexp.MustCompile(`"wall_seconds": ?[0-9.eE+-]+`)

// withoutWall zeroes the wall times of a JSON text.
func withoutWall(s string) string { return wallTimes.ReplaceAllString(s, `"wall_seconds": 0`) }

// tableRows are the lines of a table's output that are not its header.
func tableRows(s string) []string {
	var rows []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "#") {
			rows = append(rows, l)
		}
	}
	return rows
}

// savedRuns returns the records of the one JSON file saved under dir
// (--out), wall times zeroed.
func savedRuns(t *testing.T, dir string) string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "runs", "*.json"))
	if len(names) != 1 {
		t.Fatalf("%d JSON files saved in %s, want 1", len(names), dir)
	}
	b, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	var saved struct {
		Runs json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatalf("%s: %v", names[0], err)
	}
	return withoutWall(string(saved.Runs))
}

// TestFarmMPI (issue 37, point 2): under mpirun, --mpi-mode farm runs every
// run of a sweep whole in one rank's simulator, and the job's records are
// the simulator's in one process (--jobs 1): the same JSON on stdout, the
// same table under a header that names the farm, the same saved records,
// the same exit status and stderr for a sweep with a violation; --mpi-mode
// auto farms a sweep and splits a single run; bad input ends every rank
// with status 2 and one line.
func TestFarmMPI(t *testing.T) {
	bin, mpirun := mpiTools(t)
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"every algorithm, sizes and seeds", []string{"--algo", "all", "--nodes", "8,16", "--requests", "150", "--workload", "poisson", "--repeat", "2"}, 0},
		{"crash sweep with baselines", []string{"--algo", "ft", "--nodes", "8", "--crashes", "10", "--crash-every", "60", "--workload", "poisson", "--think", "80", "--repeat", "3"}, 0},
		{"the each workload (the simulator's alone)", []string{"--algo", "lamport,raymond", "--nodes", "8", "--workload", "each", "--requests", "2", "--repeat", "3"}, 0},
		{"a violation", []string{"--nodes", "8", "--crashes", "3", "--workload", "saturated", "--delay-violations", "0.3", "--requests", "200", "--repeat", "6"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, format := range []string{"json", "table"} {
				args := slices.Clone(c.args)
				if format == "json" {
					args = append(args, "--json")
				}
				dir := t.TempDir()
				one := exec.Command(bin, append(slices.Clone(args), "--jobs", "1", "--quiet", "--out", filepath.Join(dir, "one"))...)
				var stdout, stderr strings.Builder
				one.Stdout, one.Stderr = &stdout, &stderr
				code := 0
				if err := one.Run(); err != nil {
					ee, ok := err.(*exec.ExitError)
					if !ok {
						t.Fatal(err)
					}
					code = ee.ExitCode()
				}
				if code != c.code {
					t.Fatalf("one process: exit %d, want %d: %s", code, c.code, stderr.String())
				}
				farm := runJob(t, dir, 2*time.Minute, mpirun, append([]string{"-np", "3", bin, "--mpi-mode", "farm", "--quiet", "--out", filepath.Join(dir, "farm")}, args...)...)
				if farm.code != code {
					t.Fatalf("farm: exit %d, want %d: %s", farm.code, code, farm.stderr)
				}
				if farm.stderr != stderr.String() {
					t.Errorf("farm: stderr %q, one process %q", farm.stderr, stderr.String())
				}
				if format == "json" {
					if withoutWall(farm.stdout) != withoutWall(stdout.String()) {
						t.Errorf("farm: JSON differs from one process's:\n%s\n%s", farm.stdout, stdout.String())
					}
				} else {
					if !slices.Equal(tableRows(farm.stdout), tableRows(stdout.String())) {
						t.Errorf("farm: table differs from one process's:\n%s\n%s", farm.stdout, stdout.String())
					}
					if !strings.Contains(farm.stdout, "runtime: MPI task farm, 3 ranks") || !strings.Contains(farm.stdout, "ranks: 3 (MPI task farm") {
						t.Errorf("farm: the header does not name the farm:\n%s", farm.stdout)
					}
				}
				if got, want := savedRuns(t, filepath.Join(dir, "farm")), savedRuns(t, filepath.Join(dir, "one")); got != want {
					t.Errorf("farm: saved records differ from one process's:\n%s\n%s", got, want)
				}
			}
		})
	}
	t.Run("auto", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"--nodes", "8", "--requests", "50", "--repeat", "3"}, "runtime: MPI task farm, 2 ranks"},
			{[]string{"--nodes", "8", "--requests", "50"}, "runtime: MPI in virtual time, 2 ranks"},
			{[]string{"--nodes", "8", "--requests", "50", "--repeat", "3", "--placement", "cyclic"}, "runtime: MPI in virtual time, 2 ranks"},
		} {
			r := runJob(t, t.TempDir(), time.Minute, mpirun, append([]string{"-np", "2", bin, "--mpi-mode", "auto", "--no-save", "--quiet"}, c.args...)...)
			if r.code != 0 || !strings.Contains(r.stdout, c.want) {
				t.Errorf("%v: exit %d, want 0 and %q in:\n%s%s", c.args, r.code, c.want, r.stdout, r.stderr)
			}
		}
	})
	t.Run("bad input", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"--mpi-mode", "bogus"}, "--mpi-mode: unknown mode"},
			{[]string{"--mpi-mode", "farm", "--placement", "cyclic"}, "--placement applies to runs split over the ranks"},
			{[]string{"--mpi-mode", "farm", "--clock", "wall"}, "--clock wall needs --mpi-mode split"},
			{[]string{"--mpi-mode", "farm", "--nodes", "6"}, "--nodes: 6 is not a power of two"},
		} {
			r := runJob(t, t.TempDir(), time.Minute, mpirun, append([]string{"-np", "3", bin, "--no-save"}, c.args...)...)
			if r.code != 2 || !oneLine(r.stderr) || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
				t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", c.args, r.code, r.stderr, c.want)
			}
		}
	})
}
