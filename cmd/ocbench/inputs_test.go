package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/results"
	"github.com/spf13/pflag"
)

// runWithin runs run(args) and fails the test if it takes more than limit,
// so that an input that hangs fails the test instead of hanging it.
func runWithin(t *testing.T, limit time.Duration, args []string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(args, &out, &errb) }()
	select {
	case code = <-done:
		return code, out.String(), errb.String()
	case <-time.After(limit):
		t.Fatalf("%v: still running after %v", args, limit)
		return 0, "", ""
	}
}

// TestNoInputHangs runs inputs that could hang a run (or be taken
// silently): each is refused (exit 2, one line on stderr naming the flag
// and its range) or ends quickly with a verdict (exit 0, or 1 with the
// violation named).
func TestNoInputHangs(t *testing.T) {
	cases := []struct {
		args []string
		flag string // the flag a refusal names; "" if the run must go ahead
		want string // what the refusal says of the accepted values
	}{
		{[]string{"--cs-time", "0"}, "--think", "[0.001, 1e6]"},                          // the ipsc2 preset: think time 10·N·0
		{[]string{"--preset", "ipsc2", "--cs-time", "1e6"}, "--think", "[0.001, 3.2e7]"}, // 10·N·cs-time, above N·cs-time
		{[]string{"--think", "1e308"}, "--think", "[0.001, 1e6]"},
		{[]string{"--think", "-1"}, "--think", "[0.001, 1e6]"},
		{[]string{"--nodes", "8", "--workload", "poisson", "--think", "-1", "--requests", "10"}, "--think", "[0.001, 1e6]"},
		{[]string{"--nodes", "8", "--workload", "poisson", "--cs-time", "0", "--requests", "10"}, "--think", "[0.001, 1e6]"},
		{[]string{"--crashes", "1", "--crash-every", "1e308"}, "--crash-every", "[0.001, 1e6]"},
		{[]string{"--crashes", "1", "--crash-every", "1", "--downtime", "1e308", "--workload", "poisson"}, "--downtime", "[0.001, 1e6]"},
		{[]string{"--crashes", "1000000", "--crash-every", "1e-300", "--downtime", "1e-300"}, "--crash-every", "[0.001, 1e6]"}, // was a message storm
		{[]string{"--crashes", "5", "--downtime", "1e-300", "--workload", "poisson"}, "--downtime", "[0.001, 1e6]"},
		{[]string{"--crashes", "1", "--crash-start", "1e308", "--workload", "poisson"}, "--crash-start", "[0, 1e6]"},
		{[]string{"--crashes", "2000000", "--workload", "poisson"}, "--crashes", "0..1000000"},
		{[]string{"--nodes", "2", "--crashes", "1", "--workload", "poisson"}, "--crashes", "N ≥ 4"},
		{[]string{"--nodes", "8", "--crashes", "40", "--permanent", "1", "--workload", "poisson"}, "--permanent", "N−3 = 5"},
		{[]string{"--workload", "saturated", "--cs-time", "0", "--crashes", "5"}, "--cs-time", "[0.001, 1e6]"},
		{[]string{"--delta", "1e300"}, "--delta", "[1e-9, 1000]"},
		{[]string{"--cs-estimate", "1e300"}, "--cs-estimate", "[0, 1e6]"},
		{[]string{"--preset", "ipsc2", "--delay-violations", "0.1", "--late-factor", "1e300"}, "--late-factor", "(1, 1e6]"},
		// The planner waited for ever for a node crashed for good to recover.
		{[]string{"--nodes", "8", "--workload", "poisson", "--think", "32", "--crashes", "30", "--crash-every", "40",
			"--requests", "300", "--seed", "2", "--permanent", "0.15"}, "", ""},
		{[]string{"--nodes", "4", "--workload", "poisson", "--think", "8", "--crashes", "200", "--crash-every", "1",
			"--downtime", "100", "--permanent", "0.005", "--requests", "50"}, "", ""},
		{[]string{"--nodes", "8", "--workload", "saturated", "--cs-time", "0", "--requests", "2000"}, "", ""},
		// k-exclusion and transient faults: refused where they do not apply.
		{[]string{"--nodes", "8", "--ell", "3"}, "--ell", "only k-exclusion algorithms (" + algo.KExclusionNames() + ")"},
		{[]string{"--nodes", "8", "--k-max", "3"}, "--k-max", "only k-exclusion algorithms (" + algo.KExclusionNames() + ")"},
		{[]string{"--nodes", "8", "--transient", "initial"}, "--transient", "not self-stabilizing"},
		{[]string{"--algo", "kofl", "--nodes", "8", "--ell", "5", "--k-max", "6"}, "--k-max", "1..ℓ = 5"},
		{[]string{"--algo", "kofl", "--nodes", "8", "--ell", "70000"}, "--ell", "1..65536"},
		{[]string{"--algo", "kofl", "--nodes", "8", "--transient", "sometimes"}, "--transient", "none, initial, during"},
		{[]string{"--algo", "kofl", "--nodes", "8", "--workload", "each"}, "--workload", "anonymous"},
		{[]string{"--algo", "kofl", "--nodes", "8", "--search", "10"}, "--search", "--transient initial or during"},
		{[]string{"--algo", "kofl", "--nodes", "8", "--search", "10", "--repeat", "2", "--transient", "initial"}, "--search", "drop --repeat"},
		{[]string{"--algo", "kofl", "--nodes", "8", "--transient", "during", "--corrupt-every", "0"}, "--corrupt-every", "(0, 1e6]"},
		{[]string{"--algo", "kofl", "--nodes", "8", "--transient", "initial", "--requests", "50", "--search", "3", "--workload", "saturated"}, "", ""},
		{[]string{"--algo", "kofl", "--nodes", "4", "--transient", "during", "--requests", "50", "--ell", "2", "--workload", "poisson"}, "", ""},
		{[]string{"--nodes", "8", "--workload", "sequential", "--cs-time", "0", "--crashes", "5", "--requests", "100"}, "", ""},
		{[]string{"--nodes", "4", "--workload", "poisson", "--think", "1e6", "--requests", "20", "--crashes", "3", "--crash-every", "1e6", "--downtime", "1e6"}, "", ""},
	}
	for _, c := range cases {
		args := append([]string{"--no-save", "--quiet"}, c.args...)
		code, out, errs := runWithin(t, 60*time.Second, args)
		lines := strings.Count(errs, "\n")
		switch {
		case c.flag != "":
			if code != 2 || lines != 1 || !strings.HasPrefix(errs, "ocbench: "+c.flag+": ") || !strings.Contains(errs, c.want) {
				t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line naming %s and %s", c.args, code, errs, c.flag, c.want)
			}
		case code == 0:
			if !strings.Contains(out, "violations") {
				t.Errorf("%v: exit 0 without a table: %q", c.args, out)
			}
		case code == 1:
			if !strings.Contains(out, "# VIOLATION") || !strings.Contains(out, "replay: ocbench ") || !strings.Contains(errs, "violation") {
				t.Errorf("%v: exit 1 without a violation and its replay: stdout %q, stderr %q", c.args, out, errs)
			}
		default:
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errs)
		}
	}
}

