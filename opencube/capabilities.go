package opencube

import "fmt"

// Reference implements algo.ReferenceAlgorithm: the open-cube is the
// algorithm ocbench reproduces, and its paper's iPSC/2 figures are its
// own.
func (Algorithm) Reference() bool { return true }

// Protocols implements algo.ProtocolAlgorithm: beside the project's
// failure protocol (docs/failures.md), "paper" runs §5 as written with the
// tie-break's stated outcome, "paper-mechanism" with its example's
// mechanism.
func (Algorithm) Protocols() []string { return []string{ProtocolPaper, ProtocolPaperMechanism} }

// DescribeProtocol implements algo.ProtocolAlgorithm.
func (Algorithm) DescribeProtocol(name string, e float64) string {
	switch name {
	case ProtocolPaper:
		return fmt.Sprintf("failure protocol: paper (§5 as written: suspicion 2·pmax·δ after asking, regeneration at once, no generations; equal phases: the larger id concludes father := the smaller, the tie-break's stated outcome), root's CS estimate e = %gδ (docs/failures.md)", e)
	case ProtocolPaperMechanism:
		return fmt.Sprintf("failure protocol: paper-mechanism (§5 as written: suspicion 2·pmax·δ after asking, regeneration at once, no generations; equal phases: the larger id stays silent, the mechanism of the tie-break's example), root's CS estimate e = %gδ (docs/failures.md)", e)
	}
	return fmt.Sprintf("failure protocol: ocbench (requesters watch the holders of their requests: heartbeats after 2·pmax·δ, then gaps that double; regeneration confirmed by a broadcast), root's CS estimate e = %gδ (docs/failures.md)", e)
}

// DetectsFailures implements algo.DetectorAlgorithm: the failure
// protocol's detector suspects a node only when it heard nothing of its
// request in time, and a suspicion of a live node is an error.
func (Algorithm) DetectsFailures() bool { return true }
