package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ocbench/ocbench/internal/palette"
	"github.com/ocbench/ocbench/results"
)

// Figure is one plot of a report, rendered.
type Figure struct {
	// Name is the file stem (e.g. "msgs-per-request-sequential").
	Name  string
	Title string
	// Caption says what the plot shows and how to read it.
	Caption string
	// Data is the image, in the report's image format.
	Data []byte
}

// Figure size: wide enough for a legend beside six series, small enough to
// read without scrolling.
const (
	figWidth  = 16 * vg.Centimeter
	figHeight = 10 * vg.Centimeter
)

// render draws p in the given format ("svg" or "png"). The legend goes
// outside the data area: at the right of the plot, the figure made wider
// by the legend's width, or below it, taller, when the legend is wider
// than legendMaxRight.
func render(p *plot.Plot, format string) ([]byte, error) {
	leg := p.Legend
	size := leg.Rectangle(draw.Canvas{}).Size()
	w, h := figWidth, figHeight
	right := size.X > 0 && size.X <= legendMaxRight
	switch {
	case right:
		w += size.X + 2*legendGap
		h = max(h, size.Y+2*legendGap) // a long legend makes the figure taller
	case size.X > 0:
		h += size.Y + 2*legendGap
	}
	var c vg.CanvasWriterTo = vgsvg.NewWith(vgsvg.UseWH(w, h), vgsvg.EmbedFonts(true)) // the font travels with the file
	if format != "svg" {
		var err error
		if c, err = draw.NewFormattedCanvas(w, h, format); err != nil {
			return nil, fmt.Errorf("rendering a plot as %s: %w", format, err)
		}
	}
	// A margin on every side: a browser's box of a text is its font's
	// whole line (ascent, descent and line gap), which reaches beyond the
	// glyphs gonum places at the image's edges.
	dc := draw.Crop(draw.New(c), imageMargin, -imageMargin, imageMargin, -imageMargin)
	p.Legend = plot.NewLegend()
	defer func() { p.Legend = leg }()
	leg.Top, leg.Left, leg.XOffs, leg.YOffs = true, true, 0, 0
	switch {
	case right:
		p.Draw(draw.Crop(dc, 0, -(size.X + 2*legendGap), 0, 0))
		leg.Draw(draw.Crop(dc, figWidth+legendGap, 0, 0, -legendGap))
	case size.X > 0:
		p.Draw(draw.Crop(dc, 0, 0, size.Y+2*legendGap, 0))
		leg.Draw(draw.Crop(dc, legendGap, 0, 0, -(figHeight + legendGap)))
	default:
		p.Draw(dc)
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("rendering a plot as %s: %w", format, err)
	}
	return b.Bytes(), nil
}

// imageMargin is the space left blank around a plot's image.
const imageMargin = 2 * vg.Millimeter

// legendMaxRight is the widest legend placed at the right of a plot; a
// wider one goes below it. legendGap is the space around a legend.
const (
	legendMaxRight = 7 * vg.Centimeter
	legendGap      = 3 * vg.Millimeter
)

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Label.TextStyle.Font.Size = vg.Points(11)
	p.Y.Label.TextStyle.Font.Size = vg.Points(11)
	p.X.Tick.Label.Font.Size = vg.Points(10)
	p.Y.Tick.Label.Font.Size = vg.Points(10)
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	// Entries apart by more than a line of text: a browser's box of a text
	// (the font's ascent, descent and line gap) is taller than gonum's.
	p.Legend.Padding = vg.Points(4)
	p.Y.Tick.Marker = countTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// errorBars are vertical error bars that do not ask the plot for room
// around them: gonum's glyph boxes of error bars misjudge log axes and
// squeeze the plot; the axis ranges set here include the bars anyway.
type errorBars struct{ *plotter.YErrorBars }

// GlyphBoxes returns no boxes.
func (errorBars) GlyphBoxes(*plot.Plot) []plot.GlyphBox { return nil }

