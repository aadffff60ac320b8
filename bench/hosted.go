package bench

import (
	"math"

	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/workload"
)

// This file exports what another runtime (the MPI runtime of package rank)
// needs to run the same experiment as the simulator: the nodes, the fault
// plan, the workload's random choices and the timing constants.

// Normalized returns s with the defaults of zero fields filled in, or the
// *field.Error naming its first bad field.
func (s Spec) Normalized() (Spec, error) {
	s.fill()
	return s, s.Validate()
}

// newArray returns algo's n nodes and, for an algorithm whose nodes have
// one (proto.ArrayAlgorithm), the NodeArray that steps them.
func newArray(algo proto.Algorithm, n int) ([]proto.Node, proto.NodeArray) {
	if a, ok := algo.(proto.ArrayAlgorithm); ok {
		return a.NewArray(n)
	}
	return algo.NewNodes(n), nil
}

// WorkloadEnd is the time, in seconds, until which a run with crashes keeps
// issuing requests: the end of the last downtime of the plan, plus Settle.
// It is 0 without crashes.
func WorkloadEnd(s Spec, plan []faults.Fault) float64 {
	until := 0.0
	for _, f := range plan {
		until = math.Max(until, math.Max(f.At, f.Up)+Settle(s))
	}
	return until
}

// Duration estimates how long a run of s (filled) with the fault plan plan
// lasts, in seconds of its clock: until the end of the plan, or the time
// its workload needs if longer. A poisson workload's node issues its share
// of the requests (N × share ≥ Requests), each after a think time and a
// critical section; the other workloads serve the requests one critical
// section after another, the sequential one with a few message delays
// between them. The MPI runtime's runs last as long in wall-clock time.
func Duration(s Spec, plan []faults.Fault) float64 {
	end := WorkloadEnd(s, plan)
	var work float64
	switch s.Workload {
	case workload.Poisson:
		share := (s.Requests + int64(s.Nodes) - 1) / int64(s.Nodes)
		work = float64(share) * (s.Think + s.CSTime) * s.Delta
	case workload.Sequential:
		work = float64(s.Requests) * (s.CSTime + 2) * s.Delta
	default:
		work = float64(s.Requests) * s.CSTime * s.Delta
	}
	return max(end, work) + Settle(s)
}
