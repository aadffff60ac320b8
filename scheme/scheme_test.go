package scheme

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// pathRule is the setting of RR-1692's §2.1 example: a path 8→7→…→1 (node 1
// is the root and holds the token), nodes 3, 5 and 6 permanently proxy, the
// others permanently transit. Ids are 0-based (paper node k is id k−1).
type pathRule struct{ proxy map[proto.NodeID]bool }

func (pathRule) Name() string { return "rr1692-example" }
func (pathRule) InitialFather(i proto.NodeID, n int) proto.NodeID {
	if i == 0 {
		return proto.Nil
	}
	return i - 1
}
func (r pathRule) OnRequest(n *Node, _ proto.NodeID) Behavior { return r.OnToken(n) }
func (r pathRule) OnToken(n *Node) Behavior {
	if r.proxy[n.ID] {
		return Proxy
	}
	return Transit
}

// TestRR1692Example replays the worked example of RR-1692 §2.1 message by
// message: node 8 requests; 12 messages; node 3 becomes the root.
func TestRR1692Example(t *testing.T) {
	rule := pathRule{proxy: map[proto.NodeID]bool{2: true, 4: true, 5: true}}
	a := Algorithm{Rule: rule}
	net := &steptest.Net{T: t, Types: messageTypes, Base: 1, Nodes: a.NewNodes(8), Invariants: a.Invariants(false)}

	net.Enter(8, "request(8) 8→7")
	net.Deliver("request(8) 8→7", "request(8) 7→6")
	net.Deliver("request(8) 7→6", "request(6) 6→5")
	net.Deliver("request(6) 6→5", "request(5) 5→4")
	net.Deliver("request(5) 5→4", "request(5) 4→3")
	net.Deliver("request(5) 4→3", "request(3) 3→2")
	net.Deliver("request(3) 3→2", "request(3) 2→1")
	net.Deliver("request(3) 2→1", "token(nil) 1→3")
	net.Deliver("token(nil) 1→3", "token(3) 3→5")
	net.Deliver("token(3) 3→5", "token(3) 5→6")
	net.Deliver("token(3) 5→6", "token(3) 6→8")
	net.Deliver("token(3) 6→8")
	net.InCS(8)
	net.Exit(8, "token(nil) 8→3")
	net.Deliver("token(nil) 8→3")
	if net.Sent != 12 {
		t.Errorf("the claim of node 8 took %d messages, the report counts 12", net.Sent)
	}

	// The final situation (RR-1692 Figure 3): fathers, mandators, the token.
	wantFather := []proto.NodeID{3, 3, 0, 5, 3, 5, 8, 6} // paper numbering, 0 = nil
	for i, f := range net.Fathers(FatherOf) {
		if f != wantFather[i] {
			t.Errorf("father of node %d = %d, want %d", i+1, f, wantFather[i])
		}
	}
	for i, nd := range net.Nodes {
		v, tr := nd.View(), nd.(TreeNode).Tree()
		if v.Asked || tr.Mandator != proto.Nil || v.TokenHere != (i == 2) {
			t.Errorf("node %d ends with asked=%v mandator=%d token_here=%v", i+1, v.Asked, tr.Mandator, v.TokenHere)
		}
	}
	if l := net.Nodes[2].(TreeNode).Tree().Lender; l != 2 {
		t.Errorf("lender of the new root 3 = %d, want itself", l+1)
	}
}

// TestRulesOnePath checks each instance's behaviour on one request that
// crosses the initial tree of 8 nodes from node 8 (id 7).
func TestRulesOnePath(t *testing.T) {
	cases := []struct {
		rule Rule
		msgs int
	}{
		// star: request 8→1, token(1) 1→8 (lend), token(nil) 8→1 back.
		{Centralized{}, 3},
		// star, transit: request 8→1, token(nil) 1→8; 8 keeps the token.
		{NaimiTrehel{}, 2},
		// binomial path 8→7→5→1 (1-based): 3 requests up, 3 tokens down.
		{Raymond{}, 6},
	}
	for _, c := range cases {
		t.Run(c.rule.Name(), func(t *testing.T) {
			nodes := Algorithm{Rule: c.rule}.NewNodes(8)
			var out proto.Output
			pending := []proto.Message{}
			step := func(id proto.NodeID, in proto.Input) {
				out.Reset()
				nodes[id].Step(in, &out)
				pending = append(pending, out.Msgs...)
			}
			sent := 0
			step(7, proto.Input{Kind: proto.EnterCS, Tag: 1})
			for !nodes[7].View().InCS {
				if len(pending) == 0 {
					t.Fatal("no message in flight and node 8 is not in the CS")
				}
				m := pending[0]
				pending = pending[1:]
				sent++
				step(m.To, proto.Input{Kind: proto.Receive, Msg: m})
			}
			step(7, proto.Input{Kind: proto.ExitCS})
			for len(pending) > 0 {
				m := pending[0]
				pending = pending[1:]
				sent++
				step(m.To, proto.Input{Kind: proto.Receive, Msg: m})
			}
			if sent != c.msgs {
				t.Errorf("%s: %d messages, want %d", c.rule.Name(), sent, c.msgs)
			}
		})
	}
}

