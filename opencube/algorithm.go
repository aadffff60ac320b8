package opencube

import (
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
)

// Algorithm is the open-cube algorithm as a proto.Algorithm. With FT nil
// the nodes run the failure-free algorithm of §3; with FT set they run the
// failure protocol of §5 as well, with those timing parameters.
type Algorithm struct {
	FT *Config
}

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "opencube" }

// NewNodes implements proto.Algorithm. n must be a power of two.
func (a Algorithm) NewNodes(n int) []proto.Node {
	p, _ := hypercube.Log2(n)
	rule := Rule{PMax: p}
	if a.FT == nil {
		return scheme.Algorithm{Rule: rule}.NewNodes(n)
	}
	nodes := make([]Node, n)
	out := make([]proto.Node, n)
	for i := range nodes {
		nd := &nodes[i]
		nd.core.Init(rule, proto.NodeID(i), n)
		nd.rule, nd.cfg, nd.up, nd.holder, nd.reattachFrom = rule, *a.FT, true, proto.Nil, proto.Nil
		out[i] = nd
	}
	return out
}
