package results

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// Width is the most runes a line of the default table takes: the table
// reads in a 100-column terminal without wrapping.
const Width = 100

// The default tables' columns, most important first: the default table
// shows the first ones that fit in Width, in the order of the table's
// columns, and leaves the others out (--wide shows every column). What
// comes first is what the table is for: the algorithm and N, the measured
// cost beside what its paper states, and whether the run was correct.
var (
	// FailureFreeDefault: messages per request beside the stated cost,
	// then the two delays, then the tails of the messages per request.
	FailureFreeDefault = []string{"algorithm", "N", "msg/cs-mean", "stated", "mean/stated", "violations",
		"sync-mean", "response-mean", "max", "p99", "false-susp", "detection/req", "served", "messages", "stated-formula"}
	// CrashDefault: the overhead per failure with its interval beside the
	// paper's figure, the differential overhead that checks it, the
	// failure-free cost per request, then recovery and losses.
	CrashDefault = []string{"algorithm", "N", "failures", "overhead/failure", "paper", "differential", "msg/cs",
		"violations", "ratio", "lost", "recovery-mean", "regenerated", "searches", "false-susp", "detection/req", "stale-discarded", "served"}
	// StabilizationDefault: the stabilization time in traversals (the
	// paper's unit) beside the paper's bound and the runs over it; then,
	// as further measures, in asynchronous rounds beside 5n read as
	// rounds, and in δ; then the cost.
	StabilizationDefault = []string{"algorithm", "N", "ell", "k", "runs", "traversals-mean", "max", "bound", "over-bound",
		"async-rounds-max", "5n-as-rounds", "violations", "delta-max", "p99", "msg/entry", "mean-k", "delta-mean", "hops/n-max", "served"}
)

// shortHeads are the headings of the default table where the full table's
// are longer than their values; the header lines explain them.
var shortHeads = map[string]string{
	"msg/cs-mean":      "msg/CS",
	"stated":           "stated",
	"sync-mean":        "sync (δ)",
	"response-mean":    "response (δ)",
	"overhead/failure": "overhead/failure",
	"paper":            "paper",
	"differential":     "differential",
	"recovery-mean":    "recovery (δ)",
	"traversals-mean":  "traversals",
	"async-rounds-max": "async max",
}

// Key is the name of c for --columns: its heading in lower case without a
// unit in parentheses or a final period, spaces as '-', ℓ as "ell" and δ
// as "delta": "msg/cs-mean", "overhead/failure", "sync-p99", "delta-max".
func (c Column) Key() string {
	h := c.Head
	if i := strings.Index(h, " ("); i > 0 {
		h = h[:i]
	}
	h = strings.TrimSuffix(h, ".")
	h = strings.NewReplacer("ℓ", "ell", "δ", "delta", " ", "-").Replace(h)
	if h == "N" {
		return h
	}
	return strings.ToLower(h)
}

// Keys returns the keys of cols, in order.
func Keys(cols []Column) []string {
	keys := make([]string, len(cols))
	for i, c := range cols {
		keys[i] = c.Key()
	}
	return keys
}

// short returns c with its short heading, if it has one.
func short(c Column) Column {
	if h, ok := shortHeads[c.Key()]; ok {
		c.Head = h
	}
	return c
}

// Choose returns the columns of cols that keys name (case aside), in
// keys' order, with their short headings; a key cols does not have is an
// error that lists those it has.
func Choose(cols []Column, keys []string) ([]Column, error) {
	var out []Column
	for _, k := range keys {
		i := slices.IndexFunc(cols, func(c Column) bool { return strings.EqualFold(c.Key(), k) })
		if i < 0 {
			return nil, fmt.Errorf("no column %q in this table (its columns: %s)", k, strings.Join(Keys(cols), ","))
		}
		out = append(out, short(cols[i]))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no column named (this table's: %s)", strings.Join(Keys(cols), ","))
	}
	return out, nil
}

// Fit returns the columns to show in a table of runs at most width runes
// wide: among the columns of cols that say something about runs (Shown),
// those priority names, taken in its order while they fit (a column that
// does not fit is left out, and a narrower one after it may still go
// in), in the order of cols and with their short headings. left are the
// keys of the columns of priority that said something and were left out
// (a column priority does not name, such as the workload that the header
// states, is never shown).
func Fit(cols []Column, priority []string, runs []*Run, width int) (shown []Column, left []string) {
	cols = Shown(cols, runs)
	in := make([]bool, len(cols))
	used := 0
	for _, k := range priority {
		i := slices.IndexFunc(cols, func(c Column) bool { return c.Key() == k })
		if i < 0 || in[i] {
			continue
		}
		if w := columnWidth(short(cols[i]), runs); used+w <= width || used == 0 {
			in[i] = true
			used += w
		}
	}
	for i, c := range cols {
		switch {
		case in[i]:
			shown = append(shown, short(c))
		case slices.Contains(priority, c.Key()):
			left = append(left, c.Key())
		}
	}
	return shown, left
}

// columnWidth is the runes c takes in a table of runs: its widest cell or
// heading, and WriteTable's padding of 2.
func columnWidth(c Column, runs []*Run) int {
	w := utf8.RuneCountInString(c.Head)
	for _, r := range runs {
		w = max(w, utf8.RuneCountInString(c.Cell(r)))
	}
	return w + 2
}

// WriteFitted writes the table of WriteTable with every column of cols
// (from Fit or Choose: a column chosen by name shows even where it is "-"
// in every run, so that tables of the same columns can be put together)
// and every comment line wrapped to width runes; left, the columns Fit
// left out, are named on a last line.
func WriteFitted(w io.Writer, header []string, cols []Column, runs []*Run, width int, left []string) error {
	var b bytes.Buffer
	if err := writeTable(&b, header, cols, runs); err != nil {
		return err
	}
	if len(left) > 0 {
		fmt.Fprintf(&b, "# not shown, to fit %d columns: %s (--wide shows every column; --columns picks)\n",
			width, strings.Join(left, ", "))
	}
	var out strings.Builder
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if !strings.HasPrefix(line, "# ") {
			out.WriteString(line)
			continue
		}
		for _, l := range WrapComment(strings.TrimSuffix(line, "\n"), width) {
			out.WriteString(l)
			out.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// WrapComment breaks a comment line ("# …") into lines of at most width
// runes at spaces, the lines after the first indented "#   "; a word longer
// than a line stays whole. width ≤ 0 leaves the line as it is.
func WrapComment(line string, width int) []string {
	if width <= 0 || utf8.RuneCountInString(line) <= width {
		return []string{line}
	}
	const more = "#   "
	var out []string
	cur := ""
	for _, word := range strings.Fields(strings.TrimPrefix(line, "# ")) {
		switch {
		case cur == "":
			cur = "# " + word
		case cur == more:
			cur += word
		case utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(word) <= width:
			cur += " " + word
		default:
			out = append(out, cur)
			cur = more + word
		}
	}
	return append(out, cur)
}
