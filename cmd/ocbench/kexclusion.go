package main

import (
	"fmt"
	"io"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/results"
)

// kexclusionLines are the header lines of k-exclusion and transient-fault
// runs.
func kexclusionLines(list []config, mpi bool) []string {
	var h []string
	for _, c := range list {
		s := c.spec
		if !algo.IsKExclusion(s.Algorithm) {
			continue
		}
		n, _ := s.Normalized()
		perEntry := "messages sent after stabilization per entry into the critical section after it"
		if mpi {
			perEntry = "all messages per entry into the critical section (ranks cannot see stabilization)"
		}
		h = append(h, fmt.Sprintf("k-exclusion (%s): ℓ = %d units, each request asks for k in 1..K = %d units (k from the seed and the request's serial); msg/entry: %s",
			s.Algorithm, n.Ell, n.KMax, perEntry))
		if n.Transient.On() && mpi {
			h = append(h, "transient faults: "+n.Transient.String()+"; under MPI the stabilization time is not measured (the legitimacy predicate reads the whole system) and the units check is off (safety holds only after stabilization, which ranks cannot see): the simulator measures both")
		}
		if n.Transient.On() && !mpi {
			bound, unit := algo.StabilizationBound(s.Algorithm)
			h = append(h, "transient faults: "+n.Transient.String()+"; FIFO links (the algorithm needs them)",
				fmt.Sprintf("stabilization: from the last fault until the legitimacy predicate holds for good, in CToken traversals (Root's STARTs), the paper's unit, checked against its bound (%g %ss: bound, over bound); further measures, not the paper's unit: CToken hops / N, asynchronous rounds (async: a round ends when every message in flight at its start is received) beside 5n read as rounds, and δ; Root's time-out, which the paper leaves open: --timeout (it moves the rounds and δ, docs/algorithms/kofl.md); after it, ≤ ℓ units in use and none held twice after every step, every request served, and a request served within the watchdog period while one waits (docs/algorithms/kofl.md)", bound, unit))
		}
		break
	}
	return h
}

// writeStabilization writes, after a table of runs with transient faults,
// the worst run of each configuration and the runs over the paper's bound,
// each with the command that replays it.
func writeStabilization(w io.Writer, list []config, runs []*results.Run, width int) error {
	for k, r := range runs {
		st := r.Stabilization
		if st == nil || k >= len(list) || st.Rounds.Count == 0 {
			continue
		}
		worst := st.Runs[0]
		for _, x := range st.Runs {
			if x.Stabilized && (!worst.Stabilized || x.Rounds > worst.Rounds || x.Rounds == worst.Rounds && x.Delta > worst.Delta) {
				worst = x
			}
		}
		spec := list[k].spec
		spec.Seed = worst.Seed
		line := fmt.Sprintf("# worst run (%s, N=%d): seed %d, %s %ss, %.2f CToken hops/N, %.1fδ after the last fault: %s",
			r.Algorithm, r.Nodes, worst.Seed, num(worst.Rounds), st.Round, worst.HopRounds, worst.Delta, bench.Replay(spec))
		if err := writeLines(w, results.WrapComment(line, width)); err != nil {
			return err
		}
	}
	for _, line := range results.OverBoundLines(runs, 20) {
		if err := writeLines(w, results.WrapComment("# "+line, width)); err != nil {
			return err
		}
	}
	return nil
}

// writeLines writes each line and a newline.
func writeLines(w io.Writer, lines []string) error {
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}
