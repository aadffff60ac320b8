// Package bench runs ocbench's experiments and records what they measure.
//
// The contract, in the order a run goes:
//
//   - A Spec says what to run: the algorithm (by name), N, the workload
//     (package workload), the crashes and transient faults (package
//     faults), the checks. Spec.Resolve validates it once, returning a
//     *field.Error that names the field, and gives a Plan: the configured
//     algorithm, its views, bounds and check level, and what the run draws
//     from its seed. Everything after Resolve takes the plan; nothing looks
//     an algorithm up by name again (what an algorithm is comes from package
//     algo's catalogue and proto's optional interfaces).
//   - Run resolves a spec, executes its plan on the simulator and returns
//     its results.Run,
//     paired with its crash-free baseline when the spec has crashes. A seed
//     means one run: every runtime that replays it gives the same record.
//   - RunParts is the one window loop. Parts (each hosting some of the
//     nodes on a simulator of its own) run window by window; at each
//     boundary they exchange the messages that cross, through an Exchange:
//     Local in one process, rank's MPI exchange across ranks. A runtime
//     implements Exchange and nothing else of the protocol.
//   - A Controller makes every decision of the run's controller (a crash and
//     its victim, the sequential workload's turn, the end of the workload
//     and of the settle time, the watchdog) from a workload.Observation of
//     the whole run, in every runtime; ControlOptions.WallClock says, in one
//     place, how wall-clock time observes otherwise.
//   - The record is assembled once from the parts' outcomes (counts merged
//     by package results), with the checks' verdicts: a run that hit a
//     violation carries it and the command that replays it (Replay).
package bench
