// Package trace is the event trace of a run, one JSON object per line, that
// every runtime writes in one format (the simulator as it runs, rank 0 of an
// MPI job from every rank's events), and its checker, which `ocbench
// check-trace` runs: what every correct run's trace satisfies, whichever
// runtime wrote it.
package trace
