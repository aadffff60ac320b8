package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ocbench/ocbench/algo"
)

// refusal is a command line that must be refused: exit status 2, exactly
// one line on stderr that contains want, no panic, and quickly.
type refusal struct {
	args []string
	want string
}

// checkRefusals runs every case and checks that it is refused.
func checkRefusals(t *testing.T, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		code, _, errs := runWithin(t, 20*time.Second, c.args)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.HasSuffix(errs, "\n") || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, errs, c.want)
		}
	}
}

// TestCheckTraceInputs: check-trace refuses what is no trace at all (a
// directory, an empty file, a node beyond the largest N, a flag it does
// not have) with one line and exit status 2, quickly and without
// allocating per node number.
func TestCheckTraceInputs(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := file("empty.jsonl", "")
	huge := file("huge.jsonl", `{"t":0,"node":2147483647,"ev":"request"}`+"\n")
	far := file("far.jsonl", `{"t":0,"node":0,"ev":"send","type":"request","from":0,"to":9007199254740993,"msg":1}`+"\n")
	checkRefusals(t, []refusal{
		{[]string{"check-trace", dir}, "is a directory, not a trace file"},
		{[]string{"check-trace", empty}, "no events: not a trace"},
		{[]string{"check-trace", huge}, "node 2147483647 is not in 0..2^26−1"},
		{[]string{"check-trace", far}, "to 9007199254740993 is not in"},
		{[]string{"check-trace", "--k-exclusion", huge}, "node 2147483647"},
		{[]string{"check-trace", "--k-exclusion"}, "no trace files given"},
		{[]string{"check-trace", "--kexclusion", empty}, "unknown flag --kexclusion"},
	})
}

// TestRefusalInputs: every refusal of issue 27 is one line on stderr and
// exit status 2, fast and without a panic: an empty --algo (it panicked),
// flags given for runs they do not apply to (they were ignored), seeds
// beyond 2^64−1 (they wrapped to 0), arguments to version.
func TestRefusalInputs(t *testing.T) {
	small := []string{"--no-save", "--quiet", "--nodes", "8", "--requests", "10"}
	with := func(args ...string) []string { return append(append([]string{}, small...), args...) }
	checkRefusals(t, []refusal{
		{[]string{"--algo", "", "--no-save"}, "ocbench: --algo: no algorithm named"},
		{with("--algo", ""), "ocbench: --algo: no algorithm named"},
		{with("--think", "-1"), "ocbench: --think: the think time is the poisson workload's, and this run's workload is sequential"},
		{with("--think", "NaN"), "ocbench: --think: "},
		{with("--workload", "saturated", "--think", "5"), "this run's workload is saturated"},
		{with("--crash-every", "0"), "ocbench: --crash-every: it applies only to runs with crashes"},
		{with("--permanent", "1.5"), "ocbench: --permanent: it applies only to runs with crashes"},
		{with("--crashes", "0", "--downtime", "5"), "ocbench: --downtime: it applies only to runs with crashes"},
		{with("--crash-target", "token"), "ocbench: --crash-target: "},
		{with("--no-baseline"), "ocbench: --no-baseline: "},
		{with("--cs-estimate", "3"), "ocbench: --cs-estimate: it applies only when a failure protocol runs"},
		{with("--protocol", "paper"), "ocbench: --protocol: it applies only when a failure protocol runs"},
		{with("--late-factor", "0"), "ocbench: --late-factor: it applies only to late messages"},
		{with("--late-factor", "5"), "ocbench: --late-factor: it applies only to late messages"},
		{with("--delay-violations", "0.1", "--late-factor", "0"), "ocbench: --late-factor: 0 is not in (1, 1e6]"},
		{with("--placement", "nosuch"), "ocbench: --placement: it places nodes on MPI ranks, and this run is in the simulator"},
		{with("--placement", "block"), "ocbench: --placement: "},
		{with("--force"), "ocbench: --force: it lets --trace overwrite a file"},
		{with("--algo", "kofl", "--link-cap", "3"), "ocbench: --link-cap: it applies only to --transient initial"},
		{with("--algo", "kofl", "--transient", "initial", "--corruptions", "3"), "ocbench: --corruptions: it applies only to --transient during"},
		{with("--seed", "18446744073709551615", "--repeat", "2"), "ocbench: --seed: 18446744073709551615 with --repeat 2 runs seeds beyond 2^64−1"},
		{with("--seed", "18446744073709551600", "--repeat", "17"), "give a seed ≤ 18446744073709551599"},
		{with("--algo", "kofl", "--transient", "initial", "--seed", "18446744073709551615", "--search", "3"), "with --search 3"},
		{[]string{"version", "extra"}, `ocbench version: unexpected argument "extra"`},
		// Values that are no number, where the flag applies.
		{with("--workload", "poisson", "--think", "NaN"), "ocbench: --think: NaN is not in [0.001, 1e6]"},
		{with("--delta", "NaN"), "ocbench: --delta: NaN"},
		{with("--crashes", "2", "--crash-every", "NaN"), "ocbench: --crash-every: NaN is not in [0.001, 1e6]"},
		{with("--crashes", "2", "--permanent", "NaN"), "ocbench: --permanent: NaN"},
		{with("--crashes", "2", "--downtime", "Inf"), "ocbench: --downtime: +Inf"},
		{with("--ft", "--cs-estimate", "NaN"), "ocbench: --cs-estimate: NaN"},
		{with("--delay-violations", "NaN"), "ocbench: --delay-violations: NaN"},
	})
}

