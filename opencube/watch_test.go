package opencube

import (
	"testing"

	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// watchNet is a net of n nodes (1-based) running the project's protocol.
func watchNet(t *testing.T, n int) *steptest.Net {
	return &steptest.Net{T: t, Base: 1, Nodes: Algorithm{FT: &Config{CSEstimate: 1, RetestDelay: 3}}.NewNodes(n)}
}

// lastTimer returns the latest timer of kind that node id set.
func lastTimer(t *testing.T, net *steptest.Net, id proto.NodeID, kind uint8) proto.Timer {
	t.Helper()
	ts := net.Timers(id)
	for k := len(ts) - 1; k >= 0; k-- {
		if ts[k].Kind == kind {
			return ts[k]
		}
	}
	t.Fatalf("node %d set no timer of kind %d", id, kind)
	return proto.Timer{}
}

// heardHolder returns a net of 4 nodes in which node 2's request waits at
// node 1, in the critical section, and 2 has heard 1's first heartbeat: 2
// knows its holder.
func heardHolder(t *testing.T) *steptest.Net {
	t.Helper()
	net := watchNet(t, 4)
	net.Enter(1)
	net.Enter(2, "request(2) 2→1")
	net.Deliver("request(2) 2→1")
	net.FireTimer(1, lastTimer(t, net, 1, timerBeat), "wait(1) 1→2")
	net.Deliver("wait(1) 1→2")
	return net
}

// TestHolderHeartbeats: a node that holds a request it cannot serve at once
// tells the requester so P = 2·pmax·δ later, then after gaps that double;
// the requester, hearing them, never searches; once the request is served
// the heartbeats stop.
func TestHolderHeartbeats(t *testing.T) {
	net := watchNet(t, 4) // pmax 2: P = 4δ
	net.Enter(1)          // the root holds the token: in the CS at once
	net.InCS(1)
	net.Enter(2, "request(2) 2→1")
	net.Deliver("request(2) 2→1") // queued: 1 is in the CS
	beat := lastTimer(t, net, 1, timerBeat)
	if beat.After != 4 || beat.Arg != 1 || beat.Seq != 2 {
		t.Fatalf("first heartbeat timer %+v, want after 4δ for node 2's request of serial 2", beat)
	}
	net.FireTimer(1, beat, "wait(1) 1→2")
	if m := net.Pending[0]; m.Phase != 1 || m.Cause != proto.Liveness || m.Tag != 2 {
		t.Fatalf("heartbeat %+v: want the next gap 2^1·P, cause liveness, serial 2", m)
	}
	net.Deliver("wait(1) 1→2")
	deadline := lastTimer(t, net, 2, timerSuspect)
	if want := 8 + float64(2)*(4+1) + 2; deadline.After != want {
		t.Fatalf("requester's deadline after a heartbeat: %gδ, want 2P + W = %gδ", deadline.After, want)
	}
	beat = lastTimer(t, net, 1, timerBeat)
	if beat.After != 8 {
		t.Fatalf("second gap %gδ, want 8δ", beat.After)
	}
	// The first deadline (set when 2 asked) passes: a later one is pending.
	net.FireTimer(2, net.Timers(2)[0])
	if net.Out().Suspect.Yes {
		t.Fatal("node 2 suspected a failure while a later deadline was pending")
	}
	net.Exit(1, "token(1) 1→2")
	net.FireTimer(1, beat) // 1 no longer holds the request: no heartbeat
	net.Deliver("token(1) 1→2")
	net.InCS(2)
	net.FireTimer(2, deadline) // served: no suspicion
	if net.Out().Suspect.Yes {
		t.Fatal("node 2 suspected a failure after it was served")
	}
}

// TestSilentHolderIsSuspected: the holder of a request crashes; the
// requester's deadline passes in silence, it suspects that holder (named,
// with the incarnation it heard from) and searches from phase 1.
func TestSilentHolderIsSuspected(t *testing.T) {
	net := heardHolder(t)
	net.Input(1, proto.Crash)
	net.FireTimer(2, net.Timers(2)[0]) // the first deadline: one still pending
	if net.Out().Suspect.Yes {
		t.Fatal("suspected before the last deadline")
	}
	net.FireTimer(2, lastTimer(t, net, 2, timerSuspect), "test(1) 2→1")
	sp := net.Out().Suspect
	if !sp.Yes || sp.Of != 0 || sp.Inc != 0 || net.Out().Events[proto.EvSearchStarted] != 1 {
		t.Fatalf("suspicion %+v, events %v: want node 1 (id 0), incarnation 0, and a search", sp, net.Out().Events)
	}
}

// TestLostRequestIsSuspected: a request sent to a node that is down is lost
// on its way; no holder ever speaks, and the requester suspects "the way"
// (Of = Nil) once the window W has passed.
func TestLostRequestIsSuspected(t *testing.T) {
	net := watchNet(t, 4)
	net.Input(1, proto.Crash)
	net.Enter(2, "request(2) 2→1")
	net.Drop("request(2) 2→1")
	d := lastTimer(t, net, 2, timerSuspect)
	if want := float64(2)*(4+1) + 2; d.After != want {
		t.Fatalf("first deadline %gδ, want W = %gδ", d.After, want)
	}
	net.FireTimer(2, d, "test(1) 2→1")
	if sp := net.Out().Suspect; !sp.Yes || sp.Of != proto.Nil {
		t.Fatalf("suspicion %+v: want the way to the holder (Nil)", sp)
	}
}

// TestChaseFindsCycle: a waiting node passes a chase to the holder of its
// request; a chase that comes back to its initiator shows a cycle of waits,
// and the initiator searches. A chase of another node's request dies at a
// node that does not wait.
func TestChaseFindsCycle(t *testing.T) {
	net := heardHolder(t)
	// A chase of node 4 reaches 2: 2 waits on 1 and passes it on.
	net.Pending = append(net.Pending, proto.Message{Type: proto.Chase, Cause: proto.Liveness, From: 2, To: 1, J: 3, Phase: 1, Src: proto.Nil, Tag: 9})
	net.Deliver("chase(4) 3→2", "chase(4) 2→1")
	if m := net.Pending[len(net.Pending)-1]; m.Phase != 2 || m.Tag != 9 {
		t.Fatalf("chase passed on as %+v: want hop 2, serial 9", m)
	}
	net.Deliver("chase(4) 2→1") // 1 holds the token: the chain ends here
	// Node 2's own chase comes back to it: its request waits on itself.
	net.Pending = append(net.Pending, proto.Message{Type: proto.Chase, Cause: proto.Liveness, From: 2, To: 1, J: 1, Phase: 3, Src: proto.Nil, Tag: 2})
	net.Deliver("chase(2) 3→2", "test(1) 2→1")
	if net.Out().Events[proto.EvWaitCycle] != 1 {
		t.Fatalf("events %v: want a wait cycle", net.Out().Events)
	}
}

// TestPaperRetestsTryLater: under the paper's protocol an asking node of
// power below the phase answers "try later", and the search tests it again
// after RetestDelay, as often as it answers so; the project's protocol has
// it stay silent (TestAskingNodesStaySilent).
func TestPaperRetestsTryLater(t *testing.T) {
	net := &steptest.Net{T: t, Base: 1, Nodes: Algorithm{FT: &Config{CSEstimate: 1, RetestDelay: 3, Paper: true, PaperStart: true}}.NewNodes(4)}
	net.Enter(1)                   // the root holds the token: in the CS
	net.Enter(2, "request(2) 2→1") // 2 (power 0) asks and waits
	net.Input(3, proto.Crash)
	net.Input(3, proto.Recover, "test(1) 3→4")
	net.Drop("test(1) 3→4")
	net.Fire(3, timerPhase, "test(2) 3→1", "test(2) 3→2")
	net.Drop("test(2) 3→1") // only 2's answer matters here
	for round := 0; round < 3; round++ {
		net.Deliver("test(2) 3→2", "answer(2) 2→3") // asking, power 0 < 2: try later
		net.Deliver("answer(2) 2→3")
		net.Fire(3, timerPhase)                 // a "try later" is pending: no next phase
		net.Fire(3, timerRetest, "test(2) 3→2") // tested again, every time
	}
}
