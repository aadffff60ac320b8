package results

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	ok := func(alg string, n int, seeds ...uint64) *Run {
		return &Run{Algorithm: alg, Nodes: n, Seeds: seeds, MPI: MPI{IdenticalToSimulator: max(len(seeds), 1)}}
	}
	broken := ok("raymond", 16, 1, 2)
	broken.SafetyViolations, broken.LivenessViolations = 2, 1
	replayed := ok("naimi-trehel", 8, 3)
	replayed.SafetyViolations = 1
	replayed.Violation = "invariant violated at step 151 (t=0.079014s, seed 3): 2 tokens exist; replay: ocbench --algo naimi-trehel --nodes 8 --seed 3 --crashes 2"
	for _, c := range []struct {
		name      string
		runs      []*Run
		per       int
		verified  bool
		valid     bool
		line      string // a regexp the line matches
		violation int
	}{
		{"one run", []*Run{ok("opencube", 32)}, 1, false, true, `^VALID: 0 violations, records complete \(1 configuration, 1 run\)$`, 0},
		{"seeds", []*Run{ok("opencube", 32, 1, 2, 3), ok("opencube", 64, 1, 2, 3)}, 3, false, true, `^VALID: 0 violations, records complete \(2 configurations, 6 runs\)$`, 0},
		{"verified", []*Run{ok("opencube", 32, 1, 2)}, 2, true, true, `^VALID: .*2 runs, 2 equal to the simulator's\)$`, 0},
		{"violations", []*Run{ok("opencube", 32, 1, 2), broken}, 2, false, false, `^INVALID: 3 violations \(2 safety, 1 liveness\), the first in raymond N=16; no figure above is a valid result$`, 3},
		{"violation with its replay", []*Run{ok("opencube", 32, 3), replayed, broken}, 1, false, false, `^INVALID: 4 violations \(3 safety, 1 liveness\), the first in naimi-trehel N=8 \(replay: ocbench --algo naimi-trehel --nodes 8 --seed 3 --crashes 2\); raymond N=16: 2 of 1 runs recorded; no figure above is a valid result$`, 4},
		{"missing seeds", []*Run{ok("opencube", 32, 1, 2)}, 3, false, false, `^INVALID: opencube N=32: 2 of 3 runs recorded;`, 0},
		{"not verified", []*Run{{Algorithm: "opencube", Nodes: 32, Seeds: []uint64{1, 2}, MPI: MPI{IdenticalToSimulator: 1}}}, 2, true, false, `^INVALID: opencube N=32: 1 of 2 runs found equal to the simulator's;`, 0},
		{"nothing", nil, 1, false, false, `^INVALID: no record;`, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Validate(c.runs, c.per, c.verified)
			if v.Valid != c.valid || v.Violations != c.violation {
				t.Errorf("Validate = %+v, want valid %v, %d violations", v, c.valid, c.violation)
			}
			if !regexp.MustCompile(c.line).MatchString(v.Line()) {
				t.Errorf("Line() = %q, want it to match %s", v.Line(), c.line)
			}
			if strings.Contains(v.Line(), "\n") {
				t.Errorf("Line() = %q has a line break", v.Line())
			}
		})
	}
}

func TestWriteKV(t *testing.T) {
	r := &Run{Algorithm: "opencube", Nodes: 32, Seeds: []uint64{1, 2}, Workload: "poisson",
		Requests: Requests{MsgsPerRequest: Summary{Count: 3, Mean: 4.5}, MessagesByType: map[string]int64{"token": 7}},
		Crash:    Crash{OverheadPerFailure: Estimate{N: 2, Mean: 8.25}, OverheadSamples: make([]float64, KVMaxList+1), Paper: &PaperComparison{PerFailure: 8, Ratio: 1.03}}}
	head := [][2]string{{"ocbench_version", "x"}, {"command", "ocbench --format kv"}}
	for _, c := range []struct {
		name   string
		v      Validation
		want   []string // lines the output holds
		absent []string // keys (prefixes of lines) it must not hold
	}{
		{"valid", Validate([]*Run{r}, 2, false),
			[]string{"ocbench_kv: 1", "ocbench_version: x", "command: ocbench --format kv", "configurations: 1", "runs: 2", "records: opencube.N32",
				"opencube.N32.seeds: 1,2", "opencube.N32.msgs_per_request.mean: 4.5", "opencube.N32.messages_by_type.token: 7",
				"opencube.N32.overhead_per_failure.mean: 8.25", "opencube.N32.paper.overhead_per_failure: 8",
				"opencube.N32.overhead_samples.count: 65", "violations: 0", "verdict: VALID"},
			[]string{"reason:", "opencube.N32.overhead_per_failure.ci95_low"}},
		{"invalid", Validate([]*Run{r}, 3, false),
			[]string{"opencube.N32.algorithm: opencube", "opencube.N32.seeds: 1,2", "verdict: INVALID", "reason: opencube N=32: 2 of 3 runs recorded"},
			[]string{"opencube.N32.msgs_per_request", "opencube.N32.overhead_per_failure", "VALID"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteKV(&b, head, []*Run{r}, c.v); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			keys := map[string]bool{}
			for _, l := range lines {
				k, _, ok := strings.Cut(l, ": ")
				if !ok || strings.ContainsAny(k, " \t") {
					t.Errorf("line %q is not key: value", l)
				}
				if keys[k] {
					t.Errorf("key %q twice", k)
				}
				keys[k] = true
			}
			for _, w := range c.want {
				if !strings.Contains("\n"+b.String(), "\n"+w+"\n") {
					t.Errorf("no line %q in\n%s", w, b.String())
				}
			}
			for _, a := range c.absent {
				if strings.Contains("\n"+b.String(), "\n"+a) {
					t.Errorf("a line starts with %q in\n%s", a, b.String())
				}
			}
			if !strings.HasPrefix(lines[len(lines)-1], "verdict: ") && !strings.HasPrefix(lines[len(lines)-1], "reason: ") {
				t.Errorf("last line %q is not the verdict", lines[len(lines)-1])
			}
		})
	}
}

