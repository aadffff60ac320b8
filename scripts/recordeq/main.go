// Command recordeq says whether two ocbench JSON outputs hold the same
// records, field for field, except the fields it is told to ignore. CI uses
// it to check that an MPI job in virtual time gives exactly the simulator's
// record:
//
//	go run ./scripts/recordeq [flags] A.json B.json
//
// Either file may be "-" (stdin), not both. Each input is one JSON value:
//
//   - {"runs": [...]}: what `ocbench --json` prints (results.Report);
//   - {"ocbench_saved_run": 1, "environment": {...}, "runs": [...]}: a saved
//     run, runs/*.json (results.Saved); only its runs are compared, not its
//     environment (command, date, commit, hostnames, ...);
//   - [...]: an array of records;
//   - any other object: one record (a results.Run on its own).
//
// Records are matched by position. Values are compared as decoded JSON, with
// numbers compared by their JSON text (1 and 1.0, or 0.1 and
// 0.10000000000000001, differ). A field present in one record and absent
// from the other is a difference, unless ignored.
//
// Exit status: 0 equal (silent; -v prints one line), 1 different (one line
// per difference, at most 50), 2 bad usage or input.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// defaultIgnore are the fields of results.Run that legitimately differ
// between the simulator and an MPI job of the same run: what ran where, the
// host's clocks and CPU, the measurement of δ, the simulator's parity test
// of MPI runs, and the cost of synchronizing ranks. A name ending in '*'
// matches every field name it prefixes.
var defaultIgnore = []string{
	"runtime",                  // "sim" or "mpi"
	"ranks",                    // 1 in the simulator
	"placement",                // nodes on ranks (MPI)
	"clock",                    // the MPI runtime's clock
	"identical_to_simulator",   // runs rank 0 replayed (MPI, --verify)
	"hosts",                    // host names of the job (MPI)
	"checks",                   // what the runtime checks: "full"/"cs-intervals"
	"messages_intra_rank",      // follows the placement (MPI)
	"messages_inter_rank",      // follows the placement (MPI)
	"hops_per_message",         // follows the placement (MPI)
	"wall_seconds",             // host wall clock
	"cpu_*",                    // cpu_seconds_per_rank (MPI)
	"start_skew_delta",         // how late the last rank started (host clock)
	"delays_over_delta",        // real delivery delays beyond δ (host clock)
	"measured_min_delay_delta", // smallest real delay measured (MPI)
	"delta_auto",               // δ measured before the run (MPI)
	"delta_measured",           // that measurement (MPI)
	"parity",                   // MPI vs. the simulator's runs, set under MPI only
	"sync_cost*",               // cost of synchronizing ranks, if recorded
	"windows*",                 // virtual-time windows of an MPI job, if recorded
}

// maxLines is how many differences are printed before "... and K more".
const maxLines = 50

// maxValue is how many characters of a value a difference line shows.
const maxValue = 80

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the command: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("recordeq", pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are printed below, help on stdout
	ignore := fs.StringSlice("ignore", nil, "more JSON field names to ignore at any depth, comma-separated (a trailing * matches a prefix)")
	noDefault := fs.Bool("no-default-ignore", false, "don't ignore the default fields (only --ignore's)")
	verbose := fs.BoolP("verbose", "v", false, `when equal, print "equal: N records, ignoring: ..."`)
	fs.Usage = func() {}
	usage := func(w io.Writer) {
		fmt.Fprint(w, `usage: recordeq [flags] A.json B.json

Says whether two ocbench JSON outputs (ocbench --json, a saved runs/*.json,
an array of records, or one record) hold the same records, field for field,
matched by position. Either file may be - (stdin). Numbers are compared by
their JSON text. Exit 0 equal, 1 different (one line per difference), 2 bad
input.

Flags:
`)
		fmt.Fprint(w, fs.FlagUsages())
		fmt.Fprintf(w, "\nIgnored by default (fields that differ between runtimes; * matches a prefix):\n  %s\n",
			strings.Join(defaultIgnore, ", "))
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			usage(stdout)
			return 0
		}
		fmt.Fprintf(stderr, "recordeq: %v (--help for usage)\n", err)
		return 2
	}
	if fs.NArg() != 2 {
		fmt.Fprintf(stderr, "recordeq: want two files, got %d (usage: recordeq [flags] A.json B.json)\n", fs.NArg())
		return 2
	}
	if fs.Arg(0) == "-" && fs.Arg(1) == "-" {
		fmt.Fprintln(stderr, "recordeq: only one of the files may be - (stdin)")
		return 2
	}
	var names []string
	if !*noDefault {
		names = append(names, defaultIgnore...)
	}
	for _, n := range *ignore {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	var recs [2][]any
	for k := range recs {
		r, err := load(fs.Arg(k), stdin)
		if err != nil {
			fmt.Fprintf(stderr, "recordeq: %v\n", err)
			return 2
		}
		recs[k] = r
	}
	c := &comparer{ignore: newMatcher(names)}
	c.records(recs[0], recs[1])
	if len(c.diffs) == 0 {
		if *verbose {
			ign := strings.Join(names, ", ")
			if ign == "" {
				ign = "nothing"
			}
			fmt.Fprintf(stdout, "equal: %d records, ignoring: %s\n", len(recs[0]), ign)
		}
		return 0
	}
	for k, d := range c.diffs {
		if k == maxLines {
			fmt.Fprintf(stdout, "... and %d more\n", len(c.diffs)-maxLines)
			break
		}
		fmt.Fprintln(stdout, d)
	}
	return 1
}

