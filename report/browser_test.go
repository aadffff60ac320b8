package report

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ocbench/ocbench/internal/palette"
	"github.com/ocbench/ocbench/results"
)

// chromium returns the path of a Chromium on PATH, or skips the test (or
// fails it, when OCBENCH_VIEW_BROWSER=required: make view-test).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("OCBENCH_VIEW_BROWSER") == "required" {
		t.Fatal("no Chromium on PATH and OCBENCH_VIEW_BROWSER=required: run scripts/install-chromium.sh")
	}
	t.Skip("no Chromium on PATH: the report's browser test is skipped; scripts/install-chromium.sh installs it")
	return ""
}

// crowded is a report's worst case for its plots: 22 algorithms of the
// failure-free table (one of them up to N = 2^20, the others to 4096,
// with O(N) and O(log N) costs side by side), and crash runs in every
// runtime with long legends.
func crowded() []*results.Run {
	var runs []*results.Run
	for k, a := range palette.Algorithms[:22] {
		top := 4096
		if k == 0 {
			top = 1 << 20
		}
		for n := 4; n <= top; n *= 4 {
			cost := float64(k%3+1) * float64(n)
			if k%2 == 0 {
				cost = float64(k + 2)
			}
			runs = append(runs, &results.Run{Algorithm: a, Nodes: n, Workload: "sequential", Runtime: "sim",
				Requests: results.Requests{RequestsServed: 100, MsgsPerRequest: results.Summary{Count: 100, Mean: cost},
					SyncDelayDelta: results.Summary{Count: 100, Mean: 2}, ResponseDelta: results.Summary{Count: 100, Mean: 3}}})
		}
	}
	for _, rt := range [][2]string{{"sim", ""}, {"mpi", "virtual"}, {"mpi", "wall"}} {
		runs = append(runs, sweep(256, map[string]func(int) float64{
			"opencube":       func(n int) float64 { return 8 },
			"mishra-srimani": func(n int) float64 { return 2 * float64(n) },
		}, rt[0], rt[1])...)
	}
	return runs
}

// TestBrowserPlots renders the report's plots of the committed example
// runs and of crowded() in headless Chromium, which has no Liberation
// font (nor needs one: the SVGs embed theirs), and checks every text
// element: drawn in the embedded font, inside the image, and overlapping
// no other text (legend entries, tick labels, titles).
func TestBrowserPlots(t *testing.T) {
	path := chromium(t)
	ins, _, err := Load([]string{filepath.Join("testdata", "crashes.json"), filepath.Join("testdata", "failure-free.json")})
	if err != nil {
		t.Fatal(err)
	}
	ins = append(ins, Input{Path: "crowded.json", Saved: &results.Saved{Runs: crowded()}})
	dir := t.TempDir()
	var files []string
	for k, in := range ins {
		figs, err := Figures([]Input{in}, "svg")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range figs {
			name := filepath.Join(dir, fmt.Sprintf("%d-%s.svg", k, f.Name))
			if err := os.WriteFile(name, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, name)
		}
	}
	if len(files) < 6 {
		t.Fatalf("only %d plots: %v", len(files), files)
	}
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]),
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1600, 1200))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancelC := chromedp.NewContext(actx)
	defer cancelC()
	ctx, cancelT := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelT()
	for _, f := range files {
		var problems []string
		err := chromedp.Run(ctx, chromedp.Navigate("file://"+f), chromedp.WaitReady("svg", chromedp.ByQuery),
			chromedp.Evaluate(checkTexts, &problems, func(p *runtimeEvaluate) *runtimeEvaluate { return p.WithAwaitPromise(true) }))
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(f), err)
		}
		for _, p := range problems {
			t.Errorf("%s: %s", filepath.Base(f), p)
		}
	}
}

