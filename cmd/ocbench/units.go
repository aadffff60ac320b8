package main

import (
	"strconv"

	"github.com/ocbench/ocbench/bench"
)

// deltaRange is the range of δ in seconds, for every flag that gives it.
var deltaRange = floatRange{lo: bench.MinDelta, hi: bench.MaxDelta, unit: "seconds"}

// parseTraceDelta parses the --delta of check-trace and view: the run's δ
// in seconds, which a trace's times (seconds) are divided by.
func parseTraceDelta(s string) (float64, error) {
	return parseFloat(s, deltaRange, true)
}

// inDelta writes a virtual time, sec seconds, in δ (delta seconds), the
// unit of the run's tables: 1.86304 s at δ = 1 ms is "1863.04δ".
func inDelta(sec, delta float64) string {
	return strconv.FormatFloat(sec/delta, 'g', 6, 64) + "δ"
}
