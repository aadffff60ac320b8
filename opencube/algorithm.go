package opencube

import (
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
)

// Algorithm is the open-cube algorithm as a proto.Algorithm.
type Algorithm struct{}

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "opencube" }

// OpenCube implements proto.Algorithm: the father relation stays an open-cube.
func (Algorithm) OpenCube() bool { return true }

// NewNodes implements proto.Algorithm. n must be a power of two.
func (Algorithm) NewNodes(n int) []proto.Node {
	p, _ := hypercube.Log2(n)
	return scheme.Algorithm{Rule: Rule{PMax: p}}.NewNodes(n)
}
