package results

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Column is one column of a readable table.
type Column struct {
	Head string
	Cell func(r *Run) string
}

// FailureFreeColumns are the columns of a failure-free run. The
// synchronization delay and the response time are in δ, the bound on a
// message's delay (a delay is drawn in [min-delay·δ, δ], so one message
// takes δ/2 on average by default).
var FailureFreeColumns = []Column{
	{"algorithm", func(r *Run) string { return r.Algorithm }},
	{"N", func(r *Run) string { return fmt.Sprint(r.Nodes) }},
	{"workload", func(r *Run) string { return r.Workload }},
	{"served", func(r *Run) string { return fmt.Sprintf("%d/%d", r.RequestsServed, r.RequestsIssued) }},
	{"messages (total)", func(r *Run) string { return fmt.Sprint(r.MessagesTotal) }},
	{"msg/CS mean", func(r *Run) string { return fmt.Sprintf("%.3f", r.MsgsPerRequest.Mean) }},
	{"p99", func(r *Run) string { return perRequest(r, r.MsgsPerRequest.P99) }},
	{"max", func(r *Run) string { return perRequest(r, r.MsgsPerRequest.Max) }},
	{"stated (msg)", statedFigure},
	{"stated formula (msg = formula, source)", func(r *Run) string { return stated(r) }},
	{"mean/stated", statedRatio},
	{"sync mean (δ)", func(r *Run) string { return summaryMean(r.SyncDelayDelta) }},
	{"sync p99 (δ)", func(r *Run) string { return summaryP99(r.SyncDelayDelta) }},
	{"response mean (δ)", func(r *Run) string { return summaryMean(r.ResponseDelta) }},
	{"response p99 (δ)", func(r *Run) string { return summaryP99(r.ResponseDelta) }},
	{"detection/req", func(r *Run) string { return ftOnly(r, fmt.Sprintf("%.3f", r.DetectionPerRequest)) }},
	{"false susp.", func(r *Run) string { return ftOnly(r, fmt.Sprint(r.FalseSuspicions)) }},
	{"violations", func(r *Run) string { return fmt.Sprint(r.SafetyViolations + r.LivenessViolations) }},
}

// perRequest formats a quantile of the messages per request, "-" when the
// run has only their mean (k-exclusion: messages are not attributed to
// requests, only counted per entry).
func perRequest(r *Run, x float64) string {
	if r.MsgsPerRequest.Mean > 0 && r.MsgsPerRequest.Max == 0 {
		return "-"
	}
	return num(x)
}

// statedRatio is the measured mean messages per CS over the stated cost (its
// upper end for a range), "-" without a stated cost or when the stated
// cost is an order of growth or a derived figure (Run.StatedCostKind): only
// a paper's formula is divided into a measurement.
func statedRatio(r *Run) string {
	if !statedComparable(r) {
		return "-"
	}
	return fmt.Sprintf("%.2f", r.MsgsPerRequest.Mean/r.StatedCostHigh)
}

// statedComparable reports whether r's stated cost is a paper's formula
// with a figure (kind exact or range; a record without a kind predates
// kinds and is taken as one).
func statedComparable(r *Run) bool {
	switch r.StatedCostKind {
	case "", "exact", "range", "bound":
		return r.StatedCost != "" && r.StatedCostHigh > 0
	}
	return false
}

// summaryMean and summaryP99 format a summary's mean and 99th percentile
// with two decimals, "-" for an empty sample.
func summaryMean(s Summary) string {
	if s.Count == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", s.Mean)
}

func summaryP99(s Summary) string {
	if s.Count == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", s.P99)
}

// stated is the message cost per request that the algorithm's paper or the
// survey states, at the run's N, with its formula and source: "30 =
// 2(N−1), survey T2", "0…16 = N (0 with the idle token), survey T1, §4"
// for a range, "avg O(log N), survey T1 (order)" for an order of growth,
// "0…3 = request, token, return (derived: the proxy rule)" for the
// project's own figure, "≤30 = at most 2(N−1), survey §4, T3" for an upper
// bound alone; "-"
// if none. A record without a source (older) prints the figure alone.
func stated(r *Run) string {
	if r.StatedCost == "" {
		return "-"
	}
	fig := num(r.StatedCostHigh)
	if r.StatedCostLow != r.StatedCostHigh {
		fig = num(r.StatedCostLow) + "…" + num(r.StatedCostHigh)
	}
	switch {
	case r.StatedCostKind == "bound" && r.StatedCostSource != "":
		return "≤" + num(r.StatedCostHigh) + " = " + r.StatedCost + ", " + r.StatedCostSource
	case r.StatedCostKind == "bound":
		return "≤" + num(r.StatedCostHigh)
	case r.StatedCostSource == "":
		return fig
	case r.StatedCostKind == "order":
		return r.StatedCost + ", " + r.StatedCostSource + " (order)"
	case r.StatedCostKind == "derived":
		return fig + " = " + r.StatedCost + " (derived: " + r.StatedCostSource + ")"
	}
	return fig + " = " + r.StatedCost + ", " + r.StatedCostSource
}

