// Package rank is ocbench's MPI runtime, in two clocks: every rank of an
// MPI job hosts the logical nodes that a hypercube placement gives it, steps
// them with the same state machines as the simulator, and exchanges their
// messages with the other ranks in wire frames.
//
// In virtual time (Virtual, the default), each rank hosts its part of every
// run of the job (bench.RunParts, over rank's MPI exchange), and the ranks advance the runs window by
// window: at each boundary, frames carry the messages between ranks and one
// reduction adds up the parts' reports, so that the ranks replay the
// simulator's run of the seed exactly (docs/design.md, docs/mpi.md).
//
// In wall-clock time (Runtime), timers are wall-clock, in units of δ. A job runs the experiment of a bench.Spec. Every rank computes the same
// fault plan from the seed and crashes and recovers the nodes it hosts on
// schedule; each node draws its poisson think times from the same hash as in
// the simulator; the sequential workload passes a baton to the rank of the
// next requester once the token has come to rest. When every rank's workload
// is over, rank 0 waits for the last messages to land and tells every rank to
// stop; the ranks then drain what is still in flight, and rank 0 gathers the
// counters into the same record as the simulator's (runtime "mpi").
//
// Mutual exclusion is checked after the run: every rank records when its
// nodes entered and left the critical section, and rank 0 checks that no
// two intervals overlap (the ranks' clocks are aligned at a barrier before
// the run; on one machine they are the same clock).
package rank
