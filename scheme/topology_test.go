package scheme

import (
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// links is a small physical network for the tests: the links listed, on
// the path tree 2→1→0 (node 0 the root).
type links struct{ ab [4][4]bool }

func newLinks(pairs ...[2]proto.NodeID) links {
	var l links
	for _, p := range pairs {
		l.ab[p[0]][p[1]], l.ab[p[1]][p[0]] = true, true
	}
	return l
}

func (links) Name() string                  { return "test" }
func (l links) Link(a, b proto.NodeID) bool { return l.ab[a][b] }
func (links) SpanningFather(i proto.NodeID, _ int) proto.NodeID {
	if i == 0 {
		return proto.Nil
	}
	return i - 1
}

// TestTopologyShortcut replays the case of RR-1692's Figure 4 ("a possible
// short-cut") on the path 2→1→0: node 2 asks. When a link joins 2 and 0,
// node 1 is transit (a link joins the requester and its father): the
// request goes on, and node 0 gives the token to 2 over that link, 3
// messages, and 2 becomes the root. On the bare path node 1 is proxy: it
// gets the token from 0, lends it to 2 and gets it back, 5 messages.
func TestTopologyShortcut(t *testing.T) {
	cases := []struct {
		name  string
		net   links
		steps [][]string // message delivered, then messages it makes
		exit  []string
		sent  int
		root  proto.NodeID
	}{
		{"triangle", newLinks([2]proto.NodeID{0, 1}, [2]proto.NodeID{1, 2}, [2]proto.NodeID{0, 2}),
			[][]string{{"request(2) 2→1", "request(2) 1→0"}, {"request(2) 1→0", "token(nil) 0→2"}, {"token(nil) 0→2"}},
			nil, 3, 2},
		{"path", newLinks([2]proto.NodeID{0, 1}, [2]proto.NodeID{1, 2}),
			[][]string{{"request(2) 2→1", "request(1) 1→0"}, {"request(1) 1→0", "token(nil) 0→1"}, {"token(nil) 0→1", "token(1) 1→2"}, {"token(1) 1→2"}},
			[]string{"token(nil) 2→1"}, 5, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := Algorithm{Rule: Topology{Net: c.net}}
			net := &steptest.Net{T: t, Types: messageTypes, Nodes: a.NewNodes(3), Invariants: a.Invariants(false)}
			net.Enter(2, "request(2) 2→1")
			for _, s := range c.steps {
				net.Deliver(s[0], s[1:]...)
			}
			net.InCS(2)
			net.Exit(2, c.exit...)
			for _, m := range c.exit {
				net.Deliver(m)
			}
			if net.Sent != c.sent {
				t.Errorf("%d messages, want %d", net.Sent, c.sent)
			}
			for i, nd := range net.Nodes {
				if f := FatherOf(nd); (f == proto.Nil) != (proto.NodeID(i) == c.root) {
					t.Errorf("node %d's father %d; want the root to be %d", i, f, c.root)
				}
			}
		})
	}
}

// TestTopologyHypercube: on the hypercube, the rule is transit exactly
// when a link joins the requester and the node's father (or the node
// itself, at the root).
func TestTopologyHypercube(t *testing.T) {
	r := Topology{Net: Hypercube{}}
	cases := []struct {
		father, j proto.NodeID
		want      Behavior
	}{
		{0, 1, Transit},         // 1 and 0 differ in one bit
		{0, 3, Proxy},           // 3 and 0 differ in two
		{4, 5, Transit},         // 5 and 4
		{4, 7, Proxy},           // 7 and 4 differ in two
		{proto.Nil, 2, Transit}, // the root, 6: 6 and 2 differ in one bit
		{proto.Nil, 1, Proxy},   // the root, 6: 6 and 1 differ in three
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.father, c.j), func(t *testing.T) {
			n := &Node{ID: 6, Father: c.father}
			if got := r.OnRequest(n, c.j); got != c.want {
				t.Errorf("father %d, request(%d): %d, want %d", c.father, c.j, got, c.want)
			}
		})
	}
	for i := proto.NodeID(1); i < 16; i++ {
		if f := r.InitialFather(i, 16); !(Hypercube{}).Link(i, f) {
			t.Errorf("initial father of %d is %d, not a neighbour", i, f)
		}
	}
}

// TestGatewayComposition: networks A = {0, 1} and B = {2, 3}, gateways 0
// and 2 (always proxy), the others transit. Node 3 of B asks: its request
// reaches A as gateway 2's own, gateway 0 lends the token to 2, which
// passes it to 3 with the lender 0 (line (18)); 3 returns it to 0
// directly, across the networks. After every step, every node's father is
// in its own network, or is the other gateway for a gateway.
func TestGatewayComposition(t *testing.T) {
	g := Gateway{A: 2}
	a := Algorithm{Rule: g}
	fathers := proto.Invariant{Name: "fathers in the network", When: proto.EveryStep, Check: func(s proto.System) error {
		ga, gb := g.Gateways()
		for i, nd := range s.Nodes() {
			id, f := proto.NodeID(i), FatherOf(nd)
			gw := id == ga || id == gb
			if f != proto.Nil && g.Side(f) != g.Side(id) && !(gw && (f == ga || f == gb)) {
				return fmt.Errorf("node %d's father %d is in the other network", id, f)
			}
		}
		return nil
	}}
	net := &steptest.Net{T: t, Types: messageTypes, Nodes: a.NewNodes(4), Invariants: append(a.Invariants(false), fathers)}
	net.Enter(3, "request(3) 3→2")
	net.Deliver("request(3) 3→2", "request(2) 2→0")
	net.Deliver("request(2) 2→0", "token(0) 0→2")
	net.Deliver("token(0) 0→2", "token(0) 2→3")
	net.Deliver("token(0) 2→3")
	net.InCS(3)
	if l := net.Nodes[3].(TreeNode).Tree().Lender; l != 0 {
		t.Errorf("node 3's lender is %d, want the other network's gateway 0", l)
	}
	net.Exit(3, "token(nil) 3→0")
	net.Deliver("token(nil) 3→0")
	net.Enter(1, "request(1) 1→0")
	net.Deliver("request(1) 1→0", "token(0) 0→1")
	net.Deliver("token(0) 0→1")
	net.InCS(1)
	net.Exit(1, "token(nil) 1→0")
	net.Deliver("token(nil) 1→0")
	if net.Sent != 8 {
		t.Errorf("%d messages, want 8", net.Sent)
	}
}
