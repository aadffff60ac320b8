// Package results holds what a run reports: the JSON record of a run, the
// statistics over its samples (through github.com/montanaflynn/stats), the
// readable table, and the reference figures of the papers.
package results

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/montanaflynn/stats"
)

// Summary describes a sample: its size, mean, median, 99th percentile and
// maximum. An empty sample has Count 0 and zeros elsewhere.
type Summary struct {
	Count  int     `json:"count"`
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	P99    float64 `json:"p99"`
	Max    float64 `json:"max"`
}

// Summarize returns the summary of xs.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	d := stats.Float64Data(xs)
	mean, _ := d.Mean()
	med, _ := d.Median()
	p99, _ := d.Percentile(99)
	mx, _ := d.Max()
	return Summary{Count: len(xs), Mean: mean, Median: med, P99: p99, Max: mx}
}

// Run is the record of one run: the JSON contract of `ocbench --json`.
type Run struct {
	Algorithm string `json:"algorithm"`
	Nodes     int    `json:"nodes"`
	Ranks     int    `json:"ranks"`
	Runtime   string `json:"runtime"`
	Seed      uint64 `json:"seed"`
	Workload  string `json:"workload"`
	// Timing parameters, in units of δ.
	DeltaSeconds float64 `json:"delta_seconds"`
	CSTime       float64 `json:"cs_time_delta"`
	ThinkTime    float64 `json:"think_time_delta,omitempty"`
	MinDelay     float64 `json:"min_delay_delta"`
	FIFO         bool    `json:"fifo"`
	Checks       string  `json:"checks"`

	RequestsIssued int64            `json:"requests_issued"`
	RequestsServed int64            `json:"requests_served"`
	MessagesTotal  int64            `json:"messages_total"`
	MessagesByType map[string]int64 `json:"messages_by_type"`
	// MessagesByCause splits messages into "normal" and "failure".
	MessagesByCause map[string]int64 `json:"messages_by_cause"`
	// MsgsPerRequest is over the served requests: every message of the
	// failure-free protocol carries the serial of the request it serves,
	// including the return of a lent token.
	MsgsPerRequest Summary `json:"msgs_per_request"`
	// WaitDelta is the time from enter_cs to entering the CS, in δ.
	WaitDelta          Summary `json:"wait_delta"`
	SafetyViolations   int     `json:"safety_violations"`
	Violation          string  `json:"violation,omitempty"`
	LivenessViolations int     `json:"liveness_violations"`

	VirtualSeconds float64 `json:"virtual_seconds,omitempty"`
	WallSeconds    float64 `json:"wall_seconds"`
	Steps          int64   `json:"steps"`
}

// Report is the JSON document ocbench prints with --json.
type Report struct {
	Runs []*Run `json:"runs"`
}

// WriteJSON writes the report as one indented JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// Round returns x rounded to 4 significant decimals, for tables.
func Round(x float64) float64 {
	return math.Round(x*1e4) / 1e4
}
