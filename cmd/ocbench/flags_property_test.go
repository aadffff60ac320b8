//go:build unix

package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"pgregory.net/rapid"
)

// The numbers of command lines TestFlagsProperty draws unless
// -rapid.checks is given: under -short (make test, a few seconds; rapid
// draws a fifth of -rapid.checks there), and without (make check, about
// two minutes).
const (
	propertyChecksShort = 50
	propertyChecks      = 500
)

// TestFlagsProperty: any command line drawn over the flags of every
// subcommand (the benchmark, explore, report, check-trace, view, version,
// help) — known flags with values from the edges of their types (NaN, ±Inf,
// negative, huge, empty, not a number, lists with holes), unknown flags,
// file arguments that exist or not, are devices or directories — ends, as
// a child process, within 20 s and 1 GiB of peak RSS, either with status 0,
// or with status 2 (bad input) and exactly one line on stderr, or with
// status 1 (a verdict: lines of ocbench's on stderr, or explore's on
// stdout); never a panic, a usage page on stderr, or a hang.
//
// Replay a failure with the -rapid.seed it prints; draw more or fewer with
// -rapid.checks N.
func TestFlagsProperty(t *testing.T) {
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == f.DefValue {
		n := propertyChecks
		if testing.Short() {
			n = 5 * propertyChecksShort
		}
		f.Value.Set(fmt.Sprint(n))
		defer f.Value.Set(f.DefValue)
	}
	_, here, _, _ := runtime.Caller(0)
	saved, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "report", "testdata", "crashes.json"))
	if err != nil {
		t.Fatal(err)
	}
	subs := commandFlags()
	names := make([]string, 0, len(subs))
	for name := range subs {
		names = append(names, name)
	}
	slices.Sort(names)
	rapid.Check(t, func(rt *rapid.T) {
		sub := rapid.SampledFrom(names).Draw(rt, "command")
		args := commandLineDraw(rt, sub, subs[sub])
		dir, err := os.MkdirTemp("", "ocbench-property")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(dir)
		os.WriteFile(filepath.Join(dir, "c1.jsonl"), []byte(`{"t":0,"node":0,"ev":"request"}
{"t":1,"node":0,"ev":"enter"}
{"t":2,"node":0,"ev":"exit"}
`), 0o644)
		os.Mkdir(filepath.Join(dir, "runs"), 0o755)
		os.WriteFile(filepath.Join(dir, "runs", "a.json"), saved, 0o644)
		r := runFault(t, dir, faultCase{args: args, limit: 20 * time.Second})
		line := fmt.Sprintf("ocbench %s", strings.Join(quoteArgs(args), " "))
		switch {
		case r.code == -1:
			rt.Fatalf("%s: still running after 20 s", line)
		case strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine "):
			rt.Fatalf("%s: exit %d, a panic: %.2000s", line, r.code, r.stderr)
		case r.code != 0 && r.code != 1 && r.code != 2:
			rt.Fatalf("%s: exit %d, want 0, 1 or 2; stderr %.500q", line, r.code, r.stderr)
		case r.code == 2 && !oneLine(r.stderr):
			rt.Fatalf("%s: exit 2, and stderr is not one line: %.500q", line, r.stderr)
		case r.code == 1 && !verdictLines(r.stderr) && (r.stderr != "" || r.stdout == ""):
			rt.Fatalf("%s: exit 1, and neither a verdict on stdout nor lines of ocbench's on stderr: stderr %.500q", line, r.stderr)
		case r.rss > 1<<30:
			rt.Fatalf("%s: peak RSS %d MiB", line, r.rss>>20)
		}
	})
}

// verdictLines reports whether s, the stderr of a command that exited 1
// (a run's or a trace's verdict), is lines of ocbench's own: at least one,
// each starting "ocbench" (a verdict per trace file of check-trace, the
// saved line then the verdict of a run), no usage page.
func verdictLines(s string) bool {
	if !strings.HasSuffix(s, "\n") {
		return false
	}
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if !strings.HasPrefix(l, "ocbench") {
			return false
		}
	}
	return true
}

// flagKind is how a flag's values are drawn.
type flagKind int

const (
	kindBool flagKind = iota
	kindInt
	kindInts
	kindFloat
	kindString
	kindStrings
)