// log2Axis sets a logarithmic x axis with a tick at every power of two,
// labelled as the number up to 512 and as 2^k above (1048576 and its
// neighbours ran together); with more than maxLog2Labels powers only every
// second (third, …) tick is labelled.
// Values that are not positive and finite are left out (Validate refuses
// them in saved runs; with N = 0 the loop over powers never ended).
func log2Axis(a *plot.Axis, xs []float64) {
	lo, hi := minMax(positive(xs))
	if !(lo <= hi) {
		lo, hi = 1, 2 // no value: an empty axis
	}
	if lo >= hi {
		lo, hi = lo/2, hi*2
	}
	a.Scale = plot.LogScale{}
	a.Min, a.Max = lo/math.Sqrt2, hi*math.Sqrt2
	first, last := math.Floor(math.Log2(lo)), math.Ceil(math.Log2(hi))
	every := int(math.Ceil((last - first + 1) / maxLog2Labels))
	var ticks []plot.Tick
	for e := first; e <= last; e++ {
		v := math.Exp2(e)
		if v < a.Min || v > a.Max {
			continue
		}
		t := plot.Tick{Value: v}
		if int(e-first)%every == 0 {
			t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			if v > 512 {
				t.Label = fmt.Sprintf("2^%d", int(e))
			}
		}
		ticks = append(ticks, t)
	}
	a.Tick.Marker = plot.ConstantTicks(ticks)
}

// maxLog2Labels is the most labelled ticks log2Axis puts on an axis.
const maxLog2Labels = 11

// logAxis sets a logarithmic axis labelled at 1, 2, 5 × powers of ten,
// from lo to hi, which must be positive and finite (otherwise the axis is
// linear: a log axis from 0 never found its first decade).
func logAxis(a *plot.Axis, lo, hi float64) {
	if !finitePositive(lo) || !finitePositive(hi) || lo > hi {
		return
	}
	a.Scale = plot.LogScale{}
	a.Min, a.Max = lo/1.3, hi*1.3
	var ticks []plot.Tick
	mant := []float64{1, 2, 5}
	if a.Max/a.Min > 1000 {
		mant = []float64{1}
	}
	for e := math.Floor(math.Log10(a.Min)); e <= math.Ceil(math.Log10(a.Max)); e++ {
		for _, m := range mant {
			v := m * math.Pow(10, e)
			if v >= a.Min && v <= a.Max {
				ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
			}
		}
	}
	a.Tick.Marker = plot.ConstantTicks(ticks)
}

// addSeries draws one series as a line through points, with its legend,
// in the style st (its colour and marker fixed by its algorithm's name:
// palette.Algorithm) and dash pattern dashes.
func addSeries(p *plot.Plot, st palette.Style, dashes []vg.Length, name string, pts plotter.XYs) error {
	l, s, err := plotter.NewLinePoints(pts)
	if err != nil {
		return fmt.Errorf("plotting %s: %w", name, err)
	}
	l.Color = st.Color
	l.Width = vg.Points(1.5)
	l.Dashes = dashes
	s.Color = st.Color
	s.Shape = plotutil.Shape(st.Shape)
	s.Radius = vg.Points(3)
	p.Add(l, s)
	p.Legend.Add(name, l, s)
	return nil
}

// styles counts the series of each algorithm on one plot: every series
// of an algorithm has its colour and marker (palette.Algorithm, the same
// in every plot), and the k-th of them on a plot (another runtime,
// another load) the k-th dash pattern.
type styles map[string]int

// next returns the style and dash pattern of the next series of algorithm.
func (s styles) next(algorithm string) (palette.Style, []vg.Length) {
	k := s[algorithm]
	s[algorithm]++
	return palette.Algorithm(algorithm), plotutil.Dashes(k)
}

// metric is a quantity of a failure-free run plotted by the report.
type metric struct {
	name    string // file stem
	what    string // the title's words
	axis    string // the y axis label
	caption string
	value   func(r *results.Run) (float64, bool)
}

var (
	msgsMetric = metric{"msgs-per-request", "Messages per request", "messages per CS (mean)",
		"Mean number of messages per served critical-section request (every send counted, the return of a " +
			"lent token included)",
		func(r *results.Run) (float64, bool) { return r.MsgsPerRequest.Mean, r.MsgsPerRequest.Count > 0 }}
	syncMetric = metric{"sync-delay", "Synchronization delay", "synchronization delay (mean, δ)",
		"Mean synchronization delay, in δ (from an exit from the critical section while another request waits " +
			"to the next entry; one message takes 0.75δ on average at the default delay floor)",
		func(r *results.Run) (float64, bool) { return r.SyncDelayDelta.Mean, r.SyncDelayDelta.Count > 0 }}
)

// finitePositive reports whether x can be placed on a log axis.
func finitePositive(x float64) bool { return x > 0 && !math.IsInf(x, 1) }

// positive returns the values of xs that can be placed on a log axis.
func positive(xs []float64) []float64 {
	var out []float64
	for _, x := range xs {
		if finitePositive(x) {
			out = append(out, x)
		}
	}
	return out
}

