package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocbench/ocbench/results"
)

// within runs f and fails the test if it takes more than limit, so that an
// input that makes the report loop fails the test instead of hanging it.
func within(t *testing.T, limit time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("%s: still running after %v", what, limit)
	}
}

// crafted returns the fixture testdata/crashes.json as JSON values with
// change applied to its first run.
func crafted(t *testing.T, change func(env, run map[string]any)) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/crashes.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	change(doc["environment"].(map[string]any), doc["runs"].([]any)[0].(map[string]any))
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReportBounds: saved runs crafted with values no run has (N of 0, −8
// or 12, a mean of 1e308, negative counts, names that are paths or markup)
// are refused when named alone, with the field named, and skipped (and
// listed) in a directory, whose other runs make the report; either way
// quickly. Before, N = 0 looped for ever in log2Axis, a mean of 1e308 in
// countTicks, and N = −8 panicked in gonum.
func TestReportBounds(t *testing.T) {
	set := func(key string, v any) func(env, run map[string]any) {
		return func(_, run map[string]any) { run[key] = v }
	}
	setIn := func(key, sub string, v any) func(env, run map[string]any) {
		return func(_, run map[string]any) { run[key].(map[string]any)[sub] = v }
	}
	cases := []struct {
		name   string
		change func(env, run map[string]any)
		want   string
	}{
		{"nodes 0", set("nodes", 0), "runs[0].nodes: 0 is not in 2..2^26"},
		{"nodes -8", set("nodes", -8), "runs[0].nodes: -8 is not in [0, 1e18]"},
		{"nodes 2^27", set("nodes", 1<<27), "runs[0].nodes: 134217728 is not in 2..2^26"},
		{"overhead mean 1e308", setIn("overhead_per_failure", "mean", 1e308), "runs[0].overhead_per_failure.mean: 1e308 is not in [0, 1e18]"},
		{"msgs mean 1e308", setIn("msgs_per_request", "mean", 1e308), "runs[0].msgs_per_request.mean: 1e308"},
		{"negative failures", set("failures", -3), "runs[0].failures: -3"},
		{"negative sample", set("overhead_samples", []any{1, -2}), "runs[0].overhead_samples[1]: -2"},
		{"negative count by type", set("messages_by_type", map[string]any{"test": -1}), `runs[0].messages_by_type["test"]: -1`},
		{"negative cs time", set("cs_time_delta", -1), "runs[0].cs_time_delta: -1"},
		{"victim power beyond log2 N", set("victim_powers", []any{0, 9}), "runs[0].victim_powers[1]: 9 is more than log2 N = 3"},
		{"workload a path", set("workload", "../../x"), `runs[0].workload: "../../x" is not a workload's name`},
		{"algorithm markup", set("algorithm", "<script>"), `runs[0].algorithm: "<script>"`},
		{"negative ranks", func(env, _ map[string]any) { env["ranks"] = -1 }, "environment.ranks: -1"},
		{"false suspicions -2", set("false_suspicions", -2), "runs[0].false_suspicions: -2 is not in [-1, 1e18]"},
	}
	good, err := os.ReadFile("testdata/failure-free.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			bad := filepath.Join(dir, "bad.json")
			if err := os.WriteFile(bad, crafted(t, c.change), 0o644); err != nil {
				t.Fatal(err)
			}
			within(t, 20*time.Second, c.name, func() {
				if _, _, err := Load([]string{bad}); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), bad) {
					t.Errorf("alone: error %v, want one naming %s and %q", err, bad, c.want)
				}
				if err := os.WriteFile(filepath.Join(dir, "good.json"), good, 0o644); err != nil {
					t.Fatal(err)
				}
				ins, skipped, err := Load([]string{dir})
				if err != nil || len(ins) != 1 || len(skipped) != 1 || skipped[0].Path != bad || !strings.Contains(skipped[0].Err.Error(), c.want) {
					t.Fatalf("in a directory: %d loaded, skipped %v, error %v; want the good one loaded and %s skipped", len(ins), skipped, err, bad)
				}
				if _, err := Write(filepath.Join(dir, "out"), ins, Options{}); err != nil {
					t.Errorf("the report of the rest: %v", err)
				}
			})
		})
	}
	// A directory of bad files only is refused.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), crafted(t, set("nodes", 0)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load([]string{dir}); err == nil || !strings.Contains(err.Error(), "none of its 1 .json files is a valid saved run") {
		t.Errorf("a directory of bad runs: %v", err)
	}
}