// load reads one input ("-": stdin) and returns its records.
func load(name string, stdin io.Reader) ([]any, error) {
	var data []byte
	var err error
	if name == "-" {
		name = "stdin"
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, err
	}
	v, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return records(v), nil
}

// decode decodes exactly one JSON value, numbers as json.Number.
func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("invalid JSON: empty input")
		}
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("invalid JSON: more after the first value (at byte %d)", dec.InputOffset())
	}
	return v, nil
}

// records returns the records of a decoded input: the "runs" array of an
// object that has one (a report or a saved run; null is no record), the
// elements of an array, or else the value itself as one record.
func records(v any) []any {
	switch v := v.(type) {
	case []any:
		return v
	case map[string]any:
		if runs, ok := v["runs"]; ok {
			switch runs := runs.(type) {
			case []any:
				return runs
			case nil:
				return nil
			}
		}
	}
	return []any{v}
}

// matcher says whether a field name is ignored.
type matcher struct {
	exact    map[string]bool
	prefixes []string
}

func newMatcher(names []string) *matcher {
	m := &matcher{exact: map[string]bool{}}
	for _, n := range names {
		if p, ok := strings.CutSuffix(n, "*"); ok {
			m.prefixes = append(m.prefixes, p)
		} else {
			m.exact[n] = true
		}
	}
	return m
}

func (m *matcher) ignored(name string) bool {
	if m.exact[name] {
		return true
	}
	for _, p := range m.prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// comparer collects the differences between two inputs' records.
type comparer struct {
	ignore *matcher
	rec    int
	diffs  []string
}

func (c *comparer) records(a, b []any) {
	if len(a) != len(b) {
		c.diffs = append(c.diffs, fmt.Sprintf("record count: %d != %d", len(a), len(b)))
	}
	for k := range min(len(a), len(b)) {
		c.rec = k
		c.value("", a[k], b[k])
	}
}

func (c *comparer) add(path, what string) {
	if path == "" {
		path = "(record)"
	}
	c.diffs = append(c.diffs, fmt.Sprintf("record %d: %s: %s", c.rec, path, what))
}

// value compares a and b, found at path.
func (c *comparer) value(path string, a, b any) {
	switch a := a.(type) {
	case map[string]any:
		if b, ok := b.(map[string]any); ok {
			c.object(path, a, b)
			return
		}
	case []any:
		if b, ok := b.([]any); ok {
			c.array(path, a, b)
			return
		}
	case json.Number:
		if b, ok := b.(json.Number); ok && a == b {
			return
		}
	default: // string, bool, nil
		if a == b {
			return
		}
	}
	c.add(path, show(a)+" != "+show(b))
}

func (c *comparer) object(path string, a, b map[string]any) {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if c.ignore.ignored(k) {
			continue
		}
		p := k
		if path != "" {
			p = path + "." + k
		}
		va, inA := a[k]
		vb, inB := b[k]
		switch {
		case !inA:
			c.add(p, "(absent) != "+show(vb))
		case !inB:
			c.add(p, show(va)+" != (absent)")
		default:
			c.value(p, va, vb)
		}
	}
}

func (c *comparer) array(path string, a, b []any) {
	if len(a) != len(b) {
		c.add(path, fmt.Sprintf("length %d != %d", len(a), len(b)))
	}
	for k := range min(len(a), len(b)) {
		c.value(fmt.Sprintf("%s[%d]", path, k), a[k], b[k])
	}
}

// show is v as compact JSON, cut to maxValue characters.
func show(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSuffix(buf.String(), "\n")
	if r := []rune(s); len(r) > maxValue {
		return string(r[:maxValue-3]) + "..."
	}
	return s
}
