// Package opencube implements the open-cube mutual-exclusion algorithm of
// Hélary and Mostefaoui (1994): the behaviour rule that makes the general
// token-and-tree scheme keep an open-cube (§3), and the failure protocol that
// tolerates node crashes (§5).
package opencube

import (
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
)

// Rule is the open-cube behaviour rule: node i is transit for request(j) iff
// the request came through its last son, which the paper tests as
// dist_i(j) = dist_i(father_i) − 1 (with the root's power pmax). A request
// from a node j with dist_i(j) > power(i) cannot come from a son in an
// open-cube: that is the §5 anomaly, and i rejects it.
type Rule struct {
	PMax int // log2 N, the power of the root
}

// Name implements scheme.Rule.
func (Rule) Name() string { return "opencube" }

// InitialFather implements scheme.Rule: the initial open-cube (node 0 is the
// root; the father of i is i with its lowest set bit cleared).
func (Rule) InitialFather(i proto.NodeID, n int) proto.NodeID {
	return proto.NodeID(hypercube.Father(int(i)))
}

// Power returns the power of node n: dist(n, father) − 1, or pmax at the root
// (Proposition 2.1).
func (r Rule) Power(n *scheme.Node) int {
	return hypercube.PowerWith(int(n.ID), int(n.Father), r.PMax)
}

// OnRequest implements scheme.Rule.
func (r Rule) OnRequest(n *scheme.Node, j proto.NodeID) scheme.Behavior {
	d, p := hypercube.Dist(int(n.ID), int(j)), r.Power(n)
	switch {
	case d == p:
		return scheme.Transit
	case d > p:
		return scheme.Reject
	}
	return scheme.Proxy
}

// OnToken implements scheme.Rule: a node that was proxy for its mandator
// stays proxy when the token arrives (the paper's token handler).
func (Rule) OnToken(*scheme.Node) scheme.Behavior { return scheme.Proxy }
