package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/results"
)

// checkClimb refuses a --climb that cannot run: one configuration, in the
// simulator, with an initial configuration to edit.
func checkClimb(o *options, list []config) error {
	switch {
	case o.climb < 1 || o.climb > 100000:
		return fmt.Errorf("--climb: %d is not in 1..100000", o.climb)
	case o.transient != "initial" && o.transient != "adversarial":
		return fmt.Errorf("--climb: the climb edits an initial configuration; give --transient initial or adversarial")
	case o.runtimeInfo != nil:
		return fmt.Errorf("--climb: it runs in the simulator; run it without mpirun")
	case len(list) != 1:
		return fmt.Errorf("--climb: it climbs from one configuration; give one algorithm and one --nodes (got %d configurations)", len(list))
	case o.search != 0:
		return fmt.Errorf("--climb: it chooses its own configurations; drop --search")
	}
	return nil
}

// runClimb runs the worst-case climb of --climb and prints each step
// taken, the worst run's table and the command that replays it. A run
// that breaks a property ends the climb, and the command exits 1 with it.
func runClimb(o *options, list []config, stdout, stderr io.Writer) (int, error) {
	spec := list[0].spec
	if o.json {
		return runClimbJSON(o, spec, stdout)
	}
	w := bufio.NewWriter(stdout)
	fmt.Fprintf(w, "# worst-case climb: %d edits of the initial configuration (%s), each kept if stabilization takes no fewer asynchronous rounds (then δ)\n", o.climb, spec.Transient.String())
	fmt.Fprintln(w, "# the configurations kept: step, asynchronous rounds, traversals, δ, the number of edits and the last one")
	fmt.Fprintln(w, "#  step  async_rounds  traversals      δ  edits  last")
	w.Flush()
	r, trail, err := bench.Climb(spec, o.climb, func(k int, s bench.ClimbStep) {
		if !s.Accepted || o.save.quiet && k > 0 {
			return
		}
		last := "-"
		if len(s.Edits) > 0 {
			last = s.Edits[len(s.Edits)-1].String()
		}
		fmt.Fprintf(w, "%7d  %12g  %10g  %5.1f  %5d  %s\n", k, s.Rounds, s.Traverse, s.Delta, len(s.Edits), last)
		w.Flush()
	})
	if err != nil {
		return 1, flagError(err)
	}
	kept := 0
	for _, s := range trail {
		if s.Accepted {
			kept++
		}
	}
	worst := spec
	worst.Transient.Edits = trail[0].Edits
	for _, s := range trail {
		if s.Accepted {
			worst.Transient.Edits = s.Edits
		}
	}
	fmt.Fprintf(w, "# %d configurations measured, %d kept\n", len(trail), kept)
	if err := results.WriteTable(w, header(o, list), results.StabilizationColumns, []*results.Run{r}); err != nil {
		return 1, err
	}
	if st := r.Stabilization; st != nil && len(st.Runs) == 1 {
		run := st.Runs[0]
		fmt.Fprintf(w, "# worst found: %g %ss (the paper's bound: %g); further measures: %g asynchronous rounds (5n read as rounds: %g), %.1fδ\n", run.Rounds, st.Round, st.Bound, run.AsyncRounds, st.AsyncBound, run.Delta)
	}
	fmt.Fprintf(w, "# replay: %s\n", bench.Replay(worst))
	v := results.Validate([]*results.Run{r}, 1, false)
	if r.Violation != "" && v.Valid {
		v = results.Invalid(results.TimesInDelta(r.Violation, r.DeltaSeconds))
	}
	fmt.Fprintln(w, v.Line()) // the worst run's verdict, the last line as in every run's output
	if err := w.Flush(); err != nil {
		return 1, err
	}
	if r.Violation != "" {
		return 1, fmt.Errorf("the climb reached a run that breaks a property: %s (replay: %s)", results.TimesInDelta(r.Violation, r.DeltaSeconds), bench.Replay(worst))
	}
	return 0, nil
}

// climbJSON is --climb's record with --json: the worst run found, as the
// main command prints its runs, and the climb that found it.
type climbJSON struct {
	Runs  []*results.Run `json:"runs"`
	Climb struct {
		Steps    int             `json:"steps"`
		Measured int             `json:"measured"`
		Kept     []climbStepJSON `json:"kept"`
		Edits    string          `json:"worst_edits"`
		Replay   string          `json:"replay"`
	} `json:"climb"`
}

// climbStepJSON is a configuration the climb kept.
type climbStepJSON struct {
	Step        int     `json:"step"`
	AsyncRounds float64 `json:"async_rounds"`
	Traversals  float64 `json:"traversals"`
	Delta       float64 `json:"delta"`
	Edits       string  `json:"edits"`
}

// runClimbJSON is runClimb with --json: one JSON object on stdout, nothing
// else; a run that breaks a property exits 1, as without --json.
func runClimbJSON(o *options, spec bench.Spec, stdout io.Writer) (int, error) {
	r, trail, err := bench.Climb(spec, o.climb, nil)
	if err != nil {
		return 1, flagError(err)
	}
	var out climbJSON
	out.Runs = []*results.Run{r}
	out.Climb.Steps, out.Climb.Measured = o.climb, len(trail)
	worst := spec
	worst.Transient.Edits = trail[0].Edits
	for k, s := range trail {
		if s.Accepted {
			worst.Transient.Edits = s.Edits
			out.Climb.Kept = append(out.Climb.Kept, climbStepJSON{Step: k, AsyncRounds: s.Rounds, Traversals: s.Traverse, Delta: s.Delta, Edits: editsString(s.Edits)})
		}
	}
	out.Climb.Edits, out.Climb.Replay = editsString(worst.Transient.Edits), bench.Replay(worst)
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return 1, fmt.Errorf("writing JSON: %w", err)
	}
	if err := w.Flush(); err != nil {
		return 1, err
	}
	if r.Violation != "" {
		return 1, fmt.Errorf("the climb reached a run that breaks a property: %s (replay: %s)", results.TimesInDelta(r.Violation, r.DeltaSeconds), out.Climb.Replay)
	}
	return 0, nil
}

// editsString is edits as --edits takes them: comma-separated.
func editsString(edits []faults.Edit) string {
	s := make([]string, len(edits))
	for i, e := range edits {
		s[i] = e.String()
	}
	return strings.Join(s, ",")
}