// TestPresetValuesNotRefused: the rule for flags that do not apply counts
// only the flags given: the ipsc2 preset's own values (poisson think time,
// crash gap, downtime) and the defaults of the crash flags are never
// refused, and the flags that apply are taken (the last seed, 2^64−1, too).
func TestPresetValuesNotRefused(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"--crash-every", "30", "--downtime", "5", "--think", "64", "--cs-estimate", "2", "--protocol", "paper"},
		{"--delay-violations", "0.01", "--late-factor", "4"},
		{"--nodes", "8", "--workload", "poisson", "--think", "8", "--requests", "10"},
		{"--nodes", "8", "--ft", "--cs-estimate", "2", "--requests", "10"},
		{"--nodes", "8", "--crashes", "2", "--crash-every", "10", "--no-baseline", "--requests", "10"},
		{"--algo", "kofl", "--nodes", "8", "--transient", "during", "--corruptions", "3", "--corrupt-every", "5"},
		{"--algo", "kofl", "--nodes", "8", "--transient", "initial", "--link-cap", "3"},
		{"--nodes", "8", "--seed", "18446744073709551614", "--repeat", "2"},
		{"--nodes", "8", "--seed", "18446744073709551615"},
	} {
		o, fs := parseArgs(t, args)
		if _, err := configs(o, fs); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}
}

