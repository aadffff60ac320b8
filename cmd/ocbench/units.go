package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ocbench/ocbench/bench"
)

// deltaRange is the range of δ in seconds, for every flag that gives it.
var deltaRange = floatRange{lo: bench.MinDelta, hi: bench.MaxDelta, unit: "seconds"}

// parseTraceDelta parses the --delta of check-trace and view: the run's δ
// in seconds, which a trace's times (seconds) are divided by.
func parseTraceDelta(s string) (float64, error) {
	return parseFloat(s, deltaRange, true)
}

// traceDeltaArg reads check-trace's and view's --delta at args[k]
// ("--delta=V", or "--delta" and V after it; cmd names the subcommand in
// the error): the δ, and the index of the last argument it took.
func traceDeltaArg(args []string, k int, cmd string) (float64, int, error) {
	v, given := strings.CutPrefix(args[k], "--delta=")
	if !given {
		if k+1 >= len(args) {
			return 0, k, fmt.Errorf("--delta needs the run's δ in seconds (see ocbench %s --help)", cmd)
		}
		k++
		v = args[k]
	}
	d, err := parseTraceDelta(v)
	if err != nil {
		return 0, k, fmt.Errorf("--delta: %w", err)
	}
	return d, k, nil
}

// inDelta writes a virtual time, sec seconds, in δ (delta seconds), the
// unit of the run's tables: 1.86304 s at δ = 1 ms is "1863.04δ".
func inDelta(sec, delta float64) string {
	return strconv.FormatFloat(sec/delta, 'g', 6, 64) + "δ"
}
