package view

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
)

var screenshot = flag.String("screenshot", "", "write a PNG of the crash trace's page to this file (make view-png: published/view.png)")

// browserEnv, set to "required" (make view-test), makes a missing
// Chromium a failure instead of a skip.
const browserEnv = "OCBENCH_VIEW_BROWSER"

// chromium returns the path of a Chromium on PATH, or skips the test
// (fails it if browserEnv requires a browser).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv(browserEnv) == "required" {
		t.Fatalf("no Chromium on PATH and %s=required: run scripts/install-chromium.sh", browserEnv)
	}
	t.Skip("no Chromium on PATH (chromium, chromium-browser, google-chrome): the browser test is skipped; scripts/install-chromium.sh installs it, and make test runs it")
	return ""
}

// browser is a headless Chromium with a page loaded from a file, and
// what its console and network reported.
type browser struct {
	ctx    context.Context
	mu     sync.Mutex
	errs   []string // console errors, exceptions
	remote []string // requests for anything but the page
}

func (b *browser) problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append(slices.Clone(b.errs), b.remote...)
}

// open starts Chromium (width × height) and loads the page file.
func open(t *testing.T, page string, width, height int, timeout time.Duration) *browser {
	path := chromium(t)
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]),
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(width, height))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	b := &browser{ctx: ctx}
	url := "file://" + page
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.errs = append(b.errs, "console."+string(ev.Type)+": "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			b.errs = append(b.errs, fmt.Sprintf("exception at %d:%d: %s", d.LineNumber, d.ColumnNumber, msg))
		case *network.EventRequestWillBeSent:
			if ev.Request.URL != url && !strings.HasPrefix(ev.Request.URL, "data:") {
				b.remote = append(b.remote, "request for "+ev.Request.URL)
			}
		}
	})
	if err := chromedp.Run(ctx, network.Enable(), chromedp.Navigate(url), chromedp.WaitReady("body"),
		chromedp.Poll(`window.ocbView && window.ocbView.ready`, nil, chromedp.WithPollingTimeout(timeout/2))); err != nil {
		t.Fatalf("loading %s: %v (console: %v)", page, err, b.problems())
	}
	return b
}

func (b *browser) eval(t *testing.T, expr string, out any) {
	t.Helper()
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(expr, out)); err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
}

func (b *browser) click(t *testing.T, sel string) {
	t.Helper()
	if err := chromedp.Run(b.ctx, chromedp.Click(sel, chromedp.ByQuery)); err != nil {
		t.Fatalf("clicking %s: %v", sel, err)
	}
}