// statedFigure is stated's figure alone, for a narrow table: "30",
// "0…16", "≤30" for an upper bound, "avg O(log N)" for an order of growth, "0…3*" for the project's
// derived figure (the header lines say so); "-" if none.
func statedFigure(r *Run) string {
	if r.StatedCost == "" {
		return "-"
	}
	fig := num(r.StatedCostHigh)
	if r.StatedCostLow != r.StatedCostHigh {
		fig = num(r.StatedCostLow) + "…" + num(r.StatedCostHigh)
	}
	switch r.StatedCostKind {
	case "order":
		return r.StatedCost
	case "derived":
		return fig + "*"
	case "bound":
		return "≤" + num(r.StatedCostHigh)
	}
	return fig
}

// ftOnly is s for a run with the failure protocol on, "-" without it.
func ftOnly(r *Run, s string) string {
	if !r.FaultTolerant {
		return "-"
	}
	return s
}

// CrashColumns are the columns of a run with crashes.
var CrashColumns = []Column{
	{"algorithm", func(r *Run) string { return r.Algorithm }},
	{"N", func(r *Run) string { return fmt.Sprint(r.Nodes) }},
	{"failures", func(r *Run) string { return fmt.Sprint(r.Failures) }},
	{"overhead/failure (msg)", func(r *Run) string { return estimate(r.OverheadPerFailure) }},
	{"paper (msg)", func(r *Run) string {
		if r.Paper == nil {
			return "-"
		}
		return num(r.Paper.PerFailure)
	}},
	{"ratio", func(r *Run) string {
		if r.Paper == nil {
			return "-"
		}
		return fmt.Sprintf("%.2f", r.Paper.Ratio)
	}},
	{"differential (msg)", func(r *Run) string { return estimate(r.OverheadDifferential) }},
	{"served", func(r *Run) string { return fmt.Sprintf("%d/%d", r.RequestsServed, r.RequestsIssued) }},
	{"msg/CS", func(r *Run) string { return fmt.Sprintf("%.3f", r.MsgsPerRequest.Mean) }},
	{"regenerated", func(r *Run) string { return fmt.Sprint(r.TokensRegenerated) }},
	{"stale discarded", func(r *Run) string { return fmt.Sprint(r.StaleTokensDiscarded) }},
	{"searches", func(r *Run) string { return fmt.Sprint(r.SearchesStarted) }},
	{"false susp.", func(r *Run) string { return fmt.Sprint(r.FalseSuspicions) }},
	{"detection/req", func(r *Run) string { return fmt.Sprintf("%.3f", r.DetectionPerRequest) }},
	{"recovery mean (δ)", func(r *Run) string { return fmt.Sprintf("%.1f", r.RecoveryDelta.Mean) }},
	{"lost", func(r *Run) string { return fmt.Sprint(r.RequestsLost) }},
	{"violations", func(r *Run) string { return fmt.Sprint(r.SafetyViolations + r.LivenessViolations) }},
}

func estimate(e Estimate) string {
	switch {
	case e.N == 0:
		return "-"
	case e.CI95Low == nil:
		return fmt.Sprintf("%.2f", e.Mean)
	}
	return fmt.Sprintf("%.2f ± %.2f", e.Mean, (*e.CI95High-*e.CI95Low)/2)
}

