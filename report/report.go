// Package report turns saved runs (results.Saved files) into a readable
// report: a Markdown or HTML page with tables and plots made with
// gonum.org/v1/plot, as SVG or PNG.
package report

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ocbench/ocbench/results"
)

// Input is one saved-run file.
type Input struct {
	Path  string
	Saved *results.Saved
}

// Load reads saved-run files; a directory stands for the *.json files in it
// (sorted by name). A file named on its own must read; one found in a
// directory that does not (a 0-byte or half-written file left by an older
// ocbench killed while saving, another program's JSON) is skipped: skipped
// names it and says why. A directory with no readable file is an error.
func Load(paths []string) (ins []Input, skipped []error, err error) {
	type file struct {
		path    string
		fromDir bool
	}
	var files []file
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, fmt.Errorf("report: %w", err)
		}
		if !st.IsDir() {
			files = append(files, file{p, false})
			continue
		}
		m, err := filepath.Glob(filepath.Join(p, "*.json"))
		if err != nil {
			return nil, nil, fmt.Errorf("report: %s: %w", p, err)
		}
		if len(m) == 0 {
			return nil, nil, fmt.Errorf("report: %s: no .json files in it", p)
		}
		sort.Strings(m)
		for _, f := range m {
			files = append(files, file{f, true})
		}
	}
	if len(files) == 0 {
		return nil, nil, errors.New("report: no files to read")
	}
	for _, f := range files {
		s, err := results.LoadSaved(f.path)
		if err != nil && f.fromDir {
			skipped = append(skipped, err)
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("report: %w", err)
		}
		ins = append(ins, Input{Path: f.path, Saved: s})
	}
	if len(ins) == 0 {
		return nil, skipped, fmt.Errorf("report: no readable saved runs (%d file(s) skipped)", len(skipped))
	}
	return ins, skipped, nil
}

// Options choose the report's form.
type Options struct {
	// Format is "md" (Markdown, images in files beside it) or "html" (one
	// self-contained file, images inline).
	Format string
	// Image is "svg" or "png".
	Image string
	// Title heads the report.
	Title string
	// Command is the command that made the report, quoted in it.
	Command string
	// Name, if set, names the page: NAME.md with its images in NAME/
	// beside it (several reports can share a directory); unset, the page
	// is report.md with its images beside it.
	Name string
}

// Formats and Images list the accepted Options values; the first is the
// default.
var (
	Formats = []string{"md", "html"}
	Images  = []string{"svg", "png"}
)

