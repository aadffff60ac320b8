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
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ocbench/ocbench/internal/outpath"
	"github.com/ocbench/ocbench/results"
)

// Input is one saved-run file.
type Input struct {
	Path  string
	Saved *results.Saved
}

// Skipped is a file of a directory that Load left out, and why.
type Skipped struct {
	Path string
	Err  error
}

// Load reads saved-run files; a directory stands for the *.json files in it
// (sorted by name). Every file is checked (Validate) before anything uses
// it: a file named in paths that cannot be read, is not a regular file (a
// device, a FIFO: results.LoadSaved), or is not a valid saved run is an
// error, while such a file found in a directory is left out and listed in
// skipped (a directory of runs may hold other JSON, or a run saved by a
// broken build), unless the directory has no valid file at all. A file
// reached twice, by any spelling (a path named twice, a directory and a
// file in it, a link), is read once: files are told apart by device and
// inode (os.SameFile). Errors name the file, without a "report:" prefix.
func Load(paths []string) (ins []Input, skipped []Skipped, err error) {
	if len(paths) == 0 {
		return nil, nil, errors.New("no files to read")
	}
	var seen []os.FileInfo // the files read, by identity
	dup := func(st os.FileInfo) bool {
		for _, s := range seen {
			if os.SameFile(s, st) {
				return true
			}
		}
		seen = append(seen, st)
		return false
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		if !st.IsDir() {
			if dup(st) {
				continue
			}
			in, err := loadOne(p)
			if err != nil {
				return nil, nil, err
			}
			ins = append(ins, in)
			continue
		}
		m, err := filepath.Glob(filepath.Join(p, "*.json"))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
		if len(m) == 0 {
			return nil, nil, fmt.Errorf("%s: no .json files in it", p)
		}
		sort.Strings(m)
		good := 0
		for _, f := range m {
			fst, err := os.Stat(f)
			if err == nil && dup(fst) {
				good++ // read already
				continue
			}
			in, err := loadOne(f)
			if err != nil {
				skipped = append(skipped, Skipped{f, err})
				continue
			}
			ins = append(ins, in)
			good++
		}
		if good == 0 {
			return nil, nil, fmt.Errorf("%s: none of its %d .json files is a valid saved run (%v)", p, len(m), skipped[len(skipped)-1].Err)
		}
	}
	return ins, skipped, nil
}

