// Package nodecast reads a proto.System's nodes as one algorithm's node
// type: what every algorithm's invariants do first. It is not an algorithm.
package nodecast

import (
	"fmt"

	"github.com/ocbench/ocbench/proto"
)

// All returns the nodes of s as T. It panics if a node is not a T: the
// check was given another algorithm's system, a programming error.
func All[T any](s proto.System) []T {
	ns := s.Nodes()
	out := make([]T, len(ns))
	for i, nd := range ns {
		out[i] = nd.(T)
	}
	return out
}

// Checked returns the nodes of s read by as, or an error naming the first
// node as does not read: "node i is a <type>, not a <what> node".
func Checked[T any](s proto.System, what string, as func(proto.Node) (T, bool)) ([]T, error) {
	return Into(nil, s, what, as)
}

// Into is Checked into dst's array when it holds the nodes (a checker
// that keeps its buffer from one check to the next).
func Into[T any](dst []T, s proto.System, what string, as func(proto.Node) (T, bool)) ([]T, error) {
	ns := s.Nodes()
	out := dst[:0]
	if cap(dst) < len(ns) {
		out = make([]T, len(ns))
	}
	out = out[:len(ns)]
	for i, p := range ns {
		nd, ok := as(p)
		if !ok {
			return nil, fmt.Errorf("node %d is a %T, not a %s node", i, p, what)
		}
		out[i] = nd
	}
	return out, nil
}

// Is reads p as a T: the as of Checked for an algorithm whose nodes are
// its own node type.
func Is[T any](p proto.Node) (T, bool) {
	nd, ok := p.(T)
	return nd, ok
}

// New returns n nodes of type T, allocated together, node i set up by
// init(&nodes[i], i): an algorithm's NewNodes.
func New[T any, P interface {
	*T
	proto.Node
}](n int, init func(nd P, id proto.NodeID)) []proto.Node {
	nodes := make([]T, n)
	out := make([]proto.Node, n)
	for i := range nodes {
		p := P(&nodes[i])
		init(p, proto.NodeID(i))
		out[i] = p
	}
	return out
}
