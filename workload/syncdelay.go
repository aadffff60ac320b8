package workload

import "github.com/ocbench/ocbench/proto"

// SyncDelay measures the synchronization delay: the time from a node's exit
// from the critical section, at a moment when another request was waiting
// for it, to the next entry into the critical section by any node. An exit
// with no request waiting, and a stay ended by a crash, give no sample (the
// time to the next entry is then think time or recovery, not hand-over).
// Both runtimes measure with it: the simulator as the run goes, an MPI job
// on rank 0 from every rank's stays sorted by entry (SyncDelaysOf).
type SyncDelay struct {
	out     float64
	armed   bool
	samples []float64
}

// Entered records an entry into the critical section at time at.
func (s *SyncDelay) Entered(at float64) {
	if s.armed {
		s.samples = append(s.samples, at-s.out)
		s.armed = false
	}
}

// Left records the end of a stay in the critical section at time at;
// waiting says whether another request was waiting then (false for a stay
// ended by a crash).
func (s *SyncDelay) Left(at float64, waiting bool) {
	s.out, s.armed = at, waiting
}

// Samples returns the delays measured, in the unit of the times given.
func (s *SyncDelay) Samples() []float64 { return s.samples }

// Stay is one stay of a node in the critical section: when its request was
// issued, when it entered and when it left (Crashed: the stay ended with a
// crash of the node, not an exit). Times are in seconds.
type Stay struct {
	Node    proto.NodeID `json:"n"`
	Issued  float64      `json:"i"`
	Enter   float64      `json:"e"`
	Out     float64      `json:"o"`
	Crashed bool         `json:"c,omitempty"`
	// Units is the units the stay used (k-exclusion: View.Units).
	Units int `json:"u,omitempty"`
	// Key orders entries at equal times as the run does (sim.Mark).
	Key uint64 `json:"k,omitempty"`
}

// SyncDelaysOf measures the synchronization delays of a run from all its
// stays, sorted by entry time: a request was waiting at the end of stay k
// if a later stay's request was issued before that end.
func SyncDelaysOf(stays []Stay) []float64 {
	// minIssued[k]: the earliest issue time among stays k, k+1, ….
	minIssued := make([]float64, len(stays)+1)
	for k := len(stays) - 1; k >= 0; k-- {
		minIssued[k] = stays[k].Issued
		if k+1 < len(stays) && minIssued[k+1] < minIssued[k] {
			minIssued[k] = minIssued[k+1]
		}
	}
	var s SyncDelay
	for k, st := range stays {
		s.Entered(st.Enter)
		s.Left(st.Out, !st.Crashed && k+1 < len(stays) && minIssued[k+1] < st.Out)
	}
	return s.Samples()
}