func TestHostParse(t *testing.T) {
	cpuinfo := "processor\t: 0\nmodel name\t: Example CPU @ 2.0GHz\nphysical id\t: 0\ncpu cores\t: 4\n\n" +
		"processor\t: 1\nmodel name\t: Example CPU @ 2.0GHz\nphysical id\t: 1\ncpu cores\t: 4\n"
	model, cores := parseCPUInfo(strings.NewReader(cpuinfo))
	if model != "Example CPU @ 2.0GHz" || cores != 8 {
		t.Errorf("parseCPUInfo = %q, %d; want the model and 8 cores (4 per package, 2 packages)", model, cores)
	}
	if model, cores := parseCPUInfo(strings.NewReader("processor : 0\nModel : Raspberry Pi 4\n")); model != "Raspberry Pi 4" || cores != 0 {
		t.Errorf("parseCPUInfo of an ARM file = %q, %d", model, cores)
	}
	if got := parseMemTotal(strings.NewReader("MemFree: 1 kB\nMemTotal:       2048 kB\n")); got != 2048*1024 {
		t.Errorf("parseMemTotal = %d, want %d", got, 2048*1024)
	}
	h := ReadHost()
	if h.CPUs < 1 || h.GOMAXPROCS < 1 || h.OS == "" {
		t.Errorf("ReadHost = %+v: no CPUs or OS", h)
	}
	t.Setenv("SLURM_JOB_ID", "42")
	t.Setenv("HOME_SECRET_TOKEN", "x")
	h = ReadHost()
	if h.Env["SLURM_JOB_ID"] != "42" || len(h.Env) != countSet() {
		t.Errorf("ReadHost().Env = %v: want SLURM_JOB_ID and only HostEnv's variables", h.Env)
	}
	// A saved environment without the new group reads back (older files),
	// and one with it round-trips.
	var e Environment
	if err := json.Unmarshal([]byte(`{"ocbench_version":"0.1","go_version":"go1.22","runtime":"simulator","hostnames":["a"],"ranks":1,"delta_seconds":0.001,"seed":1,"repeat":1,"command":"ocbench","date":"2026-01-01T00:00:00Z"}`), &e); err != nil || e.Host != nil || e.Validation != nil {
		t.Errorf("an older environment: %v, %+v", err, e)
	}
}

func countSet() int {
	n := 0
	for _, k := range HostEnv {
		if _, ok := lookupEnv(k); ok {
			n++
		}
	}
	return n
}

func TestTimesInDelta(t *testing.T) {
	for _, c := range []struct {
		in    string
		delta float64
		want  string
	}{
		{"3 nodes down at once (first at t=3.72608s), the model allows one", 0.001, "3 nodes down at once (first at t=3726.08δ (3.72608s)), the model allows one"},
		{"at step 289 (t=0.138736s): 2 tokens; baseline (t=0.285223s, seed 1)", 0.001, "at step 289 (t=138.736δ (0.138736s)): 2 tokens; baseline (t=285.223δ (0.285223s), seed 1)"},
		{"t=2s and t=1e-3s", 0.5, "t=4δ (2s) and t=0.002δ (1e-3s)"},
		{"from t=0δ, gaps", 0.001, "from t=0δ, gaps"},
		{"at t=1.5s", 0, "at t=1.5s"},
		{"the run reached a virtual time of 12.5s, the end of its budget (400 steps and 12.5s of virtual time: 4× what its workload and fault plan need), at t=12.5002s", 0.001,
			"the run reached a virtual time of 12500δ (12.5s), the end of its budget (400 steps and 12500δ (12.5s) of virtual time: 4× what its workload and fault plan need), at t=12500.2δ (12.5002s)"},
		{"400 steps and 2e+06s of virtual time", 4, "400 steps and 500000δ (2e+06s) of virtual time"},
		{"waited 20s of wall-clock time; a virtual time of x", 0.001, "waited 20s of wall-clock time; a virtual time of x"},
	} {
		if got := TimesInDelta(c.in, c.delta); got != c.want {
			t.Errorf("TimesInDelta(%q, %g) = %q, want %q", c.in, c.delta, got, c.want)
		}
	}
}