// TestValidateNonFinite: numbers JSON cannot carry (NaN, ±Inf) are refused
// in a saved run built in memory, wherever they are.
func TestValidateNonFinite(t *testing.T) {
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for name, r := range map[string]*results.Run{
			"msgs_per_request.mean":          {Requests: results.Requests{MsgsPerRequest: results.Summary{Mean: x}}},
			"overhead_differential.ci95_low": {Crash: results.Crash{OverheadDifferential: results.Estimate{CI95Low: &x}}},
			"recovery_samples[0]":            {Crash: results.Crash{RecoverySamples: []float64{x}}},
			"cpu_seconds_per_rank[0]":        {MPI: results.MPI{CPUSecondsPerRank: []float64{x}}},
			"stabilization.runs[0].rounds":   {SelfStab: results.SelfStab{Stabilization: &results.Stabilization{Runs: []results.StabRun{{Rounds: x}}}}},
		} {
			r.Algorithm, r.Workload, r.Nodes = "opencube", "poisson", 8
			err := Validate(&results.Saved{Runs: []*results.Run{r}})
			if err == nil || !strings.HasPrefix(err.Error(), "runs[0]."+name+": ") {
				t.Errorf("%s = %v: %v", name, x, err)
			}
		}
	}
	ok := &results.Run{Algorithm: "opencube", Workload: "poisson", Nodes: 8,
		Crash: results.Crash{FalseSuspicions: -1, OverheadDifferential: results.Estimate{Mean: -3}}}
	if err := Validate(&results.Saved{Runs: []*results.Run{ok}}); err != nil {
		t.Errorf("a run with signed fields below 0: %v", err)
	}
}

