package mishrasrimani

import (
	"fmt"
	"math"
	"testing"

	"github.com/ocbench/ocbench/algo/suzukikasami"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// ftNet returns n nodes with the failure protocol (numbered from 1), CS
// estimate 1δ.
func ftNet(t *testing.T, n int) *steptest.Net {
	return &steptest.Net{T: t, Types: messageTypes, Base: 1, Nodes: Algorithm{FT: &Config{CSEstimate: 1}}.NewNodes(n)}
}

// to names a broadcast of message name from node from to the others of
// 1..n.
func to(name string, from, n int) []string {
	var out []string
	for k := 1; k <= n; k++ {
		if k != from {
			out = append(out, fmt.Sprintf("%s %d→%d", name, from, k))
		}
	}
	return out
}

func ms(net *steptest.Net, id int) *Node { return net.Nodes[id-1].(*Node) }

// TestRegeneration: 4 nodes (paper numbering; node 1 holds the token).
// Nodes 2 and 3 ask, and the holder 1 fails before their requests reach
// it. Node 2's time-out fires: it sends PRIVILEGE_CHECK(2) to all; 3 and 4
// answer NO_CRIT, N−2 answers with none from the holder: the token is
// lost. Node 2 sends CREATE_PRIVILEGE with a new generation, 3 and 4
// answer UPDATE (3 with its pending request); after the round trip node 2
// regenerates the token with Q = (3), announces the recovery and enters.
// Leaving, it passes the token to 3.
func TestRegeneration(t *testing.T) {
	net := ftNet(t, 4)
	net.Enter(2, to("request()", 2, 4)...)
	net.Enter(3, to("request()", 3, 4)...)
	net.Input(1, proto.Crash)
	net.Drop("request() 2→1")
	net.Drop("request() 3→1")
	net.Deliver("request() 2→3")
	net.Deliver("request() 2→4")
	net.Deliver("request() 3→2")
	net.Deliver("request() 3→4")
	net.Fire(2, timerWait, to("privilege_check()", 2, 4)...)
	if !net.Out().Suspect.Yes {
		t.Fatal("node 2's time-out is not reported as a suspicion")
	}
	net.Drop("privilege_check() 2→1")
	net.Deliver("privilege_check() 2→3", "no_crit() 3→2")
	net.Deliver("privilege_check() 2→4", "no_crit() 4→2")
	net.Deliver("no_crit() 3→2")
	net.Deliver("no_crit() 4→2", to("create_privilege()", 2, 4)...) // N−2 NO_CRIT
	g := nextGen(0, 1)
	if ms(net, 2).gen != g {
		t.Fatalf("node 2 proposes generation %x, want %x", ms(net, 2).gen, g)
	}
	net.Drop("create_privilege() 2→1")
	net.Deliver("create_privilege() 2→3", "update(1) 3→2")
	net.Deliver("create_privilege() 2→4", "update(1) 4→2")
	net.Deliver("update(1) 3→2")
	net.Deliver("update(1) 4→2") // node 1 does not answer: wait for the round trip
	net.Fire(2, timerCreate, to("recovered()", 2, 4)...)
	net.InCS(2)
	if e := net.Out().Events[EvTokenRegenerated]; e != 1 {
		t.Fatalf("%d tokens regenerated, want 1", e)
	}
	for _, k := range []int{3, 4} {
		if ms(net, k).gen != g {
			t.Fatalf("node %d knows generation %x, want %x", k, ms(net, k).gen, g)
		}
	}
	var q []proto.NodeID
	ms(net, 2).Queue(func(j proto.NodeID, _ uint32) { q = append(q, j+1) })
	if fmt.Sprint(q) != "[3]" {
		t.Fatalf("the regenerated token queues %v, want [3]", q)
	}
	net.Deliver("recovered() 2→3")
	net.Deliver("recovered() 2→4")
	net.Exit(2, "token() 2→3")
	if m := net.Pending[len(net.Pending)-1]; m.Stamp != g {
		t.Fatalf("the token travels with generation %x, want %x", m.Stamp, g)
	}
	net.Deliver("token() 2→3")
	net.InCS(3)
}

// TestFalseAlarm: node 1 stays in its critical section long enough for
// node 2's time-out to fire. The holder answers REP_CRITICAL: node 2
// sends the false-alarm notice to all (and its request again to the
// holder), and waits for the token again; no token is created.
func TestFalseAlarm(t *testing.T) {
	net := ftNet(t, 4)
	net.Enter(1)
	net.InCS(1)
	net.Enter(2, to("request()", 2, 4)...)
	net.Deliver("request() 2→1")
	net.Deliver("request() 2→3")
	net.Deliver("request() 2→4")
	net.Fire(2, timerWait, to("privilege_check()", 2, 4)...)
	net.Deliver("privilege_check() 2→3", "no_crit() 3→2")
	net.Deliver("privilege_check() 2→4", "no_crit() 4→2")
	net.Deliver("privilege_check() 2→1", "rep_critical() 1→2")
	net.Deliver("no_crit() 3→2")
	net.Deliver("rep_critical() 1→2", append(to("false_alarm()", 2, 4), "request() 2→1")...)
	net.Deliver("no_crit() 4→2") // too late: the check is over
	for _, k := range []string{"1", "3", "4"} {
		net.Deliver("false_alarm() 2→" + k)
	}
	net.Deliver("request() 2→1") // a duplicate: RN[2] unchanged
	net.Exit(1, "token() 1→2")
	net.Deliver("token() 1→2")
	net.InCS(2)
	if g := ms(net, 2).gen; g != 0 {
		t.Fatalf("generation %x after a false alarm, want 0", g)
	}
}

// TestFalseAlarmSlowToken: the token is on its way to node 3 while node 2
// checks, so nobody answers REP_CRITICAL and node 2 sends
// CREATE_PRIVILEGE. The token reaches 3 first: 3 answers that it holds
// the token (and stamps it with the proposed generation); node 2 gives up
// with a false-alarm notice. The token, of the new generation, reaches
// node 2 in turn; no token is created.
func TestFalseAlarmSlowToken(t *testing.T) {
	net := ftNet(t, 4)
	net.Enter(3, to("request()", 3, 4)...)
	net.Deliver("request() 3→1", "token() 1→3")
	net.Enter(2, to("request()", 2, 4)...)
	net.Deliver("request() 2→1")
	net.Deliver("request() 2→3")
	net.Deliver("request() 2→4")
	net.Fire(2, timerWait, to("privilege_check()", 2, 4)...)
	net.Deliver("privilege_check() 2→1", "no_crit() 1→2")
	net.Deliver("privilege_check() 2→3", "no_crit() 3→2")
	net.Deliver("privilege_check() 2→4", "no_crit() 4→2")
	net.Deliver("no_crit() 1→2")
	net.Deliver("no_crit() 3→2", to("create_privilege()", 2, 4)...)
	net.Deliver("token() 1→3")
	net.InCS(3)
	net.Deliver("create_privilege() 2→3", "update(3) 3→2")
	net.Deliver("create_privilege() 2→1", "update(1) 1→2")
	net.Deliver("update(1) 1→2")
	net.Deliver("update(3) 3→2", to("false_alarm()", 2, 4)...)
	if net.Out().Events[EvFalseAlarm] != 1 {
		t.Fatal("the false alarm is not counted")
	}
	net.Fire(2, timerCreate) // stale: nothing happens
	net.Exit(3, "token() 3→2")
	net.Deliver("token() 3→2")
	net.InCS(2)
	if g := ms(net, 2).gen; g != nextGen(0, 1) {
		t.Fatalf("node 2 holds a token of generation %x, want %x", g, nextGen(0, 1))
	}
}

// TestStaleTokenDiscarded: the token travels to node 3 when node 2's
// CREATE_PRIVILEGE reaches 3 first. Node 3 takes the new generation and
// answers UPDATE; the old token reaches it and is discarded; node 2
// regenerates: one token. Node 3's request is in the new token's queue.
func TestStaleTokenDiscarded(t *testing.T) {
	net := ftNet(t, 4)
	net.Enter(3, to("request()", 3, 4)...)
	net.Deliver("request() 3→1", "token() 1→3")
	net.Enter(2, to("request()", 2, 4)...)
	net.Fire(2, timerWait, to("privilege_check()", 2, 4)...)
	net.Deliver("privilege_check() 2→1", "no_crit() 1→2")
	net.Deliver("privilege_check() 2→3", "no_crit() 3→2")
	net.Deliver("no_crit() 1→2")
	net.Deliver("no_crit() 3→2", to("create_privilege()", 2, 4)...)
	net.Deliver("create_privilege() 2→3", "update(1) 3→2")
	net.Deliver("token() 1→3")
	if net.Out().Events[EvStaleToken] != 1 || ms(net, 3).TokenHere {
		t.Fatal("node 3 did not discard the old token")
	}
	net.Deliver("create_privilege() 2→1", "update(1) 1→2")
	net.Deliver("create_privilege() 2→4", "update(1) 4→2")
	net.Deliver("update(1) 3→2")
	net.Deliver("update(1) 1→2")
	net.Deliver("update(1) 4→2", to("recovered()", 2, 4)...) // all N−1 answered
	net.InCS(2)
	net.Exit(2, "token() 2→3")
	net.Deliver("token() 2→3")
	net.InCS(3)
}

// TestSmallerCheckerStops: nodes 2 and 3 check at once; 3 receives
// PRIVILEGE_CHECK(2) and stops its own (it answers NO_CRIT), 2 ignores
// PRIVILEGE_CHECK(3). Only node 2 regenerates.
func TestSmallerCheckerStops(t *testing.T) {
	net := ftNet(t, 4)
	net.Enter(2, to("request()", 2, 4)...)
	net.Enter(3, to("request()", 3, 4)...)
	net.Input(1, proto.Crash)
	net.Fire(2, timerWait, to("privilege_check()", 2, 4)...)
	net.Fire(3, timerWait, to("privilege_check()", 3, 4)...)
	net.Deliver("privilege_check() 3→2") // 3 > 2: ignored
	net.Deliver("privilege_check() 2→3", "no_crit() 3→2")
	if ms(net, 3).phase != idle || net.Out().Events[EvStopped] != 1 {
		t.Fatal("node 3 did not stop its regeneration")
	}
	net.Deliver("privilege_check() 3→4", "no_crit() 4→3")
	net.Deliver("no_crit() 4→3") // 3 stopped: ignored
	net.Deliver("privilege_check() 2→4", "no_crit() 4→2")
	net.Deliver("no_crit() 3→2")
	net.Deliver("no_crit() 4→2", to("create_privilege()", 2, 4)...)
	net.Deliver("create_privilege() 2→3", "update(1) 3→2")
	net.Deliver("create_privilege() 2→4", "update(1) 4→2")
	net.Deliver("update(1) 3→2")
	net.Deliver("update(1) 4→2")
	net.Fire(2, timerCreate, to("recovered()", 2, 4)...)
	net.InCS(2)
	net.Deliver("recovered() 2→3") // node 3 waits for the token again
	if v := ms(net, 3); v.observing != proto.Nil || v.expired {
		t.Fatalf("node 3 still observes %d (expired %v)", v.observing, v.expired)
	}
}

// TestRestart: node 4 crashes after a critical section and recovers: it
// asks every node for its state and takes its own request number from the
// answers (it had made request 1); a request made meanwhile waits, and is
// sent, as request 2, when the answers are in.
func TestRestart(t *testing.T) {
	net := ftNet(t, 4)
	net.Enter(4, to("request()", 4, 4)...)
	net.Deliver("request() 4→1", "token() 1→4")
	net.Deliver("request() 4→2")
	net.Deliver("request() 4→3")
	net.Deliver("token() 1→4")
	net.InCS(4)
	net.Exit(4)
	net.Enter(2, to("request()", 2, 4)...)
	net.Deliver("request() 2→4", "token() 4→2")
	net.Deliver("request() 2→1")
	net.Deliver("request() 2→3")
	net.Deliver("token() 4→2")
	net.InCS(2)
	net.Exit(2)
	net.Input(4, proto.Crash)
	net.Input(4, proto.Recover, to("restart()", 4, 4)...)
	if v := net.Nodes[3].View(); v.TokenHere || v.Gen != math.MaxUint64 {
		t.Fatalf("node 4 after recovering: %+v, want no token and no generation accepted", v)
	}
	net.Enter(4) // deferred
	for _, k := range []string{"1", "2", "3"} {
		net.Deliver("restart() 4→"+k, "restart_reply() "+k+"→4")
		net.Deliver("restart_reply() " + k + "→4")
	}
	net.Fire(4, timerSync, to("request()", 4, 4)...)
	if m := net.Pending[len(net.Pending)-1]; m.Stamp != 2 || m.Tag != 4 {
		t.Fatalf("node 4 asks with request number %d, serial %d; want 2, 4", m.Stamp, m.Tag)
	}
	net.Deliver("request() 4→2", "token() 2→4")
	net.Deliver("token() 2→4")
	net.InCS(4)
}

// TestLoneRequestCost: a lone request from the quiescent state costs N
// messages (N−1 requests, the token) without failures, none at the holder.
func TestLoneRequestCost(t *testing.T) {
	reorder.LoneTokenCost(t, Algorithm{}, []int{2, 4, 16, 256})
}

// TestRandomOrder: the failure-free algorithm, random requests, messages
// delivered in random order.
func TestRandomOrder(t *testing.T) {
	reorder.RunSizes(t, Algorithm{}, []reorder.Size{
		{N: 2, Seeds: 100, Requests: 60},
		{N: 4, Seeds: 100, Requests: 100},
		{N: 8, Seeds: 50, Requests: 150},
		{N: 16, Seeds: 30, Requests: 200},
		{N: 256, Seeds: 1, Requests: 60},
	})
}

// TestInvariantsCatch: HeldToken fails on a token that queues its holder.
func TestInvariantsCatch(t *testing.T) {
	net := ftNet(t, 4)
	net.Enter(2, to("request()", 2, 4)...)
	net.Enter(1)
	net.InCS(1)
	net.Deliver("request() 2→1")
	s := reorder.Static(net.Nodes)
	if err := HeldToken(s); err != nil {
		t.Fatalf("a good state: %v", err)
	}
	// Node 2 given a token whose queue names node 2 itself.
	var bad Node
	bad.init(1, 4, &Config{CSEstimate: 1})
	bad.Step(proto.Input{Kind: proto.EnterCS, Tag: 5}, &proto.Output{})
	bad.Step(proto.Input{Kind: proto.Receive, Msg: proto.Message{Type: Token, From: 0, To: 1, Payload: []int64{0, 0, 0, 0, suzukikasami.Entry(1, 9)}}}, &proto.Output{})
	nodes := append([]proto.Node(nil), net.Nodes...)
	nodes[1] = &bad
	nodes[0].(*Node).DropToken()
	if err := HeldToken(reorder.Static(nodes)); err == nil {
		t.Fatal("HeldToken accepts a token that queues its holder")
	}
}