// checkTexts is run in the page of one SVG: once its fonts are loaded, it
// lists what is wrong with its texts.
const checkTexts = `(async () => {
  await document.fonts.ready;
  const out = [];
  const svg = document.documentElement;
  const root = svg.getBoundingClientRect();
  let faces = 0;
  document.fonts.forEach(f => { if (f.family.replace(/"/g, "") === "Go" && f.status === "loaded") faces++; });
  if (faces === 0) out.push("the embedded font Go is not loaded");
  const texts = [...document.querySelectorAll("text")].filter(t => t.textContent.trim() !== "");
  if (texts.length === 0) out.push("no text");
  const boxes = texts.map(t => ({t: t.textContent, r: t.getBoundingClientRect(), f: getComputedStyle(t).fontFamily}));
  const eps = 0.5;
  for (const b of boxes) {
    if (b.f.replace(/"/g, "") !== "Go") out.push("text " + JSON.stringify(b.t) + " asks for the font " + b.f);
    if (b.r.left < root.left - eps || b.r.top < root.top - eps || b.r.right > root.right + eps || b.r.bottom > root.bottom + eps)
      out.push("text " + JSON.stringify(b.t) + " [" + [b.r.left, b.r.top, b.r.right, b.r.bottom].map(Math.round) + "] is cut: the image is [" + [root.left, root.top, root.right, root.bottom].map(Math.round) + "]");
  }
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i].r, b = boxes[j].r;
    const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (w > 1 && h > 1) out.push("texts " + JSON.stringify(boxes[i].t) + " and " + JSON.stringify(boxes[j].t) + " overlap (" + Math.round(w) + "×" + Math.round(h) + " px)");
  }
  return out;
})()`

// runtimeEvaluate is the option type of chromedp.Evaluate.
type runtimeEvaluate = runtime.EvaluateParams

// TestPlotsNameNoOtherFont: every SVG the report writes embeds its font
// and asks for no other (a browser without it would substitute one with
// other widths, and cut the labels measured with Go Regular).
func TestPlotsNameNoOtherFont(t *testing.T) {
	figs, err := Figures([]Input{{Path: "crowded.json", Saved: &results.Saved{Runs: crowded()}}}, "svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		s := string(f.Data)
		if !strings.Contains(s, "@font-face") || !strings.Contains(s, "data:font/ttf") {
			t.Errorf("%s: no embedded font", f.Name)
		}
		for _, fam := range []string{"Liberation", "serif;", "Times"} {
			if strings.Contains(s, "font-family:"+fam) {
				t.Errorf("%s asks for %s", f.Name, fam)
			}
		}
	}
}

// TestPanelsByRule: a series that alone reaches 16 times the others'
// largest N gets a plot with every N, and the main plot stops where the
// others do; without such a series there is one plot.
func TestPanelsByRule(t *testing.T) {
	figs, err := Figures([]Input{{Path: "crowded.json", Saved: &results.Saved{Runs: crowded()}}}, "svg")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Figure{}
	for _, f := range figs {
		byName[f.Name] = f
	}
	main, every := byName["msgs-per-request-sequential"], byName["msgs-per-request-sequential-every-N"]
	if main == nil || every == nil {
		t.Fatalf("figures %v: want the main plot and the one with every N", slices.Collect(maps.Keys(byName)))
	}
	mainTexts, _ := svgTexts(main.Data)
	everyTexts, _ := svgTexts(every.Data)
	if slices.Contains(mainTexts, "2^20") || !slices.Contains(mainTexts, "2^12") || !slices.Contains(everyTexts, "2^20") {
		t.Errorf("main plot's texts %q, every N's %q: want the main one to stop at 2^12", mainTexts, everyTexts)
	}
	if !strings.Contains(main.Caption, "opencube's runs beyond N = 4096 are in the next plot") {
		t.Errorf("main caption %q does not say where the rest is", main.Caption)
	}
	var even []*results.Run
	for _, r := range crowded() {
		if r.Nodes <= 4096 {
			even = append(even, r)
		}
	}
	figs, err = Figures([]Input{{Path: "even.json", Saved: &results.Saved{Runs: even}}}, "svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		if strings.HasSuffix(f.Name, "-every-N") {
			t.Errorf("a plot %s without an outlying series", f.Name)
		}
	}
}