// TestBaselineViolationExits: a crash run whose baseline ended with a
// violation (bench.Run records it with the prefix "baseline: ") makes the
// command exit 1, as any violation does, and the table names it.
func TestBaselineViolationExits(t *testing.T) {
	defer func(rt bench.Runtime) { simulator = rt }(simulator)
	simulator = brokenBaseline{}
	code, out, errs := runWithin(t, 60*time.Second, []string{"--no-save", "--quiet", "--nodes", "8", "--workload", "poisson",
		"--crashes", "5", "--requests", "50"})
	if code != 1 || !strings.Contains(out, "# VIOLATION (opencube, N=8): baseline: ") || !strings.Contains(errs, "1 invariant violation") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestReplayCommand: the command in a violation replays the run: its flags
// give back the spec of that run (one seed), whatever the flags or the
// preset that chose it.
func TestReplayCommand(t *testing.T) {
	for _, args := range [][]string{
		{"--preset", "ipsc2", "--seed", "3"},
		{"--nodes", "16", "--workload", "sequential", "--cs-time", "0", "--requests", "77", "--fifo", "--min-delay", "0.25"},
		{"--nodes", "64", "--workload", "poisson", "--think", "12.5", "--crashes", "40", "--crash-spacing", "fixed", "--crash-every", "33",
			"--crash-start", "7", "--downtime", "5", "--downtime-dist", "fixed", "--permanent", "0.1", "--crash-target", "token",
			"--cs-estimate", "3", "--delay-violations", "0.01", "--late-factor", "4", "--no-baseline", "--repair", "--delta", "0.002", "--check", "counts"},
		{"--nodes", "512", "--workload", "saturated", "--ft", "--requests", "1000"},
		{"--algo", "kofl", "--nodes", "16", "--ell", "5", "--k-max", "3", "--transient", "initial", "--link-cap", "7"},
		{"--algo", "kofl", "--nodes", "16", "--ell", "4", "--transient", "during", "--corruptions", "9", "--corrupt-every", "12.5", "--workload", "poisson"},
		{"--algo", "kofl", "--nodes", "8"},
	} {
		o, fs := parseArgs(t, args)
		list, err := configs(o, fs)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		for _, c := range list {
			want, err := c.spec.Normalized()
			if err != nil {
				t.Fatal(err)
			}
			cmd := strings.Fields(bench.Replay(c.spec))
			var o2 options
			fs2 := newFlags(&o2)
			if err := fs2.Parse(cmd[1:]); err != nil {
				t.Fatalf("%s: %v", cmd, err)
			}
			list2, err := configs(&o2, fs2)
			if err != nil || len(list2) != 1 || o2.repeat != 1 {
				t.Fatalf("%s: %d configurations, repeat %d, %v", cmd, len(list2), o2.repeat, err)
			}
			got, err := list2[0].spec.Normalized()
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
				t.Errorf("%v:\n%s\ngives %+v\nwant  %+v", args, strings.Join(cmd, " "), got, want)
			}
		}
	}
}

// brokenBaseline is the simulator, with every run's baseline made to end in
// a violation.
type brokenBaseline struct{ bench.Simulator }

func (brokenBaseline) Run(specs []bench.Spec) ([]*results.Run, error) {
	out, err := bench.Simulator{}.Run(specs)
	for k, r := range out {
		r.LivenessViolations++
		r.Violation = "baseline: the run reached 500 steps, the end of its budget; replay: " + bench.Replay(specs[k])
		r.OverheadDifferential = results.Estimate{}
	}
	return out, err
}

// parseArgs parses args as run does (the ipsc2 preset when they name no
// experiment), failing the test on a parse error.
func parseArgs(t *testing.T, args []string) (*options, *pflag.FlagSet) {
	t.Helper()
	o := &options{}
	fs := newFlags(o)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if defaultsToPreset(fs, o.algos) {
		o.preset = "ipsc2"
	}
	return o, fs
}