// minMax returns the smallest and largest of xs, which are positive (+Inf
// and 0 for none).
func minMax(xs []float64) (lo, hi float64) {
	lo = math.Inf(1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// yAxis sets the y axis from 0, or logarithmic when the values span more
// than a factor of 10 (messages per request of O(N) and O(log N)
// algorithms side by side).
func yAxis(p *plot.Plot, ys []float64) string {
	lo, hi := minMax(ys)
	if lo > 0 && hi/lo > 10 {
		logAxis(&p.Y, lo, hi)
		return " (log scale)"
	}
	p.Y.Min = 0
	return ""
}

// againstN plots a metric against N, one line per algorithm, for one
// workload; nil if no run has a value.
func againstN(m metric, workload string, runs []*results.Run, format string) (*Figure, error) {
	byAlgo := map[string]plotter.XYs{}
	algoOf := map[string]string{}
	var algos []string
	var xs, ys []float64
	for _, r := range runs {
		y, ok := m.value(r)
		if !ok {
			continue
		}
		if _, ok := byAlgo[runLabel(r)]; !ok {
			algos = append(algos, runLabel(r))
			algoOf[runLabel(r)] = r.Algorithm
		}
		byAlgo[runLabel(r)] = append(byAlgo[runLabel(r)], plotter.XY{X: float64(r.Nodes), Y: y})
		xs, ys = append(xs, float64(r.Nodes)), append(ys, y)
	}
	if len(xs) == 0 {
		return nil, nil
	}
	p := newPlot(m.what+", workload "+workload, "N (nodes, log scale)", m.axis)
	log2Axis(&p.X, xs)
	logY := yAxis(p, ys)
	p.Y.Label.Text += logY
	data, err := drawLines(p, algos, algoOf, byAlgo, format)
	if err != nil {
		return nil, err
	}
	return &Figure{
		Name:  m.name + "-" + workload,
		Title: m.what + " against N (" + workload + ")",
		Caption: m.caption + ", against the number of nodes N on a log scale, one line per algorithm; failure-free runs, workload " +
			workload + "." + map[bool]string{true: " The y axis is logarithmic.", false: ""}[logY != ""],
		Data: data,
	}, nil
}

// drawLines draws one line per algorithm (its points sorted by x), in the
// order of algos, and renders the plot.
func drawLines(p *plot.Plot, algos []string, algoOf map[string]string, byAlgo map[string]plotter.XYs, format string) ([]byte, error) {
	st := styles{}
	for _, a := range algos {
		pts := byAlgo[a]
		sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
		style, dashes := st.next(algoOf[a])
		if err := addSeries(p, style, dashes, a, pts); err != nil {
			return nil, err
		}
	}
	return render(p, format)
}

// offeredLoad is a poisson run's offered load ρ = N × cs-time / think time:
// the critical-section time the nodes ask for per unit of time (ρ ≥ 1: the
// CS is requested faster than it can be served).
func offeredLoad(r *results.Run) float64 {
	return float64(r.Nodes) * r.CSTime / r.ThinkTime
}

// againstLoad plots messages per request against the offered load, one line
// per algorithm, for each N at which the poisson runs have at least two
// loads; nil if none has.
func againstLoad(runs []*results.Run, format string) ([]*Figure, error) {
	byN := map[int][]*results.Run{}
	var ns []int
	for _, r := range runs {
		if r.Workload != "poisson" || !finitePositive(offeredLoad(r)) || r.MsgsPerRequest.Count == 0 {
			// A load of 0 (cs-time 0) has no place on the log axis.
			continue
		}
		if _, ok := byN[r.Nodes]; !ok {
			ns = append(ns, r.Nodes)
		}
		byN[r.Nodes] = append(byN[r.Nodes], r)
	}
	sort.Ints(ns)
	var figs []*Figure
	for _, n := range ns {
		loads := map[float64]bool{}
		for _, r := range byN[n] {
			loads[offeredLoad(r)] = true
		}
		if len(loads) < 2 {
			continue
		}
		byAlgo := map[string]plotter.XYs{}
		algoOf := map[string]string{}
		var algos []string
		var xs, ys []float64
		for _, r := range byN[n] {
			if _, ok := byAlgo[runLabel(r)]; !ok {
				algos = append(algos, runLabel(r))
				algoOf[runLabel(r)] = r.Algorithm
			}
			x, y := offeredLoad(r), r.MsgsPerRequest.Mean
			byAlgo[runLabel(r)] = append(byAlgo[runLabel(r)], plotter.XY{X: x, Y: y})
			xs, ys = append(xs, x), append(ys, y)
		}
		lo, hi := minMax(xs)
		p := newPlot(fmt.Sprintf("Messages per request against load, N = %d", n), "offered load ρ = N·cs-time / think time (log scale)", "messages per CS (mean)")
		logAxis(&p.X, lo, hi)
		p.Y.Label.Text += yAxis(p, ys)
		data, err := drawLines(p, algos, algoOf, byAlgo, format)
		if err != nil {
			return nil, err
		}
		figs = append(figs, &Figure{
			Name:  fmt.Sprintf("msgs-against-load-%d", n),
			Title: fmt.Sprintf("Messages per request against load (N = %d)", n),
			Caption: fmt.Sprintf("Mean messages per served request of poisson runs at N = %d against the offered load "+
				"ρ = N × cs-time / mean think time, on a log scale (ρ well below 1: requests rarely overlap, as in the "+
				"sequential workload; ρ above 1: the nodes ask for the CS faster than it can be served, towards saturation), "+
				"one line per algorithm.", n),
			Data: data,
		})
	}
	return figs, nil
}

// series is a set of crash runs that differ only in N.
type series struct {
	label string
	runs  []*results.Run // sorted by N, one per N
}

var crashCount = regexp.MustCompile(`^\d+ crashes`)

// seriesKey describes a crash run's conditions apart from N and the number
// of crashes: what makes points comparable along N.
func seriesKey(r *results.Run) string {
	ratio := r.ThinkTime / float64(r.Nodes)
	plan := crashCount.ReplaceAllString(r.FaultPlan, "crashes")
	return fmt.Sprintf("%s, %s, %s, think %s·N δ; %s", r.Algorithm, RuntimeOf(r), r.Workload, strconv.FormatFloat(ratio, 'f', -1, 64), plan)
}

// shortLabel is a legend entry for a series.
func shortLabel(r *results.Run) string {
	l := fmt.Sprintf("think %s·N δ", strconv.FormatFloat(r.ThinkTime/float64(r.Nodes), 'f', -1, 64))
	if g, ok := crashGap(r); ok {
		l += fmt.Sprintf(", gap %gδ", g)
	}
	if m := downRe.FindStringSubmatch(r.FaultPlan); m != nil {
		l += ", down " + m[1] + "δ"
	}
	return l
}

var (
	gapRe  = regexp.MustCompile(`(?:mean |every )([0-9.e+]+)δ`)
	downRe = regexp.MustCompile(`down (?:exp\(mean )?([0-9.e+]+)δ`)
)

// crashGap returns the mean gap between crashes, in δ, from the fault plan.
func crashGap(r *results.Run) (float64, bool) {
	m := gapRe.FindStringSubmatch(r.FaultPlan)
	if m == nil {
		return 0, false
	}
	g, err := strconv.ParseFloat(m[1], 64)
	return g, err == nil && finitePositive(g) // a gap goes on a log axis
}

// crashSeries groups crash runs into series along N.
func crashSeries(runs []*results.Run) []series {
	idx := map[string]int{}
	var out []series
	for _, r := range runs {
		k := seriesKey(r)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, series{label: shortLabel(r)})
		}
		dup := false
		for _, q := range out[i].runs {
			dup = dup || q.Nodes == r.Nodes
		}
		if !dup { // the same conditions and N twice: keep the first
			out[i].runs = append(out[i].runs, r)
		}
	}
	for _, s := range out {
		sort.Slice(s.runs, func(a, b int) bool { return s.runs[a].Nodes < s.runs[b].Nodes })
	}
	return out
}

