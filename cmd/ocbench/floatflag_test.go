package main

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// floatFlagSets are the flag sets of every subcommand with float flags.
func floatFlagSets() map[string]*pflag.FlagSet {
	return map[string]*pflag.FlagSet{
		"":        newFlags(&options{}),
		"explore": exploreFlags(&exploreOptions{}),
	}
}

// TestFloatFlagsOneParser: every float flag of every subcommand is parsed by
// parseFloat (a floatFlag, or --delta's seconds), so none takes NaN.
func TestFloatFlagsOneParser(t *testing.T) {
	n := 0
	for sub, fs := range floatFlagSets() {
		fs.VisitAll(func(f *pflag.Flag) {
			switch f.Value.(type) {
			case floatFlag, deltaFlag:
				n++
			default:
				if strings.Contains(f.Value.Type(), "float") {
					t.Errorf("ocbench %s --%s: a %T, not a floatFlag", sub, f.Name, f.Value)
				}
			}
		})
	}
	if n < 14 {
		t.Errorf("%d float flags, want at least 14 (12 of the main command, 2 of explore)", n)
	}
}

// TestFloatFlagsRefuseNaN: NaN, ±Inf and a value beyond float64 given to
// any float flag of any subcommand are refused at once with one line that
// names the flag and the subcommand's own range, exit status 2.
func TestFloatFlagsRefuseNaN(t *testing.T) {
	for sub, fs := range floatFlagSets() {
		fs.VisitAll(func(f *pflag.Flag) {
			ff, ok := f.Value.(floatFlag)
			if !ok {
				return
			}
			for _, v := range []string{"NaN", "nan", "Inf", "-Inf", "+inf", "1e400"} {
				args := []string{"--algo", "kofl", "--nodes", "8", "--requests", "10", "--no-save", "--quiet"}
				if sub != "" {
					args = []string{sub, "--algo", "kofl", "--nodes", "2", "--transient", "--domain", "zero"}
				}
				args = append(args, "--"+f.Name, v)
				start := time.Now()
				code, _, errs := runWithin(t, 10*time.Second, args)
				want := "--" + f.Name + ": "
				if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, want) ||
					!strings.Contains(errs, "is not in "+ff.r.String()) || time.Since(start) > 2*time.Second {
					t.Errorf("%q: exit %d after %v, stderr %q; want exit 2 at once, one line naming %s and %s",
						args, code, time.Since(start), errs, want, ff.r)
				}
			}
		})
	}
}

// TestParseFloat: the parser's verdicts, a range's bounds included.
func TestParseFloat(t *testing.T) {
	unit := floatRange{lo: 0, hi: 20, unit: "δ"}
	open := floatRange{lo: 1, hi: 10, openLo: true}
	words := floatRange{text: "the algorithm's range"}
	for _, c := range []struct {
		s      string
		r      floatRange
		strict bool
		want   float64
		err    string
	}{
		{"0", unit, true, 0, ""},
		{"20", unit, true, 20, ""},
		{"20.5", unit, true, 0, "20.5 is not in [0, 20] (δ)"},
		{"20.5", unit, false, 20.5, ""},
		{"-1", unit, false, -1, ""},
		{"-1", unit, true, 0, "-1 is not in [0, 20] (δ)"},
		{"NaN", unit, false, 0, "NaN is not in [0, 20] (δ)"},
		{"-inf", unit, false, 0, "-Inf is not in [0, 20] (δ)"},
		{"1e400", unit, false, 0, "+Inf is not in [0, 20] (δ)"},
		{"x", unit, false, 0, `"x" is not a number`},
		{"", unit, false, 0, `"" is not a number`},
		{"1", open, true, 0, "1 is not in (1, 10]"},
		{"1.5", open, true, 1.5, ""},
		{"1e6", words, true, 1e6, ""},
		{"NaN", words, true, 0, "NaN is not in the algorithm's range"},
	} {
		x, err := parseFloat(c.s, c.r, c.strict)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.err || err == nil && x != c.want {
			t.Errorf("parseFloat(%q, %s, %v) = %v, %q; want %v, %q", c.s, c.r, c.strict, x, got, c.want, c.err)
		}
	}
}

// TestDefectNaNTimeout: the commands of issue 40's defects 8, 9 and 16
// are refused at once, in one line naming the subcommand's own range.
func TestDefectNaNTimeout(t *testing.T) {
	checkRefusals(t, []refusal{
		{[]string{"--algo", "kofl", "--nodes", "8", "--requests", "20", "--timeout", "NaN", "--no-save"}, "ocbench: --timeout: NaN is not in the algorithm's range"},
		{[]string{"explore", "--algo", "kofl", "--nodes", "2", "--transient", "--domain", "zero", "--timeout", "NaN"}, "ocbench explore: --timeout: NaN is not in [0, 100]"},
		{[]string{"explore", "--cs-time", "NaN"}, "ocbench explore: --cs-time: NaN is not in [0, 20] (δ)"},
		{[]string{"explore", "--cs-time", "21"}, "ocbench explore: --cs-time: 21 is not in [0, 20] (δ)"},
		{[]string{"--delta", "x", "--no-save"}, `ocbench: --delta: "x" is neither seconds nor auto`},
	})
}