// TestSupersede: Supersede drops the queued own requests of one requester
// with smaller serials, keeps the rest in order (others' requests, and
// requests j makes as a proxy), and says whether a larger one is queued.
func TestSupersede(t *testing.T) {
	cases := []struct {
		name     string
		queue    [][3]uint32 // requester, source, serial
		tag      uint32
		drop     int
		obsolete bool
		left     []proto.NodeID
	}{
		{"none queued", nil, 5, 0, false, nil},
		{"other requesters kept", [][3]uint32{{2, 2, 1}, {3, 3, 2}}, 5, 0, false, []proto.NodeID{2, 3}},
		{"same serial kept", [][3]uint32{{1, 1, 5}}, 5, 0, false, []proto.NodeID{1}},
		{"smaller serial dropped", [][3]uint32{{2, 2, 1}, {1, 1, 4}, {3, 3, 2}}, 5, 1, false, []proto.NodeID{2, 3}},
		{"larger serial queued: obsolete", [][3]uint32{{1, 1, 9}}, 5, 0, true, []proto.NodeID{1}},
		{"proxy requests kept", [][3]uint32{{1, 3, 4}}, 5, 0, false, []proto.NodeID{1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var n Node
			n.Init(pathRule{}, 0, 4)
			for _, e := range c.queue {
				n.EnqueueFrom(proto.NodeID(e[0]), proto.NodeID(e[0]), proto.NodeID(e[1]), e[2])
			}
			drop, obsolete := n.Supersede(1, c.tag)
			if drop != c.drop || obsolete != c.obsolete {
				t.Fatalf("dropped %d, obsolete %v; want %d, %v", drop, obsolete, c.drop, c.obsolete)
			}
			var left []proto.NodeID
			n.Waiting(func(j proto.NodeID) { left = append(left, j) })
			if fmt.Sprint(left) != fmt.Sprint(c.left) {
				t.Fatalf("left %v, want %v", left, c.left)
			}
		})
	}
}

// TestRemove: Remove takes one request (requester and serial) out of the
// queue, wherever it is, keeps the others in order, and returns where it
// came from and its source.
func TestRemove(t *testing.T) {
	queue := [][4]uint32{{2, 6, 2, 1}, {1, 5, 3, 4}, {3, 3, 3, 2}, {1, 1, 1, 7}} // requester, from, source, serial
	cases := []struct {
		name      string
		j         proto.NodeID
		tag       uint32
		ok        bool
		from, src proto.NodeID
		left      string
	}{
		{"head", 2, 1, true, 6, 2, "[1 3 1]"},
		{"middle", 1, 4, true, 5, 3, "[2 3 1]"},
		{"tail", 1, 7, true, 1, 1, "[2 1 3]"},
		{"other serial", 1, 5, false, proto.Nil, proto.Nil, "[2 1 3 1]"},
		{"other requester", 0, 4, false, proto.Nil, proto.Nil, "[2 1 3 1]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var n Node
			n.Init(pathRule{}, 0, 8)
			for _, e := range queue {
				n.EnqueueFrom(proto.NodeID(e[0]), proto.NodeID(e[1]), proto.NodeID(e[2]), e[3])
			}
			from, src, ok := n.Remove(c.j, c.tag)
			if ok != c.ok || (ok && (from != c.from || src != c.src)) {
				t.Fatalf("Remove(%d, %d) = %d, %d, %v; want %d, %d, %v", c.j, c.tag, from, src, ok, c.from, c.src, c.ok)
			}
			var left []proto.NodeID
			n.Waiting(func(j proto.NodeID) { left = append(left, j) })
			if fmt.Sprint(left) != c.left || n.Queued() != len(left) {
				t.Fatalf("left %v (%d queued), want %s", left, n.Queued(), c.left)
			}
		})
	}
}

func TestNodeSize(t *testing.T) {
	if s := unsafe.Sizeof(Node{}); s != 64 {
		t.Errorf("scheme.Node is %d bytes, want 64 (one cache line)", s)
	}
}