// alongN keeps the series with at least two values of N, or all series if
// none has two.
func alongN(all []series) []series {
	var out []series
	for _, s := range all {
		if len(s.runs) >= 2 {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// errPoints are points with asymmetric vertical error bars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// overheadPerFailure plots the classified overhead per failure against N,
// with 95% confidence intervals, and the paper's iPSC/2 figures.
func overheadPerFailure(ss []series, format string) (*Figure, error) {
	p := newPlot("Overhead messages per failure (classified)", "N (nodes, log scale)", "overhead messages per failure (mean, 95% CI)")
	var xs, means []float64
	ymax := 0.0
	for _, s := range ss {
		for _, r := range s.runs {
			means = append(means, r.OverheadPerFailure.Mean)
		}
	}
	// Algorithms whose costs differ by more than 10× share a log axis; a
	// bar's lower end is then kept above half its mean.
	logY := false
	lo, hi := minMax(positive(means))
	if hi/lo > 10 {
		logY = true
	}
	// A mean of 0 (no failure-cause message) has no place on a log axis:
	// it is drawn at the axis' floor, which the caption names.
	floor := math.Min(lo/2, 4)
	st := styles{}
	for _, s := range ss {
		var e errPoints
		for _, r := range s.runs {
			est := r.OverheadPerFailure
			lo, hi := 0.0, 0.0
			if est.CI95Low != nil {
				lo, hi = est.Mean-*est.CI95Low, *est.CI95High-est.Mean
			}
			y := est.Mean
			if logY {
				lo = math.Min(lo, est.Mean/2)
				y = math.Max(y, floor)
			}
			e.XYs = append(e.XYs, plotter.XY{X: float64(r.Nodes), Y: y})
			e.YErrors = append(e.YErrors, struct{ Low, High float64 }{lo, hi})
			xs = append(xs, float64(r.Nodes))
			ymax = math.Max(ymax, est.Mean+hi)
		}
		label := runLabel(s.runs[0]) + ", " + s.label
		style, dashes := st.next(s.runs[0].Algorithm)
		if err := addSeries(p, style, dashes, label, e.XYs); err != nil {
			return nil, err
		}
		bars, err := plotter.NewYErrorBars(e)
		if err != nil {
			return nil, fmt.Errorf("plotting error bars: %w", err)
		}
		bars.Color = style.Color
		bars.Width = vg.Points(1)
		bars.CapWidth = vg.Points(6)
		p.Add(errorBars{bars})
	}
	var paper plotter.XYs
	for _, f := range results.IPSC2 {
		paper = append(paper, plotter.XY{X: float64(f.Nodes), Y: f.PerFailure})
		xs = append(xs, float64(f.Nodes))
	}
	sc, err := plotter.NewScatter(paper)
	if err != nil {
		return nil, fmt.Errorf("plotting the paper's figures: %w", err)
	}
	sc.Shape = draw.PyramidGlyph{}
	sc.Radius = vg.Points(6)
	sc.Color = color.RGBA{R: 200, A: 255}
	p.Add(sc)
	p.Legend.Add("paper, iPSC/2 (N=32: 8, N=64: 9.75)", sc)
	// The labels of the two figures point away from each other, the first
	// to the left of its triangle, the second to the right, so that they
	// never overlap, however close N = 32 and 64 are on the axis.
	for k, f := range results.IPSC2 {
		labels, err := plotter.NewLabels(plotter.XYLabels{XYs: paper[k : k+1], Labels: []string{"paper " + strconv.FormatFloat(f.PerFailure, 'f', -1, 64)}})
		if err != nil {
			return nil, fmt.Errorf("labelling the paper's figures: %w", err)
		}
		labels.Offset = vg.Point{X: vg.Points(8), Y: -vg.Points(3)}
		if k%2 == 0 {
			labels.Offset.X = -vg.Points(8)
			labels.TextStyle[0].XAlign = draw.XRight
		}
		labels.TextStyle[0].Color = sc.Color
		p.Add(labels)
	}
	log2Axis(&p.X, xs)
	caption := ""
	if logY {
		logAxis(&p.Y, floor, ymax)
		// A short label: gonum misplaces the room for a long one on a log axis.
		p.Y.Label.Text = "msgs/failure (log)"
		caption = " The y axis is logarithmic (bars: 95% CI, cut at half their mean)."
		if len(positive(means)) < len(means) {
			caption += fmt.Sprintf(" A mean of 0 is drawn at the axis' floor, %.2g.", floor)
		}
	} else {
		p.Y.Min = 0
		p.Y.Max = ymax * 1.15
	}
	data, err := render(p, format)
	if err != nil {
		return nil, err
	}
	return &Figure{
		Name:  "overhead-per-failure",
		Title: "Overhead per failure against N",
		Caption: "Classified overhead: messages whose cause is a failure (enquiries, tests, answers, anomalies, re-issued " +
			"requests, regeneration), attributed to the latest crash, averaged over the failures; bars are 95% confidence " +
			"intervals over the failures. Red triangles: the open-cube paper's iPSC/2 measurements (8 at N = 32, 9.75 at N = 64). " +
			"One line per algorithm and set of conditions (think time, crash gap, downtime)." + caption,
		Data: data,
	}, nil
}

// sweep plots the overhead per failure against one parameter (think time or
// crash gap) at fixed N, for the runs that differ only in that parameter.
type sweepParam struct {
	name, axis, file string
	value            func(r *results.Run) (float64, bool)
	// rest describes a run without the parameter, to group comparable runs.
	rest func(r *results.Run) string
}

var sweepParams = []sweepParam{
	{"mean think time", "mean think time between a node's requests (δ, log scale)", "overhead-vs-think",
		func(r *results.Run) (float64, bool) { return r.ThinkTime, r.ThinkTime > 0 },
		func(r *results.Run) string {
			return fmt.Sprintf("%s %s %d %s", r.Algorithm, RuntimeOf(r), r.Nodes, r.FaultPlan)
		}},
	{"mean gap between crashes", "mean gap between crashes (δ, log scale)", "overhead-vs-crash-gap",
		crashGap,
		func(r *results.Run) string {
			return fmt.Sprintf("%s %s %d %g %s", r.Algorithm, RuntimeOf(r), r.Nodes, r.ThinkTime, gapRe.ReplaceAllString(crashCount.ReplaceAllString(r.FaultPlan, ""), ""))
		}},
}

func sweepFigure(sp sweepParam, runs []*results.Run, format string) (*Figure, error) {
	groups := map[string][]*results.Run{}
	var order []string
	for _, r := range runs {
		if _, ok := sp.value(r); !ok {
			continue
		}
		k := sp.rest(r)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	p := newPlot("Overhead per failure against the "+sp.name, sp.axis, "overhead messages per failure (mean, 95% CI)")
	lo, hi := math.Inf(1), math.Inf(-1)
	ylo, yhi := math.Inf(1), math.Inf(-1)
	var means []float64
	n := 0
	st := styles{}
	for _, k := range order {
		g := groups[k]
		distinct := map[float64]bool{}
		for _, r := range g {
			v, _ := sp.value(r)
			distinct[v] = true
		}
		if len(distinct) < 2 {
			continue
		}
		sort.SliceStable(g, func(a, b int) bool { va, _ := sp.value(g[a]); vb, _ := sp.value(g[b]); return va < vb })
		var e errPoints
		for k, r := range g {
			v, _ := sp.value(r)
			if k > 0 {
				if prev, _ := sp.value(g[k-1]); prev == v {
					continue // the same run saved twice (sweeps share a centre point): keep the first
				}
			}
			est := r.OverheadPerFailure
			l, h := 0.0, 0.0
			if est.CI95Low != nil {
				l, h = est.Mean-math.Max(*est.CI95Low, est.Mean/100), *est.CI95High-est.Mean
			}
			e.XYs = append(e.XYs, plotter.XY{X: v, Y: est.Mean})
			e.YErrors = append(e.YErrors, struct{ Low, High float64 }{l, h})
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			ylo, yhi = math.Min(ylo, est.Mean-l), math.Max(yhi, est.Mean+h)
			means = append(means, est.Mean)
		}
		label := fmt.Sprintf("%s, N=%d", runLabel(g[0]), g[0].Nodes)
		if sp.file == "overhead-vs-think" {
			if gap, ok := crashGap(g[0]); ok {
				label += fmt.Sprintf(", crash gap %gδ", gap)
			}
		} else {
			label += fmt.Sprintf(", think %gδ", g[0].ThinkTime)
		}
		style, dashes := st.next(g[0].Algorithm)
		if err := addSeries(p, style, dashes, label, e.XYs); err != nil {
			return nil, err
		}
		bars, err := plotter.NewYErrorBars(e)
		if err != nil {
			return nil, fmt.Errorf("plotting error bars: %w", err)
		}
		bars.Color = style.Color
		bars.CapWidth = vg.Points(6)
		p.Add(errorBars{bars})
		n++
	}
	if n == 0 {
		return nil, nil
	}
	logAxis(&p.X, lo, hi)
	// A log axis when the means span more than 10× (and every bar's lower
	// end, kept above 1% of its mean, can go on it).
	if mlo, mhi := minMax(means); mlo > 0 && mhi/mlo > 10 && ylo > 0 {
		logAxis(&p.Y, ylo, yhi)
		// A short label: gonum misplaces the room for a long one on a log axis.
		p.Y.Label.Text = "msgs/failure (log)"
		p.Title.Text = "Overhead messages per failure (log scale) against the " + sp.name
	} else {
		p.Y.Min = 0
		p.Y.Max = yhi * 1.1
	}
	data, err := render(p, format)
	if err != nil {
		return nil, err
	}
	return &Figure{
		Name:  sp.file,
		Title: "Overhead per failure against the " + sp.name,
		Caption: "Classified overhead per failure (mean, 95% confidence interval over the failures) at fixed N, " +
			"as the " + sp.name + " varies and everything else stays the same.",
		Data: data,
	}, nil
}

// distCut is the largest per-failure overhead the histogram shows in bins
// of one message; larger values are gathered in one overflow bar.
const distCut = 64

// distribution plots the histogram of one run's per-failure overhead.
func distribution(r *results.Run, format string) (*Figure, error) {
	xs := r.OverheadSamples
	mx := 0.0
	for _, x := range xs {
		mx = math.Max(mx, x)
	}
	cut := math.Min(mx, distCut)
	bins := make([]plotter.HistogramBin, int(cut)+1)
	for k := range bins {
		bins[k].Min, bins[k].Max = float64(k)-0.5, float64(k)+0.5
	}
	over := plotter.HistogramBin{Min: cut + 1.5, Max: cut + 4.5}
	for _, x := range xs {
		if x > cut {
			over.Weight++
			continue
		}
		if x < 0 || math.IsNaN(x) {
			continue // no count of messages (Validate refuses it)
		}
		bins[int(math.Round(x))].Weight++
	}
	h := &plotter.Histogram{Bins: bins, Width: 1, FillColor: palette.Algorithm(r.Algorithm).Color, LineStyle: plotter.DefaultLineStyle}
	h.LineStyle.Width = vg.Points(0.3)
	h.LineStyle.Color = color.White
	p := newPlot(fmt.Sprintf("Overhead per failure, distribution (%s, N=%d, %d failures)", r.Algorithm, r.Nodes, len(xs)),
		"overhead messages caused by one failure", "number of failures")
	p.Add(h)
	p.Legend.Add(runLabel(r)+": failures with this overhead", h)
	ymax := over.Weight
	for _, b := range bins {
		ymax = math.Max(ymax, b.Weight)
	}
	if over.Weight > 0 {
		ho := &plotter.Histogram{Bins: []plotter.HistogramBin{over}, Width: 3, FillColor: color.Gray{Y: 110}, LineStyle: h.LineStyle}
		p.Add(ho)
		p.Legend.Add(fmt.Sprintf("more than %g (up to %g)", cut, mx), ho)
	}
	est := r.OverheadPerFailure
	mean, err := vline(est.Mean, ymax*1.05, color.Black)
	if err != nil {
		return nil, err
	}
	// The x axis ends after the last bin: a line beyond it (a mean pulled
	// up by a few huge failures) is named in the legend, not drawn, so it
	// cannot crush the bins into a corner.
	xmax := cut + 0.5
	if over.Weight > 0 {
		xmax = over.Max
	}
	xmax += 0.5
	addLine := func(l *plotter.Line, x float64, label string) {
		if x > xmax {
			label += fmt.Sprintf(" (beyond the axis, which ends at %g)", math.Floor(xmax))
		} else {
			p.Add(l)
		}
		p.Legend.Add(label, l)
	}
	addLine(mean, est.Mean, fmt.Sprintf("mean %.2f", est.Mean))
	if r.Paper != nil {
		pl, err := vline(r.Paper.PerFailure, ymax*1.05, color.RGBA{R: 200, A: 255})
		if err != nil {
			return nil, err
		}
		pl.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		addLine(pl, r.Paper.PerFailure, fmt.Sprintf("paper's mean (iPSC/2) %g", r.Paper.PerFailure))
	}
	p.Y.Min = 0
	p.Y.Max = ymax * 1.1
	p.X.Min, p.X.Max = -1, xmax
	var ticks []plot.Tick
	for v := 0.0; v <= cut; v += 8 {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	if over.Weight > 0 {
		ticks = append(ticks, plot.Tick{Value: cut + 3, Label: fmt.Sprintf(">%g", cut)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Tick.Marker = countTicks{}
	data, err := render(p, format)
	if err != nil {
		return nil, err
	}
	return &Figure{
		Name:  fmt.Sprintf("overhead-distribution-N%d", r.Nodes),
		Title: fmt.Sprintf("Distribution of the overhead per failure (N = %d)", r.Nodes),
		Caption: fmt.Sprintf("How many failure-cause messages each of the %d failures of the %s run at N = %d caused, "+
			"in bins of one message; the grey bar gathers the failures above %g. Most failures cost a few tests and answers "+
			"(a search phase d costs 2^(d−1) tests, hence the peaks at powers of two); the long tail is the failures that hit "+
			"the token and regenerate it (an announcement to all N − 1 other nodes) or start concurrent searches.", len(xs), r.Algorithm, r.Nodes, cut),
		Data: data,
	}, nil
}

// countTicks labels a linear axis at multiples of 1, 2 or 5 × a power of
// ten, with whole numbers.
type countTicks struct{}

// Ticks returns at most about six labelled ticks between lo and hi (none
// if they are not finite: with a step of at most 10000 from 0 to 1e308,
// the loop never ended).
func (countTicks) Ticks(lo, hi float64) []plot.Tick {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || hi < lo {
		return nil
	}
	step := 1.0
	for (hi-lo)/step > 6 {
		switch d := step / math.Pow(10, math.Floor(math.Log10(step))); {
		case d < 1.5:
			step *= 2 // 1 → 2
		case d < 3:
			step *= 2.5 // 2 → 5
		default:
			step *= 2 // 5 → 10
		}
	}
	var t []plot.Tick
	for k, v := 0, math.Ceil(lo/step)*step; v <= hi && k < 16; k, v = k+1, v+step {
		t = append(t, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	return t
}

func vline(x, y float64, c color.Color) (*plotter.Line, error) {
	l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: y}})
	if err != nil {
		return nil, fmt.Errorf("plotting a marker line: %w", err)
	}
	l.Color = c
	l.Width = vg.Points(1.5)
	return l, nil
}

// recovery plots, per N, the distribution of the time from a crash to the
// next critical-section entry, as box plots (or the mean, for runs saved
// without samples).
func recovery(s series, format string) (*Figure, error) {
	p := newPlot("Time to recovery after a crash ("+runLabel(s.runs[0])+")", "N (nodes)", "time to the next CS entry (δ)")
	var names []string
	for k, r := range s.runs {
		names = append(names, strconv.Itoa(r.Nodes))
		if len(r.RecoverySamples) > 0 {
			b, err := plotter.NewBoxPlot(vg.Points(30), float64(k), plotter.Values(r.RecoverySamples))
			if err != nil {
				return nil, fmt.Errorf("plotting recovery at N=%d: %w", r.Nodes, err)
			}
			b.FillColor = color.RGBA{R: 180, G: 200, B: 240, A: 255}
			p.Add(b)
			continue
		}
		sc, err := plotter.NewScatter(plotter.XYs{{X: float64(k), Y: r.RecoveryDelta.Mean}})
		if err != nil {
			return nil, fmt.Errorf("plotting recovery at N=%d: %w", r.Nodes, err)
		}
		p.Add(sc)
	}
	var means plotter.XYs
	for k, r := range s.runs {
		means = append(means, plotter.XY{X: float64(k), Y: r.RecoveryDelta.Mean})
	}
	sc, err := plotter.NewScatter(means)
	if err != nil {
		return nil, fmt.Errorf("plotting recovery means: %w", err)
	}
	sc.Shape = draw.CrossGlyph{}
	sc.Radius = vg.Points(4)
	sc.Color = color.RGBA{R: 200, A: 255}
	p.Add(sc)
	p.Legend.Add(runLabel(s.runs[0])+": mean (box: quartiles, median)", sc)
	p.NominalX(names...)
	p.Y.Min = 0
	top := 0.0
	for _, r := range s.runs {
		for _, x := range r.RecoverySamples {
			top = math.Max(top, x)
		}
		top = math.Max(top, r.RecoveryDelta.Mean)
	}
	p.Y.Max = top * 1.15
	data, err := render(p, format)
	if err != nil {
		return nil, err
	}
	return &Figure{
		Name:  "time-to-recovery",
		Title: "Time to recovery against N",
		Caption: "Per crash, the time until the next critical-section entry anywhere, in δ (" + s.label + "). Boxes: " +
			"quartiles and median; whiskers: 1.5 × the interquartile range; circles: crashes beyond; red crosses: the mean. " +
			"The time includes waiting for the next request when the load is light.",
		Data: data,
	}, nil
}

// Runtimes of runs, as the report names them: in a table's runtime column
// and after the algorithm in a legend.
const (
	RuntimeSim        = "simulator"
	RuntimeMPIVirtual = "MPI virtual"
	RuntimeMPIWall    = "MPI wall"
)

// RuntimeOf names where r ran: the simulator, MPI in virtual time (the
// simulator's run, replayed on ranks: the same record) or MPI in
// wall-clock time (real delays: a different run).
func RuntimeOf(r *results.Run) string {
	switch {
	case r.Runtime != "mpi":
		return RuntimeSim
	case r.Clock == "virtual":
		return RuntimeMPIVirtual
	}
	return RuntimeMPIWall
}

// runLabel names r's series in a legend: the algorithm, and the runtime
// when it is not the simulator ("opencube (MPI wall)").
func runLabel(r *results.Run) string {
	if rt := RuntimeOf(r); rt != RuntimeSim {
		return r.Algorithm + " (" + rt + ")"
	}
	return r.Algorithm
}
