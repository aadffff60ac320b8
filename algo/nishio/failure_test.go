package nishio

import (
	"slices"
	"testing"

	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

var ft = Algorithm{FT: &Config{CSEstimate: 1}}

// proposal is the age node id (1-based) proposes in its first round.
func proposal(id proto.NodeID) uint64 { return 1<<ageShift | uint64(id-1) }

// tokens counts the tokens held by live nodes and those in flight that
// their (live) receiver will accept.
func tokens(net *steptest.Net) int {
	t := 0
	for _, nd := range net.Nodes {
		if v := nd.View(); v.Up && v.TokenHere {
			t++
		}
	}
	for _, m := range net.Pending {
		if v := net.Nodes[m.To].View(); m.Type == Token && v.Up && m.Stamp >= v.Gen {
			t++
		}
	}
	return t
}

func wantEvent(t *testing.T, net *steptest.Net, ev proto.Event, want int32) {
	t.Helper()
	if got := net.Out().Events[ev]; got != want {
		t.Fatalf("event %s: %d in the last step, want %d", eventNames[ev], got, want)
	}
}

// TestLostTokenRegenerated: 4 nodes (1-based; node 1 holds the token).
// Node 3 gets the token and crashes in the critical section: the token is
// lost. Node 2, waiting, times out and sends TOKEN_MISSING; nodes 1 and 4
// ACK; node 3 is down and its TOKEN_MISSING is lost, so node 2's answer
// time-out asks node 3 alone again; node 3 has recovered and ACKs. With 3
// ACKs node 2 regenerates one token, of its proposed age, and enters; LN
// comes from the ACKs. Node 3's request, abandoned in the crash, is closed
// when the token passes by.
func TestLostTokenRegenerated(t *testing.T) {
	net := newNet(t, ft, 4)
	net.Enter(3, "request() 3→1", "request() 3→2", "request() 3→4")
	net.Deliver("request() 3→1", "token() 1→3")
	net.Deliver("token() 1→3")
	net.InCS(3)
	net.Enter(2, "request() 2→1", "request() 2→3", "request() 2→4")
	for _, m := range []string{"request() 3→2", "request() 3→4", "request() 2→1", "request() 2→3", "request() 2→4"} {
		net.Deliver(m)
	}
	net.Input(3, proto.Crash)
	if tokens(net) != 0 {
		t.Fatal("the token survived its holder's crash")
	}
	net.Fire(2, timerRequest, "token_missing() 2→1", "token_missing() 2→3", "token_missing() 2→4")
	if s := net.Out().Suspect; !s.Yes {
		t.Fatal("the time-out is not reported as a suspicion")
	}
	wantEvent(t, net, EvRound, 1)
	net.Deliver("token_missing() 2→1", "ack() 1→2")
	net.Deliver("token_missing() 2→4", "ack() 4→2")
	net.Deliver("token_missing() 2→3") // node 3 is down: no answer
	net.Deliver("ack() 1→2")
	net.Deliver("ack() 4→2")
	if node(net, 2).tokenHere {
		t.Fatal("node 2 regenerated the token with 2 ACKs of 3")
	}
	net.Fire(2, timerAnswers, "token_missing() 2→3")
	wantEvent(t, net, EvUnanswered, 1)
	net.Input(3, proto.Recover)
	net.Deliver("token_missing() 2→3", "ack() 3→2")
	net.Deliver("ack() 3→2")
	net.InCS(2)
	wantEvent(t, net, EvTokenRegenerated, 1)
	if n := tokens(net); n != 1 {
		t.Fatalf("%d tokens after the regeneration, want 1", n)
	}
	if x := node(net, 2); x.age != proposal(2) || !slices.Equal(x.ln, []int64{0, 0, 0, 0}) {
		t.Fatalf("regenerated token: age %#x, LN %v; want age %#x, LN [0 0 0 0]", x.age, x.ln, proposal(2))
	}
	for id := proto.NodeID(1); id <= 4; id++ {
		if g := node(net, id).age; g != proposal(2) {
			t.Errorf("node %d has age %#x, want %#x", id, g, proposal(2))
		}
	}
	// Node 3's request was abandoned in its crash; the token closes it.
	net.Exit(2, "token() 2→3")
	net.Deliver("token() 2→3")
	wantEvent(t, net, EvClosed, 1)
	if v := net.Nodes[2].View(); !v.TokenHere || v.Asked {
		t.Fatalf("node 3 after the token: %+v, want the idle token", v)
	}
	if net.Sent != 3+3+3+3+1+1+1 {
		t.Errorf("%d messages, want 15", net.Sent)
	}
}

// TestFalseAlarm: the token is not lost, only slow: node 1 stays in the
// critical section beyond node 2's time-out. Node 2 sends TOKEN_MISSING;
// node 1 holds the token and NACKs (raising the token's age to the
// proposal), nodes 3 and 4 ACK. The NACK ends the round: node 2 sends its
// request again; no token is created; node 1's exit sends the one token,
// of the proposed age, which node 2 accepts.
func TestFalseAlarm(t *testing.T) {
	net := newNet(t, ft, 4)
	net.Enter(1)
	net.InCS(1)
	net.Enter(2, "request() 2→1", "request() 2→3", "request() 2→4")
	net.Deliver("request() 2→1")
	net.Fire(2, timerRequest, "token_missing() 2→1", "token_missing() 2→3", "token_missing() 2→4")
	net.Deliver("token_missing() 2→1", "nack(1) 1→2")
	net.Deliver("token_missing() 2→3", "ack() 3→2")
	net.Deliver("token_missing() 2→4", "ack() 4→2")
	net.Deliver("nack(1) 1→2", "request() 2→1", "request() 2→3", "request() 2→4")
	wantEvent(t, net, EvNack, 1)
	net.Deliver("ack() 3→2") // the round is over: ignored
	net.Deliver("ack() 4→2")
	if node(net, 2).tokenHere || tokens(net) != 1 {
		t.Fatalf("a false alarm created a token (node 2 holds one: %v; %d tokens)", node(net, 2).tokenHere, tokens(net))
	}
	net.Exit(1, "token() 1→2")
	if _, age, _ := lastToken(t, net); age != proposal(2) {
		t.Fatalf("the token's age is %#x, want node 2's proposal %#x", age, proposal(2))
	}
	net.Deliver("token() 1→2")
	net.InCS(2)
	net.Drain()
	net.Exit(2)
	if n := tokens(net); n != 1 {
		t.Fatalf("%d tokens, want 1", n)
	}
}

// TestDuplicateDiscarded: a false alarm in which the token is in flight:
// node 1 has sent it to node 3, which ACKs node 2's TOKEN_MISSING before it
// arrives (nobody holds it: every node ACKs). Node 2 regenerates; the old
// token reaches node 3, is older than node 3's age and is discarded (a
// duplicate), and node 3 sends its request again. One token remains, and
// serves node 3.
func TestDuplicateDiscarded(t *testing.T) {
	net := newNet(t, ft, 4)
	net.Enter(3, "request() 3→1", "request() 3→2", "request() 3→4")
	net.Deliver("request() 3→1", "token() 1→3")
	net.Enter(2, "request() 2→1", "request() 2→3", "request() 2→4")
	net.Fire(2, timerRequest, "token_missing() 2→1", "token_missing() 2→3", "token_missing() 2→4")
	net.Deliver("token_missing() 2→1", "ack() 1→2")
	net.Deliver("token_missing() 2→3", "ack() 3→2")
	net.Deliver("token_missing() 2→4", "ack() 4→2")
	net.Deliver("ack() 1→2")
	net.Deliver("ack() 3→2")
	net.Deliver("ack() 4→2")
	net.InCS(2)
	if n := tokens(net); n != 1 {
		t.Fatalf("%d live tokens after the regeneration, want 1 (the old one is dead)", n)
	}
	net.Deliver("token() 1→3", "request() 3→1", "request() 3→2", "request() 3→4")
	wantEvent(t, net, EvStaleToken, 1)
	net.Drain()
	net.Exit(2, "token() 2→3")
	net.Deliver("token() 2→3")
	net.InCS(3)
}

// TestConflictHigherWins: nodes 2 and 3 time out at once. Node 3's
// proposal is higher: node 2 ACKs it and gives up its round, node 3 NACKs
// node 2's; node 3 regenerates, the only token.
func TestConflictHigherWins(t *testing.T) {
	net := newNet(t, ft, 3)
	net.Enter(1)
	net.Input(1, proto.Crash) // the token is lost with its holder
	net.Enter(2, "request() 2→1", "request() 2→3")
	net.Enter(3, "request() 3→1", "request() 3→2")
	net.Deliver("request() 2→3")
	net.Deliver("request() 3→2")
	net.Input(1, proto.Recover)
	net.Fire(2, timerRequest, "token_missing() 2→1", "token_missing() 2→3")
	net.Fire(3, timerRequest, "token_missing() 3→1", "token_missing() 3→2")
	net.Deliver("token_missing() 2→3", "nack(2) 3→2")
	net.Deliver("token_missing() 3→2", "ack() 2→3")
	net.Deliver("token_missing() 2→1", "ack() 1→2")
	net.Deliver("token_missing() 3→1", "ack() 1→3")
	net.Deliver("nack(2) 3→2") // node 2's round is over already
	net.Deliver("ack() 1→2")   // ignored
	net.Deliver("ack() 2→3")
	net.Deliver("ack() 1→3")
	net.InCS(3)
	if n := tokens(net); n != 1 || node(net, 2).tokenHere {
		t.Fatalf("%d tokens, node 2 holds one: %v; want node 3's alone", n, node(net, 2).tokenHere)
	}
	net.Exit(3, "token() 3→2")
	net.Deliver("token() 3→2")
	net.InCS(2)
}