// Shown returns the columns of cols that say something about runs: a
// column that is "-" in every run (the failure protocol's columns of runs
// without it, stated costs of algorithms that state none) is left out.
func Shown(cols []Column, runs []*Run) []Column {
	var out []Column
	for _, c := range cols {
		for _, r := range runs {
			if c.Cell(r) != "-" {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// Number formats x for a message in its shortest form, with a plain
// exponent: 1e6, not 1e+06; 2.5e-5, not 2.5e-05.
func Number(x float64) string {
	s := strconv.FormatFloat(x, 'g', -1, 64)
	return strings.NewReplacer("e+0", "e", "e+", "e", "e-0", "e-").Replace(s)
}

// num formats x with at most two decimals and no trailing zeros.
func num(x float64) string {
	return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64)
}

// WriteTable writes header lines (each prefixed "# ") and then the runs as an
// aligned table, OSU-benchmark style, with the columns of cols that say
// something about runs (Shown).
func WriteTable(w io.Writer, header []string, cols []Column, runs []*Run) error {
	return writeTable(w, header, Shown(cols, runs), runs)
}

// writeTable writes the table of WriteTable with every column of cols.
func writeTable(w io.Writer, header []string, cols []Column, runs []*Run) error {
	var b strings.Builder
	for _, h := range header {
		b.WriteString("# ")
		b.WriteString(h)
		b.WriteByte('\n')
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	for k, c := range cols {
		if k > 0 {
			tw.Write([]byte("\t"))
		}
		tw.Write([]byte(c.Head))
	}
	tw.Write([]byte("\t\n"))
	for _, r := range runs {
		for k, c := range cols {
			if k > 0 {
				tw.Write([]byte("\t"))
			}
			tw.Write([]byte(c.Cell(r)))
		}
		tw.Write([]byte("\t\n"))
	}
	tw.Flush()
	for _, r := range runs {
		if r.FaultModelBroken != "" {
			fmt.Fprintf(&b, "# outside %s's fault model (%s), N=%d: %s\n", r.Algorithm, r.FaultModel, r.Nodes, TimesInDelta(r.FaultModelBroken, r.DeltaSeconds))
		}
		if r.Violation != "" {
			fmt.Fprintf(&b, "# VIOLATION (%s, N=%d): %s\n", r.Algorithm, r.Nodes, TimesInDelta(r.Violation, r.DeltaSeconds))
		}
	}
	for _, r := range runs {
		if r.Runtime != "mpi" {
			continue
		}
		if r.Clock == "virtual" {
			if r.IdenticalToSimulator > 0 {
				fmt.Fprintf(&b, "# identical to the simulator (%s, N=%d): %d %s replayed on rank 0, records equal field for field\n",
					r.Algorithm, r.Nodes, r.IdenticalToSimulator, plural(r.IdenticalToSimulator, "run", "runs"))
			}
			continue
		}
		if r.DelaysOverDelta > 0 {
			deliveries := "deliveries"
			if r.DelaysOverDelta == 1 {
				deliveries = "delivery"
			}
			fmt.Fprintf(&b, "# δ BROKEN (%s, N=%d): %d %s later than δ (the latest %.2fδ): %s\n",
				r.Algorithm, r.Nodes, r.DelaysOverDelta, deliveries, r.MaxDelayDelta, deltaStake(r))
		} else {
			fmt.Fprintf(&b, "# δ held (%s, N=%d): no delivery later than δ (the latest %.2fδ)\n", r.Algorithm, r.Nodes, r.MaxDelayDelta)
		}
		if p := r.Parity; p != nil {
			fmt.Fprintf(&b, "# parity (%s, N=%d): overhead/failure %.2f on MPI (%d failures), %.2f in the simulator (same seeds, %d failures): Mann–Whitney p = %.3g\n",
				r.Algorithm, r.Nodes, p.MPIMean, p.MPISamples, p.SimMean, p.SimSamples, p.PValue)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// deltaStake says what a delivery later than δ puts at stake in r: the
// safety of a failure protocol, which suspects a node after a time in δ;
// nothing but messages for the other algorithms (mutual exclusion without
// a failure protocol, k-exclusion, self-stabilizing kofl, whose Root
// timeout in δ makes a duplicate round it absorbs when it fires early).
func deltaStake(r *Run) string {
	if r.FaultTolerant {
		return "the failure protocol's safety rests on δ; rerun with a larger --delta"
	}
	return "no failure protocol runs, so safety does not rest on δ (a timer in δ that fires early costs messages only): the verdict describes the network"
}

// simTime is a time in a record's text, "t=1.86304s": virtual time in
// seconds, as the simulator's messages state it.
var simTime = regexp.MustCompile(`\bt=([0-9]+(?:\.[0-9]*)?(?:e[-+]?[0-9]+)?)s\b`)

// simSpan is a span of virtual time in a record's text, as a run that
// ends at its budget states it: "a virtual time of 12.5s", "25s of
// virtual time".
var simSpan = regexp.MustCompile(`\b(a virtual time of )([0-9]+(?:\.[0-9]*)?(?:e[-+]?[0-9]+)?)s\b|\b([0-9]+(?:\.[0-9]*)?(?:e[-+]?[0-9]+)?)s( of virtual time)\b`)

// TimesInDelta rewrites the virtual times of a record's text (a
// violation, a fault model broken, a run stopped at its budget), "t=…s"
// and the spans "a virtual time of …s" and "…s of virtual time", in δ,
// the table's unit, with the seconds beside: "t=1.86304s" at δ = 1 ms is
// "t=1863.04δ (1.86304s)", "25s of virtual time" is "25000δ (25s) of
// virtual time". The record keeps its text as the run wrote it; with δ
// unknown (0) the text is returned as it is.
func TimesInDelta(s string, delta float64) string {
	if delta <= 0 {
		return s
	}
	inDelta := func(num string) (string, bool) {
		sec, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return "", false
		}
		return fmt.Sprintf("%.6gδ (%ss)", sec/delta, num), true
	}
	s = simTime.ReplaceAllStringFunc(s, func(m string) string {
		if d, ok := inDelta(simTime.FindStringSubmatch(m)[1]); ok {
			return "t=" + d
		}
		return m
	})
	return simSpan.ReplaceAllStringFunc(s, func(m string) string {
		g := simSpan.FindStringSubmatch(m)
		if g[2] != "" {
			if d, ok := inDelta(g[2]); ok {
				return g[1] + d
			}
			return m
		}
		if d, ok := inDelta(g[3]); ok {
			return d + g[4]
		}
		return m
	})
}

// plural returns one if n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
