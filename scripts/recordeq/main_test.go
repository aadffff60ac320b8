package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// record is a small results.Run-like record; its fields are replaced by
// fmt.Sprintf verbs.
const record = `{"algorithm": "opencube", "nodes": 8, "runtime": %q, "ranks": %d,
 "wall_seconds": %s, "seeds": %s,
 "overhead_per_failure": {"n": 3, "mean": %s, "ci95_low": null},
 "messages_by_type": {"request": 33, "token": 37}}`

func rec(runtime string, ranks int, wall, seeds, mean string) string {
	return fmt.Sprintf(record, runtime, ranks, wall, seeds, mean)
}

var (
	sim = rec("sim", 1, "0.0003", "[1, 2, 3]", "7.52")
	mpi = rec("mpi", 4, "1.25", "[1, 2, 3]", "7.52")
)

func TestRun(t *testing.T) {
	tests := []struct {
		name   string
		a, b   string
		flags  []string
		code   int
		stdout string // every line of stdout, in order
		stderr string // a substring of stderr
	}{
		{name: "equal", a: `{"runs": [` + sim + `]}`, b: `{"runs": [` + sim + `]}`},
		{name: "equal verbose", a: `{"runs": [` + sim + `]}`, b: `{"runs": [` + sim + `]}`,
			flags: []string{"-v", "--no-default-ignore"}, stdout: "equal: 1 records, ignoring: nothing\n"},
		{name: "runtime fields ignored by default", a: `{"runs": [` + sim + `]}`, b: `{"runs": [` + mpi + `]}`},
		{name: "runtime fields without the defaults", a: sim, b: mpi, flags: []string{"--no-default-ignore"}, code: 1,
			stdout: "record 0: ranks: 1 != 4\nrecord 0: runtime: \"sim\" != \"mpi\"\nrecord 0: wall_seconds: 0.0003 != 1.25\n"},
		{name: "report against saved run and array", a: `{"runs": [` + sim + `, ` + sim + `]}`,
			b: `{"ocbench_saved_run": 1, "environment": {"date": "x"}, "runs": [` + mpi + `, ` + mpi + `]}`},
		{name: "array and single record", a: `[` + sim + `]`, b: mpi},
		{name: "differing nested field", a: sim, b: rec("sim", 1, "0.0003", "[1, 2, 3]", "7.53"), code: 1,
			stdout: "record 0: overhead_per_failure.mean: 7.52 != 7.53\n"},
		{name: "ignored field differing", a: sim, b: rec("sim", 1, "0.0003", "[1, 2, 3]", "7.53"),
			flags: []string{"--ignore", "mean,other"}},
		{name: "ignored by prefix", a: sim, b: rec("sim", 1, "0.0003", "[1, 2, 3]", "7.53"),
			flags: []string{"--ignore", "overhead_*"}},
		{name: "array length difference", a: sim, b: rec("sim", 1, "0.0003", "[1, 5]", "7.52"), code: 1,
			stdout: "record 0: seeds: length 3 != 2\nrecord 0: seeds[1]: 2 != 5\n"},
		{name: "record count difference", a: `{"runs": [` + sim + `]}`, b: `[` + sim + `, ` + sim + `]`, code: 1,
			stdout: "record count: 1 != 2\n"},
		{name: "no records against one", a: `{"runs": null}`, b: `[` + sim + `]`, code: 1,
			stdout: "record count: 0 != 1\n"},
		{name: "number text difference", a: sim, b: rec("sim", 1, "0.0003", "[1, 2, 3]", "7.520"), code: 1,
			stdout: "record 0: overhead_per_failure.mean: 7.52 != 7.520\n"},
		{name: "float text difference", a: `{"x": 0.1}`, b: `{"x": 0.10000000000000001}`, code: 1,
			stdout: "record 0: x: 0.1 != 0.10000000000000001\n"},
		{name: "absent field and type", a: `{"x": 1, "y": "1"}`, b: `{"y": 1, "z": {"a": [true]}}`, code: 1,
			stdout: "record 0: x: 1 != (absent)\nrecord 0: y: \"1\" != 1\nrecord 0: z: (absent) != {\"a\":[true]}\n"},
		{name: "long value truncated", a: `{"s": "` + strings.Repeat("a", 200) + `"}`, b: `{"s": "b"}`, code: 1,
			stdout: "record 0: s: \"" + strings.Repeat("a", 76) + "... != \"b\"\n"},
		{name: "invalid JSON", a: sim, b: `{"runs": [`, code: 2, stderr: "b.json: invalid JSON"},
		{name: "trailing data", a: sim + " {}", b: sim, code: 2, stderr: "a.json: invalid JSON: more after"},
		{name: "empty input", a: "", b: sim, code: 2, stderr: "a.json: invalid JSON: empty input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
			write(t, a, tc.a)
			write(t, b, tc.b)
			var stdout, stderr bytes.Buffer
			code := run(append(tc.flags, a, b), strings.NewReader(""), &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stdout %q, stderr %q)", code, tc.code, stdout.String(), stderr.String())
			}
			if stdout.String() != tc.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), tc.stdout)
			}
			if !strings.Contains(stderr.String(), tc.stderr) || tc.stderr == "" && stderr.Len() > 0 {
				t.Errorf("stderr %q, want it to hold %q", stderr.String(), tc.stderr)
			}
			if tc.code == 2 && strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("stderr %q: want one line", stderr.String())
			}
		})
	}
}

func TestStdinMissingAndCap(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	write(t, a, sim)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-", a}, strings.NewReader(`[`+mpi+`]`), &stdout, &stderr); code != 0 {
		t.Errorf("stdin: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	if code := run([]string{a, filepath.Join(dir, "missing.json")}, nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "missing.json") {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"-", "-"}, nil, &stdout, &stderr); code != 2 {
		t.Errorf("two stdins: exit %d", code)
	}
	// 60 differences: 50 lines, then the count of the rest.
	var x, y []string
	for k := range 60 {
		x = append(x, fmt.Sprintf("%d", k))
		y = append(y, fmt.Sprintf("%d", k+1))
	}
	write(t, a, `{"v": [`+strings.Join(x, ",")+`]}`)
	b := filepath.Join(dir, "b.json")
	write(t, b, `{"v": [`+strings.Join(y, ",")+`]}`)
	stdout.Reset()
	if code := run([]string{a, b}, nil, &stdout, &stderr); code != 1 {
		t.Errorf("cap: exit %d", code)
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != 51 || lines[50] != "... and 10 more" || lines[0] != "record 0: v[0]: 0 != 1" {
		t.Errorf("cap: %d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
}

func TestHelpListsDefaults(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--help"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	if !strings.Contains(stdout.String(), strings.Join(defaultIgnore, ", ")) {
		t.Errorf("--help does not list the default ignore list:\n%s", stdout.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("--help wrote to stderr: %q", stderr.String())
	}
	stdout.Reset()
	if code := run([]string{"--bogus", "a", "b"}, nil, &stdout, &stderr); code != 2 || strings.Count(stderr.String(), "\n") != 1 || stdout.Len() > 0 {
		t.Errorf("unknown flag: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
