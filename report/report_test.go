package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/ocbench/ocbench/results"
)

func TestLoad(t *testing.T) {
	cases := []struct {
		name  string
		paths []string
		runs  int
		err   string
	}{
		{"files", []string{"testdata/crashes.json", "testdata/failure-free.json"}, 2 + 12, ""},
		{"directory", []string{"testdata"}, 14, ""},
		{"missing", []string{"testdata/none.json"}, 0, "no such file"},
		{"nothing", nil, 0, "no files"},
		{"empty directory", []string{t.TempDir()}, 0, "no .json files"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ins, _, err := Load(c.paths)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, in := range ins {
				n += len(in.Saved.Runs)
			}
			if n != c.runs {
				t.Errorf("%d runs, want %d", n, c.runs)
			}
		})
	}
}

// TestWrite makes the report of the committed fixture in every form and
// checks that every figure is there, as a valid image, and referenced.
func TestWrite(t *testing.T) {
	ins, _, err := Load([]string{"testdata"})
	if err != nil {
		t.Fatal(err)
	}
	figures := []string{"msgs-per-request-sequential", "overhead-per-failure", "overhead-distribution-N8", "time-to-recovery"}
	cases := []struct {
		format, image string
		magic         []byte
	}{
		{"md", "svg", []byte("<?xml")},
		{"md", "png", []byte("\x89PNG")},
		{"html", "svg", nil},
		{"html", "png", nil},
	}
	for _, c := range cases {
		t.Run(c.format+"-"+c.image, func(t *testing.T) {
			dir := t.TempDir()
			path, err := Write(dir, ins, Options{Format: c.format, Image: c.image, Command: "ocbench report testdata"})
			if err != nil {
				t.Fatal(err)
			}
			page, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"ocbench report testdata", "crashes.json", "failure-free.json", "naimi-trehel", "overhead/failure"} {
				if !bytes.Contains(page, []byte(want)) {
					t.Errorf("report lacks %q", want)
				}
			}
			for _, f := range figures {
				if c.format == "html" {
					continue
				}
				img := f + "." + c.image
				if !bytes.Contains(page, []byte("("+img+")")) {
					t.Errorf("report does not show %s", img)
				}
				data, err := os.ReadFile(filepath.Join(dir, img))
				if err != nil || !bytes.HasPrefix(data, c.magic) {
					t.Errorf("%s: not a %s image (%v)", img, c.image, err)
				}
			}
			if c.format == "html" {
				want := "<svg"
				if c.image == "png" {
					want = "data:image/png;base64,"
				}
				if n := bytes.Count(page, []byte(want)); n != len(figures) {
					t.Errorf("html has %d inline images, want %d", n, len(figures))
				}
				entries, _ := os.ReadDir(dir)
				if len(entries) != 1 {
					t.Errorf("html report wrote %d files, want 1 (self-contained)", len(entries))
				}
			}
		})
	}
}

func TestWriteBadOptions(t *testing.T) {
	ins, _, err := Load([]string{"testdata/crashes.json"})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{Format: "pdf"}, {Image: "gif"}} {
		if _, err := Write(t.TempDir(), ins, o); err == nil || !strings.HasPrefix(err.Error(), "--") {
			t.Errorf("%+v: error %v, want one naming the flag", o, err)
		}
	}
}

func TestCrashSeries(t *testing.T) {
	ins, _, err := Load([]string{"testdata/crashes.json"})
	if err != nil {
		t.Fatal(err)
	}
	ss := alongN(crashSeries(ins[0].Saved.Runs))
	if len(ss) != 1 || len(ss[0].runs) != 2 || ss[0].runs[0].Nodes != 8 || ss[0].runs[1].Nodes != 16 {
		t.Fatalf("series %+v, want one series over N = 8, 16", ss)
	}
}

// TestLog2AxisLabels: an axis from N = 2 to 2^20 has a tick at every power
// of two, at most maxLog2Labels of them labelled, the large ones as 2^k.
func TestLog2AxisLabels(t *testing.T) {
	p := plot.New()
	log2Axis(&p.X, []float64{2, 1 << 20})
	ticks := p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max)
	labelled := 0
	for _, tk := range ticks {
		if tk.Label != "" {
			labelled++
			if tk.Value > 512 && !strings.HasPrefix(tk.Label, "2^") {
				t.Errorf("tick %g labelled %q", tk.Value, tk.Label)
			}
		}
	}
	if len(ticks) != 20 || labelled == 0 || labelled > maxLog2Labels {
		t.Errorf("%d ticks, %d labelled; want 20, at most %d labelled", len(ticks), labelled, maxLog2Labels)
	}
}

