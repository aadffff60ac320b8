package report

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/results"
)

// crashRun is a synthetic crash run of algo at N with the given mean
// overhead per failure.
func crashRun(algo string, n int, mean, think float64, runtime, clock string) *results.Run {
	lo, hi := mean*0.9, mean*1.1
	return &results.Run{Algorithm: algo, Nodes: n, Workload: "poisson", Runtime: runtime,
		Params: results.Params{ThinkTime: think},
		Crash: results.Crash{Failures: 100,
			FaultPlan:          "100 crashes from t=0δ, exponential gaps of mean 100δ, down exp(mean 20δ), target random",
			OverheadPerFailure: results.Estimate{N: 100, Mean: mean, CI95Low: &lo, CI95High: &hi},
			OverheadSamples:    []float64{mean - 1, mean, mean + 1},
			RecoveryDelta:      results.Summary{Count: 3, Mean: 10},
			RecoverySamples:    []float64{5, 10, 15},
		},
		MPI: results.MPI{Clock: clock},
	}
}

// sweep is runs of each algorithm at N = 8 … maxN with means from mean(N),
// and at N = 32 with three think times.
func sweep(maxN int, means map[string]func(n int) float64, runtime, clock string) []*results.Run {
	var runs []*results.Run
	for _, algo := range slices.Sorted(maps.Keys(means)) { // the order of a file
		mean := means[algo]
		for n := 8; n <= maxN; n *= 2 {
			runs = append(runs, crashRun(algo, n, mean(n), float64(10*n), runtime, clock))
		}
		for _, think := range []float64{32, 3200} {
			runs = append(runs, crashRun(algo, 32, mean(32)*2, think, runtime, clock))
		}
	}
	return runs
}

// svgTexts returns the texts of an SVG image with their x positions.
func svgTexts(svg []byte) (texts []string, xs []float64) {
	re := regexp.MustCompile(`<text x="([-0-9.e]+)"[^>]*>([^<]*)</text>`)
	for _, m := range re.FindAllStringSubmatch(strings.ReplaceAll(string(svg), "\n", " "), -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		texts, xs = append(texts, m[2]), append(xs, x)
	}
	return texts, xs
}

func figures(t *testing.T, runs []*results.Run) map[string][]byte {
	t.Helper()
	figs, err := Figures([]Input{{Path: "x.json", Saved: &results.Saved{Runs: runs}}}, "svg")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range figs {
		out[f.Name] = f.Data
	}
	return out
}

// TestPlotsReadable: every figure's legend names the algorithm; the legend
// is outside the data area (the figure grows by it); a log y axis when the
// means span more than 10×, a linear one when not; the paper's two labels
// never overlap, even when N = 32 and 64 are close on a long axis.
func TestPlotsReadable(t *testing.T) {
	cases := []struct {
		name  string
		maxN  int
		means map[string]func(int) float64
		log   bool
	}{
		{"one algorithm, narrow", 64, map[string]func(int) float64{"opencube": func(n int) float64 { return 7 + float64(n)/64 }}, false},
		{"two algorithms, wide", 1 << 20, map[string]func(int) float64{
			"opencube":       func(n int) float64 { return 8 },
			"mishra-srimani": func(n int) float64 { return 2 * float64(n) },
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			figs := figures(t, sweep(c.maxN, c.means, "sim", ""))
			for _, name := range []string{"overhead-per-failure", "overhead-vs-think", "overhead-distribution-N8", "time-to-recovery"} {
				svg, ok := figs[name]
				if !ok {
					t.Fatalf("no figure %s (have %d)", name, len(figs))
				}
				texts, _ := svgTexts(svg)
				all := strings.Join(texts, "\n")
				if !slices.ContainsFunc(slices.Collect(maps.Keys(c.means)), func(algo string) bool { return strings.Contains(all, algo) }) {
					t.Errorf("%s: no text names an algorithm", name)
				}
				m := regexp.MustCompile(`width="([0-9.]+)pt" height="([0-9.]+)pt"`).FindStringSubmatch(string(svg))
				w, _ := strconv.ParseFloat(m[1], 64)
				h, _ := strconv.ParseFloat(m[2], 64)
				if w <= float64(figWidth)+1 && h <= float64(figHeight)+1 {
					t.Errorf("%s: %gpt × %gpt, no room outside the %v × %v plot for the legend", name, w, h, figWidth, figHeight)
				}
			}
			texts, xs := svgTexts(figs["overhead-per-failure"])
			all := strings.Join(texts, "\n")
			for algo := range c.means {
				if !strings.Contains(all, algo+", think") {
					t.Errorf("overhead-per-failure: no legend entry for %s in %q", algo, texts)
				}
			}
			if got := strings.Contains(all, "(log)"); got != c.log {
				t.Errorf("overhead-per-failure: log axis %v, want %v", got, c.log)
			}
			var x8, x975 float64
			for i, s := range texts {
				switch s {
				case "paper 8":
					x8 = xs[i]
				case "paper 9.75":
					x975 = xs[i]
				}
			}
			// "paper 8" at 10px: at most 0.6 em a character.
			if x8 == 0 || x975 == 0 || x8+0.6*10*float64(len("paper 8")) > x975 {
				t.Errorf("paper labels at x = %g and %g: they may overlap", x8, x975)
			}
		})
	}
}

// TestRuntimesApart: runs of one algorithm from the simulator and from MPI
// in wall-clock time are separate series, named apart in the legend; the
// report's sentence and runtime column say where each ran.
func TestRuntimesApart(t *testing.T) {
	mean := map[string]func(int) float64{"opencube": func(n int) float64 { return 8 }}
	runs := append(sweep(64, mean, "sim", ""), sweep(64, mean, "mpi", "wall")...)
	texts, _ := svgTexts(figures(t, runs)["overhead-per-failure"])
	all := strings.Join(texts, "\n")
	if !strings.Contains(all, "opencube, think") || !strings.Contains(all, "opencube (MPI wall), think") {
		t.Errorf("legend %q: want a simulator series and an MPI wall series", texts)
	}
	ins := []Input{{Path: "a.json", Saved: &results.Saved{Runs: runs}}}
	if s := runtimeSentence(ins); !strings.Contains(s, "from the simulator") || !strings.Contains(s, "MPI in wall-clock time") {
		t.Errorf("sentence %q: want both runtimes named", s)
	}
	head, rows := runTable(runs)
	if head[2] != "runtime" || rows[0][2] != RuntimeSim || rows[len(rows)-1][2] != RuntimeMPIWall {
		t.Errorf("table head %v, first row %v, last row %v: want a runtime column", head, rows[0], rows[len(rows)-1])
	}
	one := []Input{{Path: "b.json", Saved: &results.Saved{Runs: runs[:2]}}}
	if s := runtimeSentence(one); !strings.HasPrefix(s, "Runtime: every run is from the simulator (see") {
		t.Errorf("sentence %q for simulator runs only", s)
	}
}