// writePage writes the page of a trace into a temporary directory.
func writePage(t testing.TB, tr []byte) string {
	d, err := Read(bytes.NewReader(tr))
	if err != nil {
		t.Fatal(err)
	}
	d.Title = "opencube crash trace"
	var page bytes.Buffer
	if err := Write(&page, d); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "view.html")
	if err := os.WriteFile(name, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestBrowser loads the page of a real crash trace (open-cube, N = 8, two
// crashes) in headless Chromium and checks what it drew against the
// trace: as many message arrows as sends, a marker at every crash (node
// and time), and, stepping through every event with the step button, the
// token where the trace puts it and the father pointers the trace's father
// lines give; zooming in draws fewer arrows; the search box finds a node,
// a message and a type; and the console reports no error and the page
// fetches nothing.
func TestBrowser(t *testing.T) {
	tr := crashTrace(t, 8, 30, 2)
	x := expect(t, tr)
	if len(x.crashes) < 2 {
		t.Fatalf("the trace has %d crashes, want 2", len(x.crashes))
	}
	b := open(t, writePage(t, tr), 1400, 800, 3*time.Minute)

	var drawn struct {
		Messages int          `json:"messages"`
		Crashes  [][2]float64 `json:"crashes"`
		Recovers int          `json:"recovers"`
		CS       int          `json:"cs"`
	}
	b.eval(t, `ocbView.drawn`, &drawn)
	if drawn.Messages != x.sends {
		t.Errorf("%d messages drawn, the trace has %d sends", drawn.Messages, x.sends)
	}
	if !slices.Equal(drawn.Crashes, x.crashes) {
		t.Errorf("crash markers at %v (node, t), the trace's crashes at %v", drawn.Crashes, x.crashes)
	}
	if drawn.CS == 0 || drawn.Recovers == 0 {
		t.Errorf("%d critical sections and %d recoveries drawn, want some", drawn.CS, drawn.Recovers)
	}

	// The cursor starts after the initial father lines; each click on
	// "step ▶" moves it one event.
	type cursor struct {
		Index   int   `json:"index"`
		Holders []int `json:"holders"`
		Fathers []int `json:"fathers"`
	}
	const read = `({index: ocbView.cursor().index, holders: ocbView.holders(), fathers: ocbView.fathers()})`
	var c cursor
	b.eval(t, read, &c)
	if c.Index != x.lead-1 {
		t.Fatalf("the cursor starts at event %d, want %d (after the %d initial father lines)", c.Index, x.lead-1, x.lead)
	}
	moves, png := 0, []byte(nil)
	for k := x.lead; k < len(x.events); k++ {
		b.click(t, "#next")
		b.eval(t, read, &c)
		if c.Index != k {
			t.Fatalf("step %d: the cursor is at event %d", k, c.Index)
		}
		want := x.holders[k]
		if !slices.Equal(c.Holders, want) && !(len(c.Holders) == 0 && len(want) == 0) {
			t.Fatalf("after event %d (%+v): the page has the token at %v, the trace at %v", k, x.events[k], c.Holders, want)
		}
		if e := x.events[k]; e.Ev == "recv" && e.Type == "token" {
			moves++
			if !slices.Equal(c.Holders, []int{e.Node}) {
				t.Fatalf("event %d: the token reaches node %d, the page has it at %v", k, e.Node, c.Holders)
			}
		}
		if !slices.Equal(c.Fathers, x.fathers[k]) {
			t.Fatalf("after event %d: the page's fathers %v, the trace's %v", k, c.Fathers, x.fathers[k])
		}
		if *screenshot != "" && png == nil && k > 0 && x.events[k-1].Ev == "crash" && x.events[k-1].T > x.crashes[len(x.crashes)-1][1]-1e-12 {
			png = capture(t, b)
		}
	}
	if moves == 0 {
		t.Errorf("the token never moved")
	}
	t.Logf("stepped through %d events: the token moved %d times, as in the trace", len(x.events)-x.lead, moves)

	// Zoomed in (around the cursor, at the last event), fewer arrows are
	// drawn; back to the whole run, all.
	b.click(t, "#fit")
	for range 3 {
		b.click(t, "#zoomin")
	}
	var n int
	b.eval(t, `ocbView.drawn.messages`, &n)
	if n <= 0 || n >= x.sends {
		t.Errorf("zoomed in 8×: %d messages drawn, want some but fewer than %d", n, x.sends)
	}
	b.click(t, "#fit")
	b.eval(t, `ocbView.drawn.messages`, &n)
	if n != x.sends {
		t.Errorf("fit again: %d messages drawn, want %d", n, x.sends)
	}

	// The search box: a node, a message, a type, nothing.
	var msgID string
	b.eval(t, `ocbData.msgId[5]`, &msgID)
	for _, q := range []struct{ query, want string }{
		{"node 3", "node 3: "},
		{"msg " + msgID, "msg " + msgID + ": "},
		{"token", fmt.Sprintf("%d token messages", x.types["token"])},
		{"zebra", "no node"},
	} {
		var found string
		if err := chromedp.Run(b.ctx, chromedp.SetValue("#search", q.query, chromedp.ByQuery), chromedp.Click("#find", chromedp.ByQuery),
			chromedp.Text("#found", &found, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(found, q.want) {
			t.Errorf("search %q: %q, want it to start with %q", q.query, found, q.want)
		}
	}
	// The mouse over the diagram moves the cursor to the time under it:
	// the last event at or before it.
	var box []float64
	b.eval(t, `(function(){ const r = document.getElementById("st").getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`, &box)
	mx, my := box[0]+box[2]*0.6, box[1]+box[3]*0.5
	if err := chromedp.Run(b.ctx, chromedp.MouseEvent("mouseMoved", mx, my)); err != nil {
		t.Fatal(err)
	}
	var hover struct {
		T, Next, At float64
	}
	b.eval(t, fmt.Sprintf(`({T: ocbView.cursor().t, Next: ocbView.nextTime(), At: ocbView.timeAt(%g)})`, mx-box[0]), &hover)
	if !(hover.T <= hover.At && hover.At < hover.Next) {
		t.Errorf("the mouse at t=%g: the cursor at the event of t=%g, the next event at %g", hover.At, hover.T, hover.Next)
	}
	// Play moves the cursor on until paused.
	b.click(t, "#first")
	b.click(t, "#play")
	time.Sleep(600 * time.Millisecond)
	b.click(t, "#play")
	var played struct {
		Index   int  `json:"index"`
		Playing bool `json:"playing"`
	}
	b.eval(t, `({index: ocbView.cursor().index, playing: ocbView.playing()})`, &played)
	if played.Index <= x.lead-1 || played.Playing {
		t.Errorf("after 0.6 s of play and a pause: cursor at event %d (playing: %v), want past %d and paused", played.Index, played.Playing, x.lead-1)
	}
	// → steps one event, ← one back.
	var before, after, back int
	b.eval(t, `ocbView.cursor().index`, &before)
	if err := chromedp.Run(b.ctx, chromedp.KeyEvent(kb.ArrowRight)); err != nil {
		t.Fatal(err)
	}
	b.eval(t, `ocbView.cursor().index`, &after)
	if err := chromedp.Run(b.ctx, chromedp.KeyEvent(kb.ArrowLeft)); err != nil {
		t.Fatal(err)
	}
	b.eval(t, `ocbView.cursor().index`, &back)
	if after != before+1 || back != before {
		t.Errorf("→ then ←: the cursor at %d, %d, %d; want %d, %d, %d", before, after, back, before, before+1, before)
	}
	if p := b.problems(); len(p) > 0 {
		t.Errorf("the console or network reported: %s", strings.Join(p, "; "))
	}
	if *screenshot != "" {
		if png == nil {
			png = capture(t, b)
		}
		if err := os.WriteFile(*screenshot, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", *screenshot)
	}
}

// capture returns a PNG of the page as it is.
func capture(t *testing.T, b *browser) []byte {
	var png []byte
	if err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot(&png)); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return png
}

// TestBrowserLarge: a trace of about 10^5 events (open-cube, N = 64,
// crashes) stays usable: the page loads, draws every message of the whole
// run, redraws zoomed in, and steps, each within seconds.
func TestBrowserLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the 10^5-event page is skipped")
	}
	chromium(t)
	tr := crashTrace(t, 64, 6000, 20)
	x := expect(t, tr)
	start := time.Now()
	page := writePage(t, tr)
	gen := time.Since(start)
	st, _ := os.Stat(page)
	start = time.Now()
	b := open(t, page, 1400, 800, 5*time.Minute)
	load := time.Since(start)
	var d struct {
		Messages int     `json:"messages"`
		MS       float64 `json:"ms"`
	}
	b.eval(t, `ocbView.drawn`, &d)
	if d.Messages != x.sends {
		t.Errorf("%d messages drawn, the trace has %d sends", d.Messages, x.sends)
	}
	full := d.MS
	b.click(t, "#zoomin")
	b.click(t, "#zoomin")
	b.eval(t, `ocbView.drawn`, &d)
	zoomed := d.MS
	start = time.Now()
	for range 20 {
		b.click(t, "#next")
	}
	step := time.Since(start) / 20
	var inPage, far float64
	// The median of 21 steps: the machine may be shared, and one step
	// can wait for a garbage collection or another process.
	b.eval(t, `(function(){ const d = []; for (let i = 0; i < 21; i++) { const t0 = performance.now(); ocbView.step(1); d.push(performance.now() - t0); } d.sort((a, b) => a - b); return d[10]; })()`, &inPage)
	b.eval(t, `(function(){ const t0 = performance.now(); ocbView.step(50000); return performance.now() - t0; })()`, &far)
	t.Logf("%d events, %d messages: page %d KiB written in %v, loaded in %v; draw of the whole run %.0f ms, zoomed 4× %.0f ms; a step: %v by a click over CDP, %.1f ms in the page (median); a jump of 50000 events %.0f ms",
		len(x.events), x.sends, st.Size()/1024, gen.Round(time.Millisecond), load.Round(time.Millisecond), full, zoomed, step.Round(time.Millisecond), inPage, far)
	if len(x.events) < 100000 {
		t.Errorf("the trace has %d events, want at least 10^5", len(x.events))
	}
	if full > 5000 || zoomed > 5000 || inPage > 5000 || far > 5000 {
		t.Errorf("a draw, a step or a jump takes seconds: %.0f, %.0f, %.0f, %.0f ms", full, zoomed, inPage, far)
	}
	if p := b.problems(); len(p) > 0 {
		t.Errorf("the console or network reported: %s", strings.Join(p, "; "))
	}
}

// TestBrowserKinds loads the pages of other kinds of trace: a
// self-stabilizing algorithm's with transient faults (events of the whole
// system, node -1), a permission-based algorithm's (no token), the
// open-cube's without father lines (as MPI in wall-clock time writes
// them), and a trace of one node; each draws every message without a
// console error.
func TestBrowserKinds(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the other kinds of trace are skipped (TestBrowser runs)")
	}
	chromium(t)
	run := func(s bench.Spec) []byte {
		var buf bytes.Buffer
		s.Trace, s.TraceTree, s.NoBaseline, s.Seed, s.CSTime = &buf, true, true, 5, 1
		if _, err := bench.Run(s); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	noFathers := func(tr []byte) []byte {
		var out []byte
		for _, l := range bytes.SplitAfter(tr, []byte("\n")) {
			if !bytes.Contains(l, []byte(`"ev":"father"`)) {
				out = append(out, l...)
			}
		}
		return out
	}
	cases := []struct {
		name  string
		trace []byte
		tree  bool
	}{
		{"kofl, transient faults", run(bench.Spec{Algorithm: "kofl", Nodes: 8, Requests: 60, Workload: "poisson",
			Transient: faults.TransientPlan{Mode: "during", Events: 2}}), false},
		{"ricart-agrawala", run(bench.Spec{Algorithm: "ricart-agrawala", Nodes: 8, Requests: 40, Workload: "poisson"}), false},
		{"opencube without father lines", noFathers(run(bench.Spec{Algorithm: "opencube", Nodes: 16, Requests: 40, Workload: "poisson",
			Faults: faults.FaultPlan{Crashes: 2, Spacing: "exp", Every: 30, Down: 10, DownDist: "exp", Target: "random"}})), false},
		{"one node", []byte(`{"t":0,"node":0,"ev":"request"}` + "\n" + `{"t":0,"node":0,"ev":"enter"}` + "\n" + `{"t":0.001,"node":0,"ev":"exit"}` + "\n"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := expect(t, c.trace)
			b := open(t, writePage(t, c.trace), 1200, 700, time.Minute)
			var n, steps int
			b.eval(t, `ocbView.drawn.messages`, &n)
			if n != x.sends {
				t.Errorf("%d messages drawn, the trace has %d sends", n, x.sends)
			}
			for range min(30, len(x.events)) {
				b.click(t, "#next")
				steps++
			}
			b.click(t, "#play")
			b.click(t, "#last")
			b.click(t, "#zoomin")
			if p := b.problems(); len(p) > 0 {
				t.Errorf("after %d steps, play, last and zoom, the console or network reported: %s", steps, strings.Join(p, "; "))
			}
		})
	}
}

// TestBrowserUnits (issue 41, point 5): the page gives every time in δ,
// the unit of the run's tables, at the run's δ (Data.Delta seconds): the
// time axis's labels (round numbers of δ, 1, 2 or 5 × 10^k apart), the
// summary (with δ's value in seconds beside, the one time in seconds), the
// cursor's event and a message found by the search box.
func TestBrowserUnits(t *testing.T) {
	chromium(t)
	// A request at 0; a token sent at 1 ms and received at 1.5 ms; the
	// critical section from 1.5 ms to 2.5 ms.
	tr := []byte(`{"t":0,"node":0,"ev":"request"}
{"t":0.001,"node":1,"ev":"send","type":"token","from":1,"to":0,"msg":1,"j":0,"tag":1}
{"t":0.0015,"node":0,"ev":"recv","type":"token","from":1,"to":0,"msg":1,"j":0,"tag":1}
{"t":0.0015,"node":0,"ev":"enter"}
{"t":0.0025,"node":0,"ev":"exit"}
`)
	tick := regexp.MustCompile(`^-?[0-9.]+(e[-+][0-9]+)?δ$`)
	for _, c := range []struct {
		delta              float64
		summary, msg, last string
	}{
		{0.001, "to t=2.5δ · δ = 1 ms", "msg 1: token 1→0, sent at 1δ, received at 1.5δ", "t=2.5δ"},
		{0.0005, "to t=5δ · δ = 500 µs", "msg 1: token 1→0, sent at 2δ, received at 3δ", "t=5δ"},
		{0.004, "to t=0.625δ · δ = 4 ms", "msg 1: token 1→0, sent at 0.25δ, received at 0.375δ", "t=0.625δ"},
		{3, "to t=0.000833333δ · δ = 3 s", "msg 1: token 1→0, sent at 0.000333333δ, received at 0.0005δ", "t=0.000833333δ"},
	} {
		t.Run(fmt.Sprint(c.delta), func(t *testing.T) {
			d, err := Read(bytes.NewReader(tr))
			if err != nil {
				t.Fatal(err)
			}
			d.Delta = c.delta
			var page bytes.Buffer
			if err := Write(&page, d); err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(t.TempDir(), "units.html")
			if err := os.WriteFile(name, page.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			b := open(t, name, 1000, 500, time.Minute)
			var ticks []string
			b.eval(t, `ocbView.drawn.ticks`, &ticks)
			if len(ticks) < 3 {
				t.Fatalf("the time axis has labels %q, want a few", ticks)
			}
			var values []float64
			for _, l := range ticks {
				if !tick.MatchString(l) {
					t.Fatalf("the time axis has the label %q, want a number of δ (all: %q)", l, ticks)
				}
				v, _ := strconv.ParseFloat(strings.TrimSuffix(l, "δ"), 64)
				values = append(values, v)
			}
			step := values[1] - values[0]
			mant := step / math.Pow(10, math.Floor(math.Log10(step)))
			if !slices.ContainsFunc([]float64{1, 2, 5, 10}, func(m float64) bool { return math.Abs(m-mant) < 1e-6 }) {
				t.Errorf("the time axis's labels %q are %gδ apart, not 1, 2 or 5 × 10^k", ticks, step)
			}
			for k := 1; k < len(values); k++ {
				if math.Abs(values[k]-values[k-1]-step) > 1e-6*step {
					t.Errorf("the time axis's labels %q are not evenly spaced", ticks)
					break
				}
			}
			var summary, found, status string
			if err := chromedp.Run(b.ctx, chromedp.Text("#summary", &summary, chromedp.ByQuery),
				chromedp.SetValue("#search", "msg 1", chromedp.ByQuery), chromedp.Click("#find", chromedp.ByQuery),
				chromedp.Text("#found", &found, chromedp.ByQuery)); err != nil {
				t.Fatal(err)
			}
			b.click(t, "#last")
			b.eval(t, `ocbView.cursor().event`, &status)
			if !strings.HasSuffix(summary, c.summary) {
				t.Errorf("the summary %q, want it to end %q", summary, c.summary)
			}
			if !strings.HasPrefix(found, c.msg) {
				t.Errorf("search msg 1: %q, want %q", found, c.msg)
			}
			if !strings.Contains(status, c.last) {
				t.Errorf("the last event: %q, want %s in it", status, c.last)
			}
			if p := b.problems(); len(p) > 0 {
				t.Errorf("the console or network reported: %s", strings.Join(p, "; "))
			}
		})
	}
}
