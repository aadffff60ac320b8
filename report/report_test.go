package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
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
			ins, err := Load(c.paths)
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
	ins, err := Load([]string{"testdata"})
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
	ins, err := Load([]string{"testdata/crashes.json"})
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
	ins, err := Load([]string{"testdata/crashes.json"})
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