// TestValidateSavedRuns: every saved run committed in the repository is
// valid.
func TestValidateSavedRuns(t *testing.T) {
	files, _ := filepath.Glob("../published/*.json")
	more, _ := filepath.Glob("../published/*/data/*.json")
	if len(files) == 0 || len(more) == 0 {
		t.Fatalf("no committed saved runs under ../published (%d files, %d in data folders): moved?", len(files), len(more))
	}
	testdata, _ := filepath.Glob("testdata/*.json")
	for _, f := range append(append(files, more...), testdata...) {
		s, err := results.LoadSaved(f)
		if err != nil {
			continue // not a saved run
		}
		if err := Validate(s); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestPlotsExtremeValues: values within the bounds, however extreme (means
// of MaxValue, a cs-time of 0 giving a load of 0, a crash gap of 0 in the
// fault plan, one run at N = 2^26), make a report quickly.
func TestPlotsExtremeValues(t *testing.T) {
	big := MaxValue
	sum := results.Summary{Count: 3, Mean: big, Median: big, P99: big, Max: big}
	est := results.Estimate{N: 3, Mean: big, Stddev: big, CI95Low: &big, CI95High: &big}
	runs := []*results.Run{
		{Algorithm: "a", Nodes: 2, Workload: "poisson", Params: results.Params{CSTime: 0, ThinkTime: 1}, Requests: results.Requests{MsgsPerRequest: sum}},
		{Algorithm: "a", Nodes: 2, Workload: "poisson", Params: results.Params{CSTime: 1, ThinkTime: 1}, Requests: results.Requests{MsgsPerRequest: sum}},
		{Algorithm: "a", Nodes: 1 << 26, Workload: "saturated", Requests: results.Requests{MsgsPerRequest: sum, SyncDelayDelta: sum}},
		{Algorithm: "a", Nodes: 8, Workload: "poisson", Params: results.Params{ThinkTime: 8},
			Crash: results.Crash{Failures: 3, FaultPlan: "3 crashes from t=0δ, exponential gaps of mean 0δ, down exp(mean 0δ)",
				OverheadPerFailure: est, OverheadSamples: []float64{0, big, 1}, RecoverySamples: []float64{0, big, 1}, RecoveryDelta: sum}},
		{Algorithm: "a", Nodes: 16, Workload: "poisson", Params: results.Params{ThinkTime: 0},
			Crash: results.Crash{Failures: 3, FaultPlan: "3 crashes from t=0δ, exponential gaps of mean 1e400δ, down exp(mean 1δ)",
				OverheadPerFailure: est, RecoveryDelta: sum}},
	}
	s := &results.Saved{Runs: runs}
	if err := Validate(s); err != nil {
		t.Fatal(err)
	}
	for _, image := range Images {
		within(t, 30*time.Second, image, func() {
			if _, err := Write(t.TempDir(), []Input{{Path: "extreme.json", Saved: s}}, Options{Image: image}); err != nil {
				t.Errorf("%s: %v", image, err)
			}
		})
	}
	if got := (countTicks{}).Ticks(0, 1e308); len(got) == 0 || len(got) > 16 {
		t.Errorf("countTicks(0, 1e308): %d ticks", len(got))
	}
}

// TestReportBoundsMarkdown: a saved run's strings (command, hosts, header,
// commit) and the report's title inject no HTML and break no table in the
// Markdown report; they show escaped.
func TestReportBoundsMarkdown(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "x<b>.json")
	data := crafted(t, func(env, run map[string]any) {
		env["command"] = "ocbench `--x` <script>alert(1)</script>"
		env["hostnames"] = []any{"<img src=x onerror=alert(1)>", "a|b"}
		env["header"] = []any{"```", "</pre><script>x</script>"}
		env["commit"] = "[link](javascript:alert(1)) *bold* | pipe"
	})
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ins, _, err := Load([]string{src})
	if err != nil {
		t.Fatal(err)
	}
	path, err := Write(filepath.Join(dir, "out"), ins, Options{Title: "T <i>|</i>"})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, bad := range []string{"<script>", "<img", "<b>", "<i>", "[link]", "*bold*", " | pipe"} {
		if !inCode(s, bad) {
			t.Errorf("the report has %q as markup:\n%s", bad, s)
		}
	}
	for _, want := range []string{"&lt;img src=x onerror=alert(1)&gt;", "a\\|b", "\\[link\\]", "\\*bold\\*", "x&lt;b&gt;.json",
		"# T &lt;i&gt;\\|&lt;/i&gt;", "`` ocbench `--x` <script>alert(1)</script> ``", "````\n```\n</pre><script>x</script>\n````"} {
		if !strings.Contains(s, want) {
			t.Errorf("the report lacks %q:\n%s", want, s)
		}
	}
}

// inCode reports whether every line of the page with x in it is inside a
// code fence or has a code span (where Markdown shows it as text).
func inCode(page, x string) bool {
	fence := "" // the open fence, if any
	for _, l := range strings.Split(page, "\n") {
		ticks := strings.Trim(l, "`") == "" && len(l) >= 3
		switch {
		case fence == "" && ticks:
			fence = l
			continue
		case fence != "" && ticks && len(l) >= len(fence):
			fence = ""
			continue
		}
		if strings.Contains(l, x) && fence == "" && !strings.Contains(l, "`` ") {
			return false
		}
	}
	return true
}

// TestAnyN: a saved run of an algorithm that runs on any N (12 nodes) is
// loaded and reported; its victims' powers are bounded by ⌊log2 12⌋ = 3.
func TestAnyN(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "n12.json")
	if err := os.WriteFile(path, crafted(t, func(_, run map[string]any) { run["nodes"] = 12 }), 0o644); err != nil {
		t.Fatal(err)
	}
	ins, _, err := Load([]string{path})
	if err != nil || len(ins) != 1 {
		t.Fatalf("N = 12: %d loaded, error %v", len(ins), err)
	}
	if _, err := Write(filepath.Join(dir, "out"), ins, Options{}); err != nil {
		t.Errorf("the report of N = 12: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, crafted(t, func(_, run map[string]any) { run["nodes"] = 12; run["victim_powers"] = []any{4} }), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load([]string{bad}); err == nil || !strings.Contains(err.Error(), "more than log2 N = 3") {
		t.Errorf("N = 12, victim power 4: error %v", err)
	}
}