// TestReportInputs: `ocbench report` refuses a crafted saved run named
// alone (N of 0 or −8, a mean of 1e308: it looped for ever or panicked)
// with one line and exit status 2, skips it in a directory with a warning
// naming it, and refuses an --output it cannot write (exit 2, one line,
// one "ocbench report:" prefix).
func TestReportInputs(t *testing.T) {
	_, here, _, _ := runtime.Caller(0) // the tests run in a temporary directory (TestMain)
	fixture := filepath.Join(filepath.Dir(here), "..", "..", "report", "testdata", "failure-free.json")
	good, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bad := map[string]string{
		"nodes0.json":  strings.Replace(string(good), `"nodes": 8,`, `"nodes": 0,`, 1),
		"nodes-8.json": strings.Replace(string(good), `"nodes": 8,`, `"nodes": -8,`, 1),
		"mean.json":    strings.Replace(string(good), `"mean": `, `"mean": 1e308, "x_mean": `, 1),
	}
	var names []string
	for name, data := range bad {
		if data == string(good) {
			t.Fatalf("%s: the fixture has changed", name)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
	}
	checkRefusals(t, []refusal{
		{[]string{"report", "-o", t.TempDir(), names[0]}, "ocbench report: " + names[0] + ": "},
		{[]string{"report", "-o", t.TempDir(), filepath.Join(dir, "nodes0.json")}, "].nodes: 0 is not in 2..2^26"},
		{[]string{"report", "-o", t.TempDir(), filepath.Join(dir, "nodes-8.json")}, "].nodes: -8 is not in"},
		{[]string{"report", "-o", t.TempDir(), dir}, "none of its 3 .json files is a valid saved run"},
		{[]string{"report", "-o", "/proc/no/such", fixture}, "ocbench report: --output /proc/no/such: "},
	})
	if err := os.WriteFile(filepath.Join(dir, "good.json"), good, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runWithin(t, 60*time.Second, []string{"report", "-o", t.TempDir(), dir})
	if code != 0 || !strings.HasPrefix(out, "wrote ") || strings.Count(errs, "ocbench report: warning: skipping ") != 3 || strings.Count(errs, "\n") != 3 {
		t.Errorf("a directory with 3 bad runs and a good one: exit %d, stdout %q, stderr %q; want the report and 3 warnings", code, out, errs)
	}
	for _, e := range strings.Split(strings.TrimSpace(errs), "\n") {
		if strings.Contains(e, "report: report:") {
			t.Errorf("a doubled prefix: %q", e)
		}
	}
}

// TestConditionalInputs: every flag of the rule for flags that do not
// apply is a flag of the command, and the help names it.
func TestConditionalInputs(t *testing.T) {
	var o options
	fs := newFlags(&o)
	for _, c := range conditionals {
		for _, name := range c.flags {
			if fs.Lookup(name) == nil {
				t.Errorf("--%s: no such flag", name)
			}
			if !strings.Contains(strings.Join(strings.Fields(limits), " "), "--"+name) {
				t.Errorf("--%s: the help's rule does not name it", name)
			}
		}
	}
}

// TestHelpVersionList: `ocbench help`, --version (-v) and --algo list print
// and exit 0; --version with anything else, and a value that does not parse,
// are refused in one line that names the flag and what it takes.
func TestHelpVersionList(t *testing.T) {
	for _, c := range []struct {
		args     []string
		code     int
		out, err string // prefixes
	}{
		{[]string{"help"}, 0, "ocbench ", ""},
		{[]string{"--version"}, 0, "ocbench ", ""},
		{[]string{"-v"}, 0, "ocbench ", ""},
		{[]string{"--algo", "list"}, 0, "algorithms (--algo", ""},
		{[]string{"--version", "--nodes", "8"}, 2, "", "ocbench: --version: it prints the version and takes no other"},
		{[]string{"--seed", "-5"}, 2, "", `ocbench: --seed: "-5" is not an integer in 0..2^64−1`},
		{[]string{"--think", "abc"}, 2, "", `ocbench: --think: "abc" is not a number`},
		{[]string{"--nodes", "x"}, 2, "", `ocbench: --nodes: "x" is not an integer`},
		{[]string{"--fifo=maybe"}, 2, "", `ocbench: --fifo: "maybe" is not true or false`},
	} {
		var out, errb strings.Builder
		code := run(c.args, &out, &errb)
		if code != c.code || !strings.HasPrefix(out.String(), c.out) || !strings.HasPrefix(errb.String(), c.err) ||
			c.code == 2 && strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %.60q, stderr %q; want exit %d, stdout %q…, stderr %q…", c.args, code, out.String(), errb.String(), c.code, c.out, c.err)
		}
	}
	var out strings.Builder
	run([]string{"--algo", "list"}, &out, io.Discard)
	for _, n := range algo.Ordered() {
		if !strings.Contains(out.String(), "  "+n+" ") {
			t.Errorf("--algo list does not name %s", n)
		}
	}
	for _, g := range []string{"all (", "survey (", "ft (", "kexclusion"} {
		if !strings.Contains(out.String(), "groups: ") || !strings.Contains(out.String(), g) {
			t.Errorf("--algo list does not name the group %q", g)
		}
	}
	var help strings.Builder
	run([]string{"--help"}, &help, io.Discard)
	for _, usage := range []string{"  ocbench [flags]\n", "  ocbench report ", "  ocbench check-trace ", "  ocbench version\n", "--wide", "--columns"} {
		if !strings.Contains(help.String(), usage) {
			t.Errorf("--help does not show %q", usage)
		}
	}
	for _, a := range algo.FaultTolerant() { // --crashes takes every algorithm with a failure protocol
		if line := help.String()[strings.Index(help.String(), "--crashes int"):]; !strings.Contains(line[:strings.Index(line, "\n")], a) {
			t.Errorf("--help: --crashes does not name %s", a)
		}
	}
}