// loadOne reads and validates one saved-run file; its error names the file.
func loadOne(path string) (Input, error) {
	s, err := results.LoadSaved(path) // its error names the file
	if err != nil {
		return Input{}, err
	}
	if err := Validate(s); err != nil {
		return Input{}, fmt.Errorf("%s: not a valid saved run: %w", path, err)
	}
	return Input{Path: path, Saved: s}, nil
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
	// Stdout is where Write's dir "-" writes the page.
	Stdout io.Writer
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
		main, out, upTo := panels(runs)
		f, err := againstN(msgsMetric, w, main, image)
		if f != nil && out != "" {
			f.Caption += fmt.Sprintf(" %s's runs beyond N = %d are in the next plot, which has every N: alone, they would crush the other lines into a corner of the x axis.", out, upTo)
		}
		if err := add(f, err); err != nil {
			return nil, err
		}
		if out != "" {
			f, err := againstN(msgsMetric, w, runs, image)
			if f != nil {
				f.Name += "-every-N"
				f.Title += ", every N"
				f.Caption += fmt.Sprintf(" Every N, %s's beyond N = %d included.", out, upTo)
			}
			if err := add(f, err); err != nil {
				return nil, err
			}
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

// panels splits the runs of a plot against N by rule: when one series
// (runLabel) alone reaches an N at least panelFactor times the largest of
// every other series, and there are at least two others, the main plot
// stops at that largest N (main: the runs up to upTo) and out names the
// series that goes on; a second plot has every run. Otherwise main is
// runs and out is "".
func panels(runs []*results.Run) (main []*results.Run, out string, upTo int) {
	most := map[string]int{}
	for _, r := range runs {
		most[runLabel(r)] = max(most[runLabel(r)], r.Nodes)
	}
	if len(most) < 3 {
		return runs, "", 0
	}
	top, second := "", 0
	for l, n := range most {
		if top == "" || n > most[top] {
			top = l
		}
	}
	for l, n := range most {
		if l != top {
			second = max(second, n)
		}
	}
	if most[top] < panelFactor*second {
		return runs, "", 0
	}
	for _, r := range runs {
		if r.Nodes <= second {
			main = append(main, r)
		}
	}
	return main, top, second
}

// panelFactor is how far beyond the others one series must reach for
// panels to give it a plot of its own.
const panelFactor = 16

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

// UsageError is an error of Write that its caller's input caused: an
// option out of its range, or an output directory that cannot be made or
// written into (`ocbench report` exits with status 2 on it, as on any bad
// input). Its message names the option.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the reason.
func (e *UsageError) Unwrap() error { return e.Err }

// Write makes the report of ins in dir (created if needed): report.md and
// one image file per figure, or one self-contained report.html. It returns
// the report's path. Every file is written by package outpath's rule: it
// never replaces an input (an error), writes a device or a FIFO in place,
// and replaces a regular file whole. dir "-" (outpath.Stdout) writes the
// HTML page to opt.Stdout (only with Format "html": Markdown's images are
// files beside the page). Errors have no "report:" prefix; those of the
// options and the output are a *UsageError.
func Write(dir string, ins []Input, opt Options) (string, error) {
	if err := opt.validate(); err != nil {
		return "", &UsageError{err}
	}
	outErr := func(err error) error { return &UsageError{fmt.Errorf("--output %s: %w", dir, err)} }
	inputs := make([]string, len(ins))
	for k, in := range ins {
		inputs[k] = in.Path
	}
	if dir == outpath.Stdout {
		if opt.Format != "html" || opt.Stdout == nil {
			return "", outErr(errors.New("the standard output takes one page: give --format html (Markdown's images are files beside the page; give a directory)"))
		}
		figs, err := Figures(ins, opt.Image)
		if err != nil {
			return "", err
		}
		if err := outpath.Write(dir, htmlPage(ins, figs, opt), opt.Stdout); err != nil {
			return "", outErr(err)
		}
		return dir, nil
	}
	var page []byte
	name := "report." + opt.Format
	imgDir := dir
	if opt.Name != "" {
		name = opt.Name + "." + opt.Format
		imgDir = filepath.Join(dir, opt.Name)
	}
	mk := dir
	if opt.Format == "md" {
		mk = imgDir // the images go there
	}
	if err := os.MkdirAll(mk, 0o755); err != nil {
		return "", outErr(err)
	}
	path := filepath.Join(dir, name)
	if err := outpath.Check(path, inputs...); err != nil {
		return "", outErr(err) // before the plots are made
	}
	figs, err := Figures(ins, opt.Image)
	if err != nil {
		return "", err
	}
	if opt.Format == "md" {
		for _, f := range figs {
			p := filepath.Join(imgDir, f.Name+"."+opt.Image)
			if err := outpath.Write(p, f.Data, nil, inputs...); err != nil {
				return "", outErr(err)
			}
		}
		page = markdown(ins, figs, opt)
	} else {
		page = htmlPage(ins, figs, opt)
	}
	if err := outpath.Write(path, page, nil, inputs...); err != nil {
		return "", outErr(err)
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
	// Where each run ran, beside what it is (runtimeSentence).
	rt := results.Column{Head: "runtime", Cell: RuntimeOf}
	cols = append(append(append([]results.Column{}, cols[:min(2, len(cols))]...), rt), cols[min(2, len(cols)):]...)
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

// envLines describes a saved run's environment, a line per item; code
// formats the command, text every other string of the saved run (escaped
// for the page's format).
func envLines(e results.Environment, code, text func(string) string) []string {
	var l []string
	if e.Command != "" {
		l = append(l, "command: "+code(e.Command))
	}
	build := "ocbench " + e.Version
	if e.Commit != "" {
		build += ", commit " + e.Commit
	}
	if e.GoVersion != "" {
		build += ", " + e.GoVersion
	}
	l = append(l, text(build))
	rt := e.Runtime
	if e.MPILibrary != "" {
		rt += " (" + e.MPILibrary + ")"
	}
	if e.Placement != "" {
		rt += ", placement " + e.Placement
	}
	l = append(l, text(fmt.Sprintf("runtime %s, %d rank(s) on %s; δ = %gs, seed %d, %d seed(s) per configuration; date %s",
		rt, e.Ranks, strings.Join(e.Hostnames, ", "), e.DeltaSeconds, e.Seed, e.Repeat, e.Date)))
	return l
}

// mdText escapes a string for Markdown text (a heading, a list item, a
// table cell): line breaks become spaces, the characters Markdown gives a
// meaning to (emphasis, code, links, table pipes, a heading's closing #) are escaped with a
// backslash, and those that start HTML (&, <, >) with entities, so that a saved run's strings show
// as they are and inject no markup.
func mdText(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune("\\`*_[]|~#", c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return mdHTML.Replace(b.String())
}

// mdHTML escapes the characters that start HTML in Markdown text; quotes,
// which start nothing there, stay as they are (escaped, they read as
// &#34; wherever the Markdown is read as text).
var mdHTML = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// mdCode formats a string as a Markdown code span: a fence of more
// backticks than the string has in a row, so that nothing in it ends the
// span (its content is shown as it is, HTML included).
func mdCode(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	return fence + " " + s + " " + fence
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c rune) int {
	most, run := 0, 0
	for _, r := range s {
		if r == c {
			run++
			most = max(most, run)
		} else {
			run = 0
		}
	}
	return most
}

func markdown(ins []Input, figs []*Figure, opt Options) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", mdText(opt.Title))
	if opt.Command != "" {
		fmt.Fprintf(&b, "Made by %s from %d saved run file(s).\n\n", mdCode(opt.Command), len(ins))
	}
	fmt.Fprintf(&b, "%s\n\n", mdText(runtimeSentence(ins)))
	if len(figs) > 0 {
		b.WriteString("## Figures\n\n")
	}
	for _, f := range figs {
		link := f.Name + "." + opt.Image
		if opt.Name != "" {
			link = opt.Name + "/" + link
		}
		fmt.Fprintf(&b, "### %s\n\n![%s](%s)\n\n%s\n\n", mdText(f.Title), mdText(f.Title), link, mdText(f.Caption))
	}
	b.WriteString("## Runs\n\n")
	for _, in := range ins {
		fmt.Fprintf(&b, "### %s\n\n", mdText(filepath.Base(in.Path)))
		for _, l := range envLines(in.Saved.Environment, mdCode, mdText) {
			fmt.Fprintf(&b, "- %s\n", l)
		}
		if h := in.Saved.Environment.Header; len(h) > 0 {
			// A fence longer than any run of backticks in the lines: none
			// of them ends it, and a code block shows HTML as text.
			most := 0
			for _, l := range h {
				most = max(most, longestRun(l, '`'))
			}
			fence := strings.Repeat("`", max(3, most+1))
			b.WriteString("\n" + fence + "\n")
			for _, l := range h {
				b.WriteString(strings.NewReplacer("\r", " ", "\n", " ").Replace(l) + "\n")
			}
			b.WriteString(fence + "\n")
		}
		head, rows := runTable(in.Saved.Runs)
		cells := func(c []string) string {
			out := make([]string, len(c))
			for k, x := range c {
				out[k] = mdText(x)
			}
			return "| " + strings.Join(out, " | ") + " |\n"
		}
		b.WriteString("\n" + cells(head) + "|")
		for range head {
			b.WriteString("---|")
		}
		b.WriteString("\n")
		for _, r := range rows {
			b.WriteString(cells(r))
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
	fmt.Fprintf(&b, "<p>%s</p>\n", e(runtimeSentence(ins)))
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
		code := func(s string) string { return "<code>" + e(s) + "</code>" }
		for _, l := range envLines(in.Saved.Environment, code, e) {
			fmt.Fprintf(&b, "<li>%s</li>\n", l)
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

// runtimeSentence says where the runs of ins ran, and how the report keeps
// runtimes apart when there are several.
func runtimeSentence(ins []Input) string {
	words := map[string]string{RuntimeSim: "the simulator", RuntimeMPIVirtual: "MPI in virtual time (\"MPI virtual\")",
		RuntimeMPIWall: "MPI in wall-clock time (\"MPI wall\")"}
	count := map[string]int{}
	var order []string
	for _, in := range ins {
		for _, r := range in.Saved.Runs {
			rt := RuntimeOf(r)
			if count[rt] == 0 {
				order = append(order, rt)
			}
			count[rt]++
		}
	}
	if len(order) == 1 {
		return fmt.Sprintf("Runtime: every run is from %s (see the runtime column of the tables).", words[order[0]])
	}
	var parts []string
	for _, rt := range order {
		parts = append(parts, fmt.Sprintf("%d from %s", count[rt], words[rt]))
	}
	return "Runtimes: " + strings.Join(parts, ", ") + ". They are kept apart: the tables have a runtime column, " +
		"and a plot draws each runtime as its own series, the runtime named after the algorithm in the legend. " +
		"MPI in virtual time replays the simulator's run of a seed exactly; MPI in wall-clock time has real delays " +
		"and timers, so its runs differ from the simulator's."
}