// commandFlags returns, for each command ("" is the benchmark), its flags
// and their kinds: the benchmark's and explore's read from their flag
// sets, report's and view's listed.
func commandFlags() map[string]map[string]flagKind {
	kinds := func(fs *pflag.FlagSet, skip ...string) map[string]flagKind {
		m := map[string]flagKind{}
		fs.VisitAll(func(f *pflag.Flag) {
			if slices.Contains(skip, f.Name) {
				return
			}
			switch t := f.Value.Type(); {
			case t == "bool":
				m[f.Name] = kindBool
			case strings.HasPrefix(t, "int") && strings.HasSuffix(t, "Slice"):
				m[f.Name] = kindInts
			case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
				m[f.Name] = kindInt
			case t == "float64" || t == "float":
				m[f.Name] = kindFloat
			case strings.HasSuffix(t, "Slice"):
				m[f.Name] = kindStrings
			default:
				m[f.Name] = kindString
			}
		})
		return m
	}
	var o options
	var eo exploreOptions
	return map[string]map[string]flagKind{
		"": kinds(newFlags(&o)),
		// --max-states is fixed (commandLineDraw): a valid explore run's
		// time is bounded by its states; so is --quiet (its progress
		// lines are no verdict).
		"explore":     kinds(exploreFlags(&eo), "max-states", "quiet"),
		"report":      {"output": kindString, "format": kindString, "image": kindString, "title": kindString, "name": kindString, "help": kindBool},
		"check-trace": {"k-exclusion": kindBool, "delta": kindFloat, "help": kindBool},
		"view":        {"output": kindString, "delta": kindFloat, "help": kindBool},
		"version":     {},
		"help":        {},
	}
}

// Values drawn for each kind: the edges of the type, and the values that
// make runs of the benchmark and of explore small enough to end in
// seconds (a large valid value, e.g. --requests 10^9, is a long run, not
// a bad one).
var (
	intValues    = []string{"-1", "0", "1", "2", "3", "4", "8", "2147483648000", "-9223372036854775808", "99999999999999999999", "x", "", "0x10", "1e3", " 4"}
	intsValues   = []string{"2", "4", "8", "3", "0", "2,4", "4,,8", "x", "-8", "1073741824", "", "16,16"}
	floatValues  = []string{"NaN", "nan", "Inf", "+Inf", "-Inf", "-1", "0", "0.001", "0.5", "1", "2", "20", "1e6", "1e308", "-0", "x", "", "1e-9", "0x1p-2", "1_0"}
	stringValues = []string{"", "x", "auto", "none", "list", "opencube", "kofl", "all", "ft", "raymond", "sequential", "poisson", "saturated",
		"initial", "during", "adversarial", "paper", "ocbench", "wall", "virtual", "sim", "mpi", "full", "counts", "fixed", "exp", "zero",
		"ring", "idle", "por", "token", "root", "1G", "100", "1K", "-", "/dev/null", "/dev/full", "runs", "c1.jsonl", "nosuch/x", "md", "html", "svg", "png"}
	boolValues = []string{"true", "false", "maybe", ""}
	argValues  = []string{"c1.jsonl", "runs", "runs/a.json", "nosuch.jsonl", "/dev/null", "/dev/zero", "", "-", "x y", "--", "-x"}
)

// commandLineDraw draws a command line of sub with up to 5 items: known
// flags (--name value, --name=value, a bool alone), unknown flags and
// arguments. The benchmark's runs start from --requests 20, which the
// flags drawn may change, and explore's from --max-states 20000 --quiet.
func commandLineDraw(t *rapid.T, sub string, flags map[string]flagKind) []string {
	var args []string
	switch sub {
	case "":
		args = []string{"--requests", "20"}
	case "explore":
		args = []string{"explore", "--max-states", "20000", "--quiet"}
	default:
		args = []string{sub}
	}
	names := make([]string, 0, len(flags))
	for name := range flags {
		names = append(names, name)
	}
	slices.Sort(names)
	n := rapid.IntRange(0, 5).Draw(t, "items")
	for range n {
		switch what := rapid.IntRange(0, 9).Draw(t, "what"); {
		case what == 0:
			args = append(args, "--"+rapid.StringMatching(`[a-z][a-z-]{0,8}`).Draw(t, "unknown"))
		case what == 1 || len(names) == 0:
			args = append(args, rapid.SampledFrom(argValues).Draw(t, "arg"))
		default:
			name := rapid.SampledFrom(names).Draw(t, "flag")
			var pool []string
			switch flags[name] {
			case kindBool:
				if rapid.Bool().Draw(t, "bare") {
					args = append(args, "--"+name)
					continue
				}
				args = append(args, "--"+name+"="+rapid.SampledFrom(boolValues).Draw(t, "bool"))
				continue
			case kindInt:
				pool = intValues
			case kindInts:
				pool = intsValues
			case kindFloat:
				pool = floatValues
			default:
				pool = stringValues
			}
			v := rapid.SampledFrom(pool).Draw(t, "value")
			if rapid.Bool().Draw(t, "equals") {
				args = append(args, "--"+name+"="+v)
			} else {
				args = append(args, "--"+name, v)
			}
		}
	}
	return args
}

// quoteArgs quotes the arguments that a shell would split or drop.
func quoteArgs(args []string) []string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?") {
			q[i] = fmt.Sprintf("%q", a)
		}
	}
	return q
}
