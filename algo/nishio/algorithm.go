package nishio

import (
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Algorithm is Nishio, Li and Manning's algorithm. With FT nil the nodes
// run the failure-free algorithm (no timer); with FT set they run the
// failure protocol as well.
type Algorithm struct {
	FT *Config
}

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "nishio" }

// MemoryPerNode implements proto.MemoryEstimator: the request numbers at every node, and the token's, about 12 bytes
// per node of the system at each node (measured at N = 256..4096).
func (Algorithm) MemoryPerNode(n int) int64 { return 12*int64(n) + 128 }

// NewNodes implements proto.Algorithm: node 0 holds the token, of age 0.
func (a Algorithm) NewNodes(n int) []proto.Node {
	return nodecast.New(n, func(nd *Node, id proto.NodeID) {
		var ft *Config
		if a.FT != nil {
			c := *a.FT
			ft = &c
		}
		nd.init(id, n, ft)
	})
}

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.TokenBased }

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// Events implements proto.Algorithm.
func (Algorithm) Events() []string { return eventNames[:] }

// StatedCost implements proto.CostAlgorithm: N messages per critical
// section (survey, §4 and Table 1). The survey gives no figure for a
// request at the holder of the idle token (it costs 0 here, as in
// Suzuki–Kasami), so the mean measures a little below N.
func (Algorithm) StatedCost(n int) proto.Cost {
	return proto.Cost{Low: float64(n), High: float64(n), Text: "N", Source: "survey T1, §4", Kind: proto.Exact}
}

// WithFailures implements proto.FaultTolerantAlgorithm: the nodes with
// their time-outs, TOKEN_MISSING rounds and token ages.
func (Algorithm) WithFailures(f proto.Failures) proto.Algorithm {
	return Algorithm{FT: &Config{CSEstimate: f.CSEstimate}}
}

// FaultModel implements proto.FaultTolerantAlgorithm.
func (Algorithm) FaultModel() proto.FaultModel {
	return proto.FaultModel{AllRecover: true, Text: "crashes at any time, several at once, every crashed node recovers " +
		"(a regeneration needs the N−1 others' ACKs); the controller's counters survive a crash"}
}
