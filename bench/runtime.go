package bench

import "github.com/ocbench/ocbench/results"

// Runtime runs experiments: one implementation per way of hosting the
// nodes. The experiment (Spec, its fault plan and workload, the counts, the
// watchdog, the record) is this package's and the same in every runtime; a
// runtime brings only its own way of stepping the nodes and carrying their
// messages. Implementations: Simulator (one process, virtual time),
// rank.Virtual (the ranks of an MPI job, in virtual time: the simulator's
// run, split into parts) and rank.Runtime (the ranks of an MPI job, in
// wall-clock time).
type Runtime interface {
	// Name is the runtime's name in records and in --runtime ("sim",
	// "mpi").
	Name() string
	// Supports returns nil if the runtime can run spec, or an error that
	// names the field it cannot run.
	Supports(spec Spec) error
	// Batch is the most specs Run takes at once.
	Batch() int
	// Run runs specs (at most Batch) and returns their records in the
	// order of specs. A process of the runtime that does not report (an
	// MPI rank other than 0) gets nil records. A run that ends with a
	// violation is a record, not an error: errors are bad input and the
	// runtime's own failures.
	Run(specs []Spec) ([]*results.Run, error)
}

// Simulator is the deterministic discrete-event simulator as a Runtime: all
// nodes in one process, in virtual time, one run at a time.
type Simulator struct{}

// Name returns "sim".
func (Simulator) Name() string { return "sim" }

// Supports accepts every valid spec: the simulator runs every experiment.
func (Simulator) Supports(Spec) error { return nil }

// Batch returns 1: the simulator runs one experiment at a time.
func (Simulator) Batch() int { return 1 }

// Run runs each spec in turn (Run).
func (Simulator) Run(specs []Spec) ([]*results.Run, error) {
	out := make([]*results.Run, len(specs))
	for k, s := range specs {
		r, err := Run(s)
		if err != nil {
			return nil, err
		}
		out[k] = r
	}
	return out, nil
}
