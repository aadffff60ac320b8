package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/rank"
	"github.com/ocbench/ocbench/results"
)

// deltaFlag is --delta: seconds, or auto (measured before the run, MPI only).
type deltaFlag struct {
	v    *float64
	auto *bool
}

func (d deltaFlag) String() string {
	if *d.auto {
		return "auto"
	}
	return strconv.FormatFloat(*d.v, 'g', -1, 64)
}

func (d deltaFlag) Set(s string) error {
	if s == "auto" {
		*d.auto = true
		return nil
	}
	if _, err := strconv.ParseFloat(s, 64); err != nil && !errors.Is(err, strconv.ErrRange) {
		return &flagValueError{fmt.Sprintf("%q is neither seconds nor auto", s)}
	}
	f, err := parseFloat(s, floatRange{lo: bench.MinDelta, hi: bench.MaxDelta, unit: "seconds"}, false)
	if err != nil {
		return err
	}
	*d.v, *d.auto = f, false
	return nil
}

func (d deltaFlag) Type() string { return "seconds|auto" }

// errDeltaAuto refuses --delta auto in the simulator, whose δ is virtual:
// there is nothing to measure, and any value gives the same run in units of δ.
var errDeltaAuto = fmt.Errorf("--delta auto: only MPI runs measure δ (the simulator's δ is virtual: give seconds, or leave the default %gs)", bench.DefaultDelta)

// measureDelta measures delivery delays on the ranks (every rank calls it,
// after the input was found good on every rank) and sets the chosen δ in
// o and in every configuration.
func measureDelta(o *options, list []config, stderr io.Writer) error {
	ri := o.runtimeInfo
	concurrent := 0 // the most runs of a job, baselines included
	for _, b := range batches(o, list) {
		n := 0
		for _, r := range b {
			n++
			if s := list[r.c].spec; s.Faults.Crashes > 0 && !s.NoBaseline {
				n++ // each seed's baseline runs beside it
			}
		}
		concurrent = max(concurrent, n)
	}
	d, err := rank.MeasureDelays(rank.MPI{}, rank.DefaultDelayShape(ri.ranks, concurrent))
	if err != nil {
		return runError{fmt.Errorf("measuring δ: %w", err)}
	}
	ri.delays = &d
	o.delta = d.Delta
	for k := range list {
		list[k].spec.Delta = d.Delta
	}
	if !o.save.quiet {
		fmt.Fprintf(stderr, "ocbench: %s; the fault plans last about %.0f s\n", deltaLine(&d), jobSeconds(o, list))
	}
	return nil
}

// jobSeconds estimates how long the runs of list last under MPI: the
// longest run of each batch (bench.Duration; its runs go at once).
func jobSeconds(o *options, list []config) float64 {
	est := 0.0
	for _, b := range batches(o, list) {
		longest := 0.0
		for _, r := range b {
			s := list[r.c].spec
			s.Seed += uint64(r.k)
			plan := s.Faults.Schedule(s.Seed, s.Nodes, s.Delta)
			longest = max(longest, bench.Duration(s, plan))
		}
		est += longest
	}
	return est
}

// deltaLine describes a measured δ in one line (the header's and stderr's).
func deltaLine(d *results.DelayMeasurement) string {
	return fmt.Sprintf("δ = %s (auto: %s over %d one-way delays measured in %.1fs: median %s, p99 %s, p99.9 %s, max %s)",
		dur(d.Delta), d.Rule, d.Count, d.Seconds, dur(d.Median), dur(d.P99), dur(d.P999), dur(d.Max))
}

// dur formats seconds with a unit that suits them: 4.1 ms, 35 µs.
func dur(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.3g s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.3g ms", s*1e3)
	}
	return fmt.Sprintf("%.3g µs", s*1e6)
}

// checkParity compares, under MPI, the overhead per failure of r (the
// merged record of spec's seeds) with the simulator's runs of the same
// seeds, run here on rank 0 (the nodes' code is the same), by a
// Mann–Whitney test, and sets r.Parity.
func checkParity(o *options, spec bench.Spec, r *results.Run) error {
	if o.runtimeInfo == nil || o.virtualMPI() || o.farm() || spec.Faults.Crashes == 0 || len(r.OverheadSamples) == 0 {
		return nil
	}
	seeds := r.Seeds
	if len(seeds) == 0 {
		seeds = []uint64{r.Seed}
	}
	var sim []float64
	for _, seed := range seeds {
		s := spec
		s.Seed, s.Progress, s.Trace, s.NoBaseline = seed, nil, nil, true // the trace is the MPI run's
		got, err := simRun(s)
		if err != nil {
			return fmt.Errorf("parity: the simulator's run of seed %d: %w", seed, err)
		}
		sim = append(sim, got.OverheadSamples...)
	}
	if len(sim) == 0 {
		return nil
	}
	_, p, err := results.MannWhitney(r.OverheadSamples, sim)
	if err != nil {
		return fmt.Errorf("parity: %w", err)
	}
	r.Parity = &results.Parity{Test: "mann-whitney", PValue: p, SimSeeds: seeds,
		SimSamples: len(sim), SimMean: results.Estimated(sim).Mean,
		MPISamples: len(r.OverheadSamples), MPIMean: r.OverheadPerFailure.Mean}
	return nil
}

// longJob is the wall-clock time beyond which an MPI job's estimate is
// printed before it starts.
const longJob = 10 * 60.0

// warnLong says, before an MPI job starts, how long it will take when that
// is longer than longJob: its timers are wall-clock time, so a think time
// of 10^6 δ makes a job of hours (the simulator's runs take what their
// events take).
func warnLong(o *options, list []config, stderr io.Writer) {
	if o.virtualMPI() || o.farm() {
		return // virtual time does not last as long as the runs' clock says
	}
	if secs := jobSeconds(o, list); secs > longJob && !o.save.quiet {
		fmt.Fprintf(stderr, "ocbench: warning: under MPI these runs last about %s of wall-clock time (δ = %gs; the think time, the requests and the fault plan set it); Ctrl-C ends them\n",
			time.Duration(secs*float64(time.Second)).Round(time.Second), list[0].spec.Delta)
	}
}