func (o *Options) validate() error {
	if o.Format == "" {
		o.Format = Formats[0]
	}
	if o.Image == "" {
		o.Image = Images[0]
	}
	if o.Format != "md" && o.Format != "html" {
		return fmt.Errorf("--format: unknown format %q (allowed: md, html)", o.Format)
	}
	if o.Image != "svg" && o.Image != "png" {
		return fmt.Errorf("--image: unknown image format %q (allowed: svg, png)", o.Image)
	}
	if strings.ContainsAny(o.Name, `/\`) || o.Name == "." || o.Name == ".." {
		return fmt.Errorf("--name: %q is not a file name (no slashes)", o.Name)
	}
	if o.Title == "" {
		o.Title = "ocbench report"
	}
	return nil
}

// Figures makes the report's plots from the runs of ins, in the given image
// format: messages per request against N (one plot per workload of the
// failure-free runs; the synchronization delay against N of saturated runs;
// messages against the offered load of poisson runs), overhead per failure against N with the paper's
// points, against the load and the crash gap when the runs vary them, the
// distribution of one run's per-failure overhead, and time to recovery.
func Figures(ins []Input, image string) ([]*Figure, error) {
	var free, crash []*results.Run
	for _, in := range ins {
		for _, r := range in.Saved.Runs {
			if r.Failures > 0 {
				crash = append(crash, r)
			} else {
				free = append(free, r)
			}
		}
	}
	var figs []*Figure
	add := func(f *Figure, err error) error {
		if err != nil {
			return err
		}
		if f != nil {
			figs = append(figs, f)
		}
		return nil
	}
	byWorkload := map[string][]*results.Run{}
	var workloads []string
	for _, r := range free {
		if _, ok := byWorkload[r.Workload]; !ok {
			workloads = append(workloads, r.Workload)
		}
		byWorkload[r.Workload] = append(byWorkload[r.Workload], r)
	}
	for _, w := range workloads {
		runs := byWorkload[w]
		if w == "poisson" {
			runs = commonLoad(runs)
		}
		if err := add(againstN(msgsMetric, w, runs, image)); err != nil {
			return nil, err
		}
	}
	if runs := byWorkload["saturated"]; len(runs) > 0 {
		if err := add(againstN(syncMetric, "saturated", runs, image)); err != nil {
			return nil, err
		}
	}
	loadFigs, err := againstLoad(free, image)
	if err != nil {
		return nil, err
	}
	figs = append(figs, loadFigs...)
	if len(crash) == 0 {
		return figs, nil
	}
	ss := alongN(crashSeries(crash))
	if err := add(overheadPerFailure(ss, image)); err != nil {
		return nil, err
	}
	for _, sp := range sweepParams {
		if err := add(sweepFigure(sp, crash, image)); err != nil {
			return nil, err
		}
	}
	if r := distributionRun(crash); r != nil {
		if err := add(distribution(r, image)); err != nil {
			return nil, err
		}
	}
	longest := ss[0]
	for _, s := range ss {
		if len(s.runs) > len(longest.runs) {
			longest = s
		}
	}
	if err := add(recovery(longest, image)); err != nil {
		return nil, err
	}
	return figs, nil
}

// commonLoad returns the poisson runs at the offered load most of them
// have, so that a plot against N draws one point per algorithm and N (a
// load sweep's other runs go to the plot against load).
func commonLoad(runs []*results.Run) []*results.Run {
	count := map[float64]int{}
	best := 0.0
	for _, r := range runs {
		l := offeredLoad(r)
		count[l]++
		if count[l] > count[best] || (count[l] == count[best] && l < best) {
			best = l
		}
	}
	var out []*results.Run
	for _, r := range runs {
		if offeredLoad(r) == best {
			out = append(out, r)
		}
	}
	return out
}

// distributionRun picks the run whose per-failure distribution is shown:
// the smallest N the paper reports, else the first run with samples.
func distributionRun(runs []*results.Run) *results.Run {
	var first *results.Run
	for _, r := range runs {
		if len(r.OverheadSamples) == 0 {
			continue
		}
		if r.Paper != nil && (first == nil || first.Paper == nil || r.Nodes < first.Nodes) {
			first = r
		}
		if first == nil {
			first = r
		}
	}
	return first
}

// Write makes the report of ins in dir (created if needed): report.md and
// one image file per figure, or one self-contained report.html. It returns
// the report's path.
func Write(dir string, ins []Input, opt Options) (string, error) {
	if err := opt.validate(); err != nil {
		return "", err
	}
	figs, err := Figures(ins, opt.Image)
	if err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	var page []byte
	name := "report." + opt.Format
	imgDir := dir
	if opt.Name != "" {
		name = opt.Name + "." + opt.Format
		imgDir = filepath.Join(dir, opt.Name)
	}
	if opt.Format == "md" {
		if err := os.MkdirAll(imgDir, 0o755); err != nil {
			return "", fmt.Errorf("report: %w", err)
		}
		for _, f := range figs {
			p := filepath.Join(imgDir, f.Name+"."+opt.Image)
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				return "", fmt.Errorf("report: %w", err)
			}
		}
		page = markdown(ins, figs, opt)
	} else {
		page = htmlPage(ins, figs, opt)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, page, 0o644); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	return path, nil
}

// cell is one table cell: a run's column, formatted as in the readable table.
func runTable(runs []*results.Run) (head []string, rows [][]string) {
	cols := results.FailureFreeColumns
	for _, r := range runs {
		if r.Failures > 0 {
			cols = results.CrashColumns
			break
		}
	}
	cols = results.Shown(cols, runs)
	for _, c := range cols {
		head = append(head, c.Head)
	}
	for _, r := range runs {
		row := make([]string, len(cols))
		for k, c := range cols {
			row[k] = c.Cell(r)
		}
		rows = append(rows, row)
	}
	return head, rows
}

func envLines(e results.Environment) []string {
	var l []string
	if e.Command != "" {
		l = append(l, "command: `"+e.Command+"`")
	}
	build := "ocbench " + e.Version
	if e.Commit != "" {
		build += ", commit " + e.Commit
	}
	if e.GoVersion != "" {
		build += ", " + e.GoVersion
	}
	l = append(l, build)
	rt := e.Runtime
	if e.MPILibrary != "" {
		rt += " (" + e.MPILibrary + ")"
	}
	if e.Placement != "" {
		rt += ", placement " + e.Placement
	}
	l = append(l, fmt.Sprintf("runtime %s, %d rank(s) on %s; δ = %gs, seed %d, %d seed(s) per configuration; date %s",
		rt, e.Ranks, strings.Join(e.Hostnames, ", "), e.DeltaSeconds, e.Seed, e.Repeat, e.Date))
	return l
}

func markdown(ins []Input, figs []*Figure, opt Options) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", opt.Title)
	if opt.Command != "" {
		fmt.Fprintf(&b, "Made by `%s` from %d saved run file(s).\n\n", opt.Command, len(ins))
	}
	if len(figs) > 0 {
		b.WriteString("## Figures\n\n")
	}
	for _, f := range figs {
		link := f.Name + "." + opt.Image
		if opt.Name != "" {
			link = opt.Name + "/" + link
		}
		fmt.Fprintf(&b, "### %s\n\n![%s](%s)\n\n%s\n\n", f.Title, f.Title, link, f.Caption)
	}
	b.WriteString("## Runs\n\n")
	for _, in := range ins {
		fmt.Fprintf(&b, "### %s\n\n", filepath.Base(in.Path))
		for _, l := range envLines(in.Saved.Environment) {
			fmt.Fprintf(&b, "- %s\n", l)
		}
		if len(in.Saved.Environment.Header) > 0 {
			b.WriteString("\n```\n")
			for _, h := range in.Saved.Environment.Header {
				b.WriteString(h + "\n")
			}
			b.WriteString("```\n")
		}
		head, rows := runTable(in.Saved.Runs)
		b.WriteString("\n| " + strings.Join(head, " | ") + " |\n|")
		for range head {
			b.WriteString("---|")
		}
		b.WriteString("\n")
		for _, r := range rows {
			b.WriteString("| " + strings.Join(r, " | ") + " |\n")
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

func htmlPage(ins []Input, figs []*Figure, opt Options) []byte {
	var b bytes.Buffer
	e := html.EscapeString
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title>\n", e(opt.Title))
	b.WriteString("<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}" +
		"table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}" +
		"figure{margin:1.5em 0}figcaption{color:#333;font-size:95%}pre{background:#f6f6f6;padding:.5em;overflow-x:auto}" +
		"img,svg{max-width:100%;height:auto}</style></head><body>\n")
	fmt.Fprintf(&b, "<h1>%s</h1>\n", e(opt.Title))
	if opt.Command != "" {
		fmt.Fprintf(&b, "<p>Made by <code>%s</code> from %d saved run file(s).</p>\n", e(opt.Command), len(ins))
	}
	for _, f := range figs {
		fmt.Fprintf(&b, "<figure><h3>%s</h3>\n", e(f.Title))
		if opt.Image == "svg" {
			svg := f.Data
			if i := bytes.Index(svg, []byte("<svg")); i > 0 {
				svg = svg[i:] // drop the XML prolog: inline SVG in HTML
			}
			b.Write(svg)
		} else {
			fmt.Fprintf(&b, "<img alt=\"%s\" src=\"data:image/png;base64,%s\">", e(f.Title), base64.StdEncoding.EncodeToString(f.Data))
		}
		fmt.Fprintf(&b, "\n<figcaption>%s</figcaption></figure>\n", e(f.Caption))
	}
	b.WriteString("<h2>Runs</h2>\n")
	for _, in := range ins {
		fmt.Fprintf(&b, "<h3>%s</h3>\n<ul>\n", e(filepath.Base(in.Path)))
		for _, l := range envLines(in.Saved.Environment) {
			fmt.Fprintf(&b, "<li>%s</li>\n", e(strings.ReplaceAll(l, "`", "")))
		}
		b.WriteString("</ul>\n")
		if h := in.Saved.Environment.Header; len(h) > 0 {
			fmt.Fprintf(&b, "<pre>%s</pre>\n", e(strings.Join(h, "\n")))
		}
		head, rows := runTable(in.Saved.Runs)
		b.WriteString("<table><tr>")
		for _, h := range head {
			fmt.Fprintf(&b, "<th>%s</th>", e(h))
		}
		b.WriteString("</tr>\n")
		for _, r := range rows {
			b.WriteString("<tr>")
			for _, c := range r {
				fmt.Fprintf(&b, "<td>%s</td>", e(c))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table>\n")
	}
	b.WriteString("</body></html>\n")
	return b.Bytes()
}