// TestProperties: Properties (RR-1692 §3.2) holds on the initial tree and
// fires, naming the property, on a state that breaks each one.
func TestProperties(t *testing.T) {
	tok := func(from, to proto.NodeID) proto.Message {
		return proto.Message{Type: Token, From: from, To: to, J: proto.RefTo(proto.Nil)}
	}
	cases := []struct {
		name   string
		change func(ns []*Node)
		msgs   []proto.Message
		want   string
	}{
		{name: "initial tree"},
		{name: "token in flight to an asking node", change: func(ns []*Node) {
			ns[0].TokenHere, ns[0].Lender, ns[0].Father = false, proto.Nil, 3
			ns[3].Asked, ns[3].Mandator = true, 3
		}, msgs: []proto.Message{tok(0, 3)}},
		{name: "1: token in flight to an idle node", change: func(ns []*Node) {
			ns[0].TokenHere, ns[0].Lender, ns[0].Father = false, proto.Nil, 3
		}, msgs: []proto.Message{tok(0, 3)}, want: "property 1"},
		{name: "2: two lenders", change: func(ns []*Node) { ns[2].Lender, ns[2].Asked = 2, true }, want: "property 2: nodes 0 and 2"},
		{name: "2: lender with a father", change: func(ns []*Node) { ns[0].Father, ns[0].Asked = 1, true }, want: "property 2: node 0"},
		{name: "2: lender with a mandator", change: func(ns []*Node) { ns[0].Mandator, ns[0].Asked = 1, true }, want: "property 2: node 0"},
		{name: "3 (i): idle holder with a father", change: func(ns []*Node) {
			ns[0].Lender = proto.Nil
			ns[0].Father = 1
		}, want: "property 3 (i)"},
		{name: "3 (ii): idle root without the token", change: func(ns []*Node) {
			ns[0].TokenHere = false
		}, want: "property 3 (ii)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nodes := Algorithm{Rule: Raymond{}}.NewNodes(4)
			ns := make([]*Node, len(nodes))
			for i, nd := range nodes {
				ns[i] = nd.(*Node)
			}
			if c.change != nil {
				c.change(ns)
			}
			err := Properties(steptest.System(nodes, c.msgs))
			switch {
			case c.want == "" && err != nil:
				t.Errorf("want no violation, got %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestLiftPolicy replays a small case of RR-1692 §4.1's lift policy on
// Raymond's rule over the binomial tree of 8 nodes (0-based: 5→4, 6→4,
// 4→0, token at 0). Node 5 asks, so node 4 is busy as its proxy when
// node 6's request and then node 4's own enter_cs arrive. FIFO serves 6
// first; the lift policy puts 4's own request at the head of its queue, so
// 4 enters the critical section before 6. The Properties and the a_tree
// check run after every step.
func TestLiftPolicy(t *testing.T) {
	for _, lift := range []bool{false, true} {
		a := Algorithm{Rule: Raymond{}, Lift: lift}
		t.Run(a.Name(), func(t *testing.T) {
			net := &steptest.Net{T: t, Types: messageTypes, Nodes: a.NewNodes(8), Invariants: a.Invariants(false)}
			net.Enter(5, "request(5) 5→4")
			net.Deliver("request(5) 5→4", "request(4) 4→0")
			net.Enter(6, "request(6) 6→4")
			net.Deliver("request(6) 6→4") // 4 is busy: it waits
			net.Enter(4)                  // 4 is busy: it waits too
			var waiting []proto.NodeID
			net.Nodes[4].Waiting(func(j proto.NodeID) { waiting = append(waiting, j) })
			want := "[6 4]"
			if lift {
				want = "[4 6]"
			}
			if fmt.Sprint(waiting) != want {
				t.Fatalf("node 4's queue %v, want %s", waiting, want)
			}
			net.Deliver("request(4) 4→0", "token(nil) 0→4")
			// 4 gives the token to its mandator 5 and serves the head of
			// its queue: a request to its new father 5, as 6's proxy (FIFO)
			// or for itself (lift).
			net.Deliver("token(nil) 0→4", "token(nil) 4→5", "request(4) 4→5")
			mandator := proto.NodeID(6)
			if lift {
				mandator = 4
			}
			if m := net.Nodes[4].(TreeNode).Tree().Mandator; m != mandator {
				t.Fatalf("mandator of node 4 = %d, want %d", m, mandator)
			}
			net.Deliver("token(nil) 4→5")
			net.InCS(5)
			net.Deliver("request(4) 4→5") // 5 is in the critical section
			net.Exit(5, "token(nil) 5→4")
			if !lift {
				net.Deliver("token(nil) 5→4", "token(nil) 4→6", "request(4) 4→6")
				net.Deliver("token(nil) 4→6")
				net.InCS(6)
				return
			}
			net.Deliver("token(nil) 5→4")
			net.InCS(4)
			net.Exit(4, "token(nil) 4→6")
			net.Deliver("token(nil) 4→6")
			net.InCS(6)
		})
	}
}
