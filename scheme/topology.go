package scheme

import (
	"math/bits"

	"github.com/ocbench/ocbench/proto"
)

// Network is a physical network: which pairs of nodes a link joins. A
// Network is comparable (a struct of comparable fields), so that the rules
// made of it share their entry in the table of rules.
type Network interface {
	// Name names the network in the rule's name.
	Name() string
	// Link reports whether a physical link joins nodes a and b (a ≠ b).
	Link(a, b proto.NodeID) bool
	// SpanningFather returns the father of node i in a rooted spanning tree
	// of the n-node network made of its links (proto.Nil for the root,
	// which holds the token initially).
	SpanningFather(i proto.NodeID, n int) proto.NodeID
}

// Hypercube is the hypercube network: a link joins two nodes whose ids
// differ in one bit. Its spanning tree is the binomial tree rooted at
// node 0 (the initial open-cube), whose every edge is a link.
type Hypercube struct{}

// Name implements Network.
func (Hypercube) Name() string { return "hypercube" }

// Link implements Network.
func (Hypercube) Link(a, b proto.NodeID) bool { return bits.OnesCount32(uint32(a^b)) == 1 }

// SpanningFather implements Network.
func (Hypercube) SpanningFather(i proto.NodeID, _ int) proto.NodeID { return binomial(i) }

// Topology is RR-1692 §4.2's topology-aware rule: "upon receiving a message
// request(j), node i can be defined as transit if there exists a physical
// link between j and father_i; otherwise, it behaves as a proxy", so that
// father_i, which then gives the token to j, reaches j over one link (the
// report's Figure 4, "a possible short-cut"). The initial tree is a spanning
// tree of the network.
//
// Where the report is silent, ocbench decides:
//   - a node whose father is nil (the root, which then holds the token: it
//     serves no request while it lends it) has no father_i to test; it is
//     transit iff a link joins it to j, the link over which it sends the
//     token (proxy: it lends the token to j and gets it back);
//   - in case γ (the token arrives for a mandator) the report allows either
//     behaviour; the rule keeps the one it chose at the request, proxy (a
//     node is proxy for a mandator only when no link joined the mandator
//     and its father then), so the node becomes the lender if the token
//     came without one;
//   - the simulator's network is complete (every message takes one delay,
//     link or not): the rule changes which nodes the messages go between,
//     and the count of messages, not their delays.
type Topology struct{ Net Network }

// Name implements Rule: "topology-" and the network's name.
func (r Topology) Name() string { return "topology-" + r.Net.Name() }

// InitialFather implements Rule: the network's spanning tree.
func (r Topology) InitialFather(i proto.NodeID, n int) proto.NodeID {
	return r.Net.SpanningFather(i, n)
}

// OnRequest implements Rule.
func (r Topology) OnRequest(i *Node, j proto.NodeID) Behavior {
	f := i.Father
	if f == proto.Nil {
		f = i.ID
	}
	if f == j || r.Net.Link(j, f) {
		return Transit
	}
	return Proxy
}

// OnToken implements Rule: proxy, as at the request.
func (Topology) OnToken(*Node) Behavior { return Proxy }

// Gateway is RR-1692 §4.2's composition of networks: "two networks
// consisting of nodes j_1, …, j_a and i_1, …, i_b … two nodes of these
// networks act as gateways. If the gateways are defined as proxy each of
// them only needs to know the identity of the other gateway as far as it
// considers the other network." Network A is nodes 0 … A−1 with gateway 0,
// network B nodes A … n−1 with gateway A; each network is a star on its
// gateway, and B's gateway's father is A's, the initial root. The gateways
// are always proxy; the other nodes always transit (Naimi–Trehel's rule
// inside each network).
//
// Where the report is silent, ocbench decides: the networks' inner trees
// (stars) and inner rule (transit), which gateway is the initial root (A's),
// and the composition of two networks only. The report's claim holds for
// requests and fathers: a node's father stays in its own network, or is the
// other gateway for a gateway (a transit node sets its father to the
// requester, and requests from the other network reach it as its gateway's
// own). It does not hold for lenders: a proxy passes on the lender the token
// names (line (18)), so when the other network's gateway lends the token, a
// node of this network learns that gateway as its lender and returns the
// token to it directly (TestGatewayComposition shows the case).
type Gateway struct{ A uint16 }

// Name implements Rule.
func (Gateway) Name() string { return "gateway" }

// InitialFather implements Rule.
func (g Gateway) InitialFather(i proto.NodeID, n int) proto.NodeID {
	a := proto.NodeID(g.A)
	switch {
	case i == 0:
		return proto.Nil
	case i == a:
		return 0
	case i > a:
		return a
	}
	return 0
}

// Gateways returns the two gateways, A's and B's.
func (g Gateway) Gateways() (proto.NodeID, proto.NodeID) { return 0, proto.NodeID(g.A) }

// Side returns the network of node i: 0 for A, 1 for B.
func (g Gateway) Side(i proto.NodeID) int {
	if i >= proto.NodeID(g.A) {
		return 1
	}
	return 0
}

// OnRequest implements Rule.
func (g Gateway) OnRequest(i *Node, _ proto.NodeID) Behavior { return g.behavior(i) }

// OnToken implements Rule.
func (g Gateway) OnToken(i *Node) Behavior { return g.behavior(i) }

func (g Gateway) behavior(i *Node) Behavior {
	if i.ID == 0 || i.ID == proto.NodeID(g.A) {
		return Proxy
	}
	return Transit
}
