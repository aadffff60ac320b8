package naimitrehelft

import (
	"math"
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

func newNet(t *testing.T, n int, ft bool) *steptest.Net {
	a := Algorithm{}
	if ft {
		a.FT = &Config{CSEstimate: 1}
	}
	return &steptest.Net{T: t, Types: messageTypes, Base: 1, Nodes: a.NewNodes(n)}
}

// node returns node id (1-based) of net.
func node(net *steptest.Net, id proto.NodeID) *Node { return net.Nodes[id-1].(*Node) }

// lasts returns every node's LAST, 1-based.
func lasts(net *steptest.Net) []proto.NodeID {
	var out []proto.NodeID
	for _, nd := range net.Nodes {
		out = append(out, nd.(*Node).last+1)
	}
	return out
}

// tokens counts the tokens held and in flight.
func tokens(net *steptest.Net) int {
	c := 0
	for _, nd := range net.Nodes {
		if nd.View().TokenHere {
			c++
		}
	}
	for _, m := range net.Pending {
		if m.Type == Token {
			c++
		}
	}
	return c
}

// each returns the messages of a broadcast of type name by from to every
// other node of 1..n.
func each(name string, from proto.NodeID, n int) []string {
	var out []string
	for k := proto.NodeID(1); k <= proto.NodeID(n); k++ {
		if k != from {
			out = append(out, (&steptest.Net{Base: 1, Types: messageTypes}).Msg(proto.Message{Type: typeNamed(name), J: proto.RefTo(from - 1), From: from - 1, To: k - 1}))
		}
	}
	return out
}

func typeNamed(name string) proto.MsgType {
	for k, t := range messageTypes {
		if t.Name == name {
			return proto.MsgType(k)
		}
	}
	panic(name)
}

// TestQueueExample: 4 nodes (paper numbering; node 1 holds the token, every
// LAST is 1). Node 2 asks and gets the token from the idle root; node 3's
// request goes 3→1→2 (LAST_1 = 2), and node 2, in the critical section,
// makes 3 its NEXT; node 4's goes 4→1→3. The token follows NEXT: 2, 3, 4.
func TestQueueExample(t *testing.T) {
	net := newNet(t, 4, false)
	net.Enter(2, "request(2) 2→1")
	net.Deliver("request(2) 2→1", "token() 1→2")
	net.Enter(3, "request(3) 3→1")
	net.Deliver("request(3) 3→1", "request(3) 1→2") // LAST_1 = 2; LAST_1 := 3
	net.Deliver("token() 1→2")
	net.InCS(2)
	net.Deliver("request(3) 1→2") // 2 is the root: NEXT_2 := 3, LAST_2 := 3
	net.Enter(4, "request(4) 4→1")
	net.Deliver("request(4) 4→1", "request(4) 1→3")
	net.Deliver("request(4) 1→3") // 3 asks and is the root: NEXT_3 := 4
	if got := lasts(net); got[0] != 4 || got[1] != 3 || got[2] != 4 || got[3] != 4 {
		t.Fatalf("LAST = %v, want [4 3 4 4]", got)
	}
	net.Exit(2, "token() 2→3")
	net.Deliver("token() 2→3")
	net.InCS(3)
	net.Exit(3, "token() 3→4")
	net.Deliver("token() 3→4")
	net.InCS(4)
	net.Exit(4)
	net.Enter(4) // the idle token at hand: no message
	net.InCS(4)
	if net.Sent != 8 {
		t.Errorf("%d messages, want 8 (3 requests, 2 forwarded, 3 tokens)", net.Sent)
	}
}

// TestLostTokenRegeneration: node 2 is in the critical section with NEXT_2
// = 3, and NEXT_3 = 4; node 2 crashes with the token. Node 4 suspects
// first: its consult finds node 3 (NEXT_3 = 4), and it waits again. Node
// 3's consult and query find nothing; it becomes a candidate, node 1 and
// node 4 become observers, and no smaller candidate appears: node 3
// regenerates the token (generation 1), is the root, and enters; every
// node sets LAST := 3, and node 4 sends its request again to 3. The
// recovered node 2 discards the token for its quiet window.
func TestLostTokenRegeneration(t *testing.T) {
	net := newNet(t, 4, true)
	net.Enter(2, "request(2) 2→1")
	net.Deliver("request(2) 2→1", "token() 1→2")
	net.Deliver("token() 1→2")
	net.InCS(2)
	net.Enter(3, "request(3) 3→1")
	net.Deliver("request(3) 3→1", "request(3) 1→2")
	net.Deliver("request(3) 1→2")
	net.Enter(4, "request(4) 4→1")
	net.Deliver("request(4) 4→1", "request(4) 1→3")
	net.Deliver("request(4) 1→3")
	net.Input(2, proto.Crash)
	if tokens(net) != 0 {
		t.Fatal("the token survived its holder's crash")
	}

	net.Fire(4, timerState, each("consult", 4, 4)...)
	net.Deliver("consult(4) 4→1")
	net.Deliver("consult(4) 4→2") // down: no answer
	net.Deliver("consult(4) 4→3", "consult_ack(3) 3→4")
	net.Deliver("consult_ack(3) 3→4")
	if st := node(net, 4).st; st != waiting {
		t.Fatalf("node 4 after the consult's answer: %s, want waiting", st)
	}

	net.Fire(3, timerState, each("consult", 3, 4)...)
	for _, k := range []string{"1", "2", "4"} {
		net.Deliver("consult(3) 3→" + k)
	}
	net.Fire(3, timerState, each("query", 3, 4)...)
	for _, k := range []string{"1", "2", "4"} {
		net.Deliver("query(3) 3→" + k)
	}
	net.Fire(3, timerState, each("election", 3, 4)...)
	for _, k := range []string{"1", "2", "4"} {
		net.Deliver("election(3) 3→" + k)
	}
	if node(net, 1).st != observer || node(net, 4).st != observer {
		t.Fatalf("nodes 1 and 4 are %s and %s, want observers", node(net, 1).st, node(net, 4).st)
	}
	net.Fire(3, timerState, each("elected", 3, 4)...)
	net.InCS(3)
	if n3 := node(net, 3); n3.gen != 1 || n3.last != 2 || n3.next != proto.Nil || tokens(net) != 1 {
		t.Fatalf("node 3 after its election: generation %d, LAST %d, NEXT %d, %d tokens; want 1, itself, none, 1", n3.gen, n3.last+1, n3.next+1, tokens(net))
	}
	if net.Out().Events[EvRegenerated] != 1 {
		t.Fatal("the regeneration was not counted")
	}
	net.Deliver("elected(3) 3→1")
	net.Deliver("elected(3) 3→4", "request(4) 4→3")
	net.Deliver("elected(3) 3→2") // down
	net.Deliver("request(4) 4→3") // NEXT_3 := 4
	net.Exit(3, "token() 3→4")
	net.Deliver("token() 3→4")
	net.InCS(4)
	if v := net.Nodes[3].View(); v.Gen != 1 {
		t.Fatalf("node 4 holds a token of generation %d, want 1", v.Gen)
	}
	if got := lasts(net); got[0] != 3 || got[2] != 4 || got[3] != 4 {
		t.Fatalf("LAST = %v, want [3 _ 4 4]", got)
	}

	net.Input(2, proto.Recover)
	if v := net.Nodes[1].View(); !v.Up || v.Asked || v.TokenHere || v.Gen != math.MaxUint64 {
		t.Fatalf("node 2 after its recovery: %+v, want up, idle, discarding tokens", v)
	}
	net.Fire(2, timerQuiet)
	if v := net.Nodes[1].View(); v.Gen != 0 || node(net, 2).last != 0 {
		t.Fatalf("node 2 after its quiet window: generation %d, LAST %d; want 0 and node 1", v.Gen, node(net, 2).last+1)
	}
}

// TestSmallestCandidate: node 1 crashes with the idle token; the requests
// of nodes 2 and 3 are lost with it. Both become candidates in the same
// Telec: node 3, hearing node 2, becomes an observer; node 2, hearing node
// 3, stays, and is elected.
func TestSmallestCandidate(t *testing.T) {
	net := newNet(t, 4, true)
	net.Input(1, proto.Crash)
	net.Enter(2, "request(2) 2→1")
	net.Enter(3, "request(3) 3→1")
	net.Drop("request(2) 2→1")
	net.Drop("request(3) 3→1")
	for _, id := range []proto.NodeID{2, 3} {
		net.Fire(id, timerState, each("consult", id, 4)...)
	}
	net.Fire(2, timerState, each("query", 2, 4)...)
	net.Fire(3, timerState, each("query", 3, 4)...)
	net.Fire(2, timerState, each("election", 2, 4)...)
	net.Fire(3, timerState, each("election", 3, 4)...)
	net.Deliver("election(3) 3→2") // 2 < 3: node 2 stays a candidate
	net.Deliver("election(2) 2→3") // node 3 becomes an observer
	if node(net, 2).st != candidate || node(net, 3).st != observer {
		t.Fatalf("nodes 2 and 3: %s and %s, want candidate and observer", node(net, 2).st, node(net, 3).st)
	}
	net.Fire(2, timerState, each("elected", 2, 4)...)
	net.InCS(2)
	net.Deliver("elected(2) 2→3", "request(3) 3→2")
	net.Deliver("request(3) 3→2")
	net.Exit(2, "token() 2→3")
	net.Deliver("token() 2→3")
	net.InCS(3)
	if tokens(net) != 1 {
		t.Fatalf("%d tokens", tokens(net))
	}
}

// TestFalseAlarmConsult: node 3's request waits behind node 2's long
// critical section. Twait expires: node 3 consults, node 2 answers that
// 3 is its NEXT, and node 3 waits again; nothing else is sent.
func TestFalseAlarmConsult(t *testing.T) {
	net := newNet(t, 4, true)
	net.Enter(2, "request(2) 2→1")
	net.Deliver("request(2) 2→1", "token() 1→2")
	net.Deliver("token() 1→2")
	net.Enter(3, "request(3) 3→1")
	net.Deliver("request(3) 3→1", "request(3) 1→2")
	net.Deliver("request(3) 1→2")
	net.Fire(3, timerState, each("consult", 3, 4)...)
	if !net.Out().Suspect.Yes {
		t.Fatal("Twait's expiry is not reported as a suspicion")
	}
	net.Deliver("consult(3) 3→1")
	net.Deliver("consult(3) 3→4")
	net.Deliver("consult(3) 3→2", "consult_ack(2) 2→3")
	net.Deliver("consult_ack(2) 2→3")
	fireEarlier(net, 3, 1) // the consult's Telec: stale, nothing
	net.Exit(2, "token() 2→3")
	net.Deliver("token() 2→3")
	net.InCS(3)
	if g := node(net, 3).gen; g != 0 || tokens(net) != 1 {
		t.Fatalf("generation %d, %d tokens; want 0 and 1", g, tokens(net))
	}
}

// TestFalseAlarmQuery: the token is slow, not lost. Node 4 asks and the
// idle root 1 sends it the token; node 3's request is forwarded to 4, and
// both are slow. Node 3 suspects: no node has NEXT = 3 yet, and no node
// holds the token, but node 4 records the query; when the token reaches
// it, node 4 answers. Node 3 sends its request again to 4, which already
// has it as NEXT; no token is created, and node 3 gets the one token.
func TestFalseAlarmQuery(t *testing.T) {
	net := newNet(t, 4, true)
	net.Enter(4, "request(4) 4→1")
	net.Deliver("request(4) 4→1", "token() 1→4")
	net.Enter(3, "request(3) 3→1")
	net.Deliver("request(3) 3→1", "request(3) 1→4")
	net.Fire(3, timerState, each("consult", 3, 4)...)
	for _, k := range []string{"1", "2", "4"} {
		net.Deliver("consult(3) 3→" + k)
	}
	net.Fire(3, timerState, each("query", 3, 4)...)
	for _, k := range []string{"1", "2", "4"} {
		net.Deliver("query(3) 3→" + k)
	}
	net.Deliver("token() 1→4", "query_ack(4) 4→3")
	net.InCS(4)
	net.Deliver("query_ack(4) 4→3", "resend(3) 3→4")
	net.Deliver("request(3) 1→4") // NEXT_4 := 3
	net.Deliver("resend(3) 3→4")  // already NEXT_4: dropped
	fireEarlier(net, 3, 1)        // the query's Telec: stale, nothing
	net.Exit(4, "token() 4→3")
	net.Deliver("token() 4→3")
	net.InCS(3)
	for i, nd := range net.Nodes {
		if n := nd.(*Node); n.gen != 0 || n.st == candidate || n.st == observer {
			t.Fatalf("node %d: generation %d, state %s", i+1, n.gen, n.st)
		}
	}
	if tokens(net) != 1 {
		t.Fatalf("%d tokens", tokens(net))
	}
}

// fireEarlier fires the timer that node id set k timers before its
// latest one, expecting no message.
func fireEarlier(net *steptest.Net, id proto.NodeID, k int) {
	net.T.Helper()
	ts := net.Timers(id)
	net.FireTimer(id, ts[len(ts)-1-k])
}

// TestLoneRequestCost: from the initial star, a lone request of a node
// other than the root costs 2 messages (request, token), none at the root.
func TestLoneRequestCost(t *testing.T) {
	for _, n := range []int{2, 4, 16, 256} {
		lone := reorder.NewLone(t, reorder.Config{Alg: Algorithm{}, N: n})
		if got := lone.Serve(0, 7); got != 0 {
			t.Errorf("n=%d, node 0: %d messages, want 0", n, got)
		}
		lone = reorder.NewLone(t, reorder.Config{Alg: Algorithm{}, N: n})
		if got := lone.Serve(proto.NodeID(n-1), 9); got != 2 {
			t.Errorf("n=%d, node %d: %d messages, want 2", n, n-1, got)
		}
	}
}