// TestCompareReport: runs of many algorithms at several N and loads give
// the comparison's plots — messages against N on a log axis, the
// synchronization delay, messages against load — in NAME/ beside NAME.md.
func TestCompareReport(t *testing.T) {
	var runs []*results.Run
	algos := []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"}
	for k, a := range algos {
		for _, n := range []int{16, 64, 256} {
			cost := float64(k+1) * float64(n) // O(N), spread over more than 10×
			sum := func(x float64) results.Summary { return results.Summary{Count: 10, Mean: x, Max: x} }
			runs = append(runs,
				&results.Run{Algorithm: a, Nodes: n, Workload: "saturated", Requests: results.Requests{MsgsPerRequest: sum(cost), SyncDelayDelta: sum(0.5)}},
				&results.Run{Algorithm: a, Nodes: n, Workload: "poisson", Params: results.Params{CSTime: 1, ThinkTime: float64(n)}, Requests: results.Requests{MsgsPerRequest: sum(cost)}})
			if n == 64 {
				for _, think := range []float64{6.4, 640} {
					runs = append(runs, &results.Run{Algorithm: a, Nodes: n, Workload: "poisson", Params: results.Params{CSTime: 1, ThinkTime: think}, Requests: results.Requests{MsgsPerRequest: sum(cost / 2)}})
				}
			}
		}
	}
	ins := []Input{{Path: "compare.json", Saved: &results.Saved{Runs: runs}}}
	dir := t.TempDir()
	path, err := Write(dir, ins, Options{Name: "compare"})
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "compare.md") {
		t.Errorf("page at %s, want compare.md", path)
	}
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"msgs-per-request-saturated", "msgs-per-request-poisson", "sync-delay-saturated", "msgs-against-load-64"} {
		img := "compare/" + f + ".svg"
		if !bytes.Contains(page, []byte("("+img+")")) {
			t.Errorf("compare.md does not show %s", img)
		}
		data, err := os.ReadFile(filepath.Join(dir, img))
		if err != nil || !bytes.HasPrefix(data, []byte("<?xml")) {
			t.Errorf("%s: not an SVG image (%v)", img, err)
		}
	}
	if !bytes.Contains(page, []byte("The y axis is logarithmic")) {
		t.Error("messages spanning more than 10× are not on a log axis")
	}
	if bytes.Contains(page, []byte("msgs-against-load-16")) {
		t.Error("a plot against load at N = 16, which has one load only")
	}
	if _, err := Write(dir, ins, Options{Name: "../x"}); err == nil || !strings.HasPrefix(err.Error(), "--name") {
		t.Errorf("--name ../x: error %v, want one naming the flag", err)
	}
}

// TestCommonLoad: the plot against N of poisson runs keeps the load most
// runs have, one point per algorithm and N.
func TestCommonLoad(t *testing.T) {
	r := func(n int, think float64) *results.Run {
		return &results.Run{Nodes: n, Workload: "poisson", Params: results.Params{CSTime: 1, ThinkTime: think}}
	}
	runs := []*results.Run{r(16, 16), r(64, 64), r(64, 6.4), r(64, 640), r(256, 256)}
	got := commonLoad(runs)
	if len(got) != 3 || got[0].Nodes != 16 || got[1].ThinkTime != 64 || got[2].Nodes != 256 {
		t.Errorf("commonLoad kept %d runs: %+v", len(got), got)
	}
}

// TestMDTextQuotes: Markdown text keeps quotes as they are (a runtime
// "MPI virtual" reads so in the raw file), and escapes what starts HTML.
func TestMDTextQuotes(t *testing.T) {
	for in, want := range map[string]string{
		`opencube ("MPI virtual")`: `opencube ("MPI virtual")`,
		`<b>it's</b> & more`:       `&lt;b&gt;it's&lt;/b&gt; &amp; more`,
		"a_b|c":                    `a\_b\|c`,
	} {
		if got := mdText(in); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
}
