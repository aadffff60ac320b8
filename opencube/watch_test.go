package opencube

import (
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
)

// watchNet is a net of n nodes (1-based) running the project's protocol.
func watchNet(t *testing.T, n int) *steptest.Net {
	return &steptest.Net{T: t, Types: messageTypes, Base: 1, Nodes: Algorithm{FT: &Config{CSEstimate: 1, RetestDelay: 3}}.NewNodes(n)}
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
	net.FireTimer(2, lastTimer(t, net, 2, timerSuspect), "request(2) 2→1")
	sp := net.Out().Suspect
	if !sp.Yes || sp.Of != 0 || sp.Inc != 0 {
		t.Fatalf("suspicion %+v: want node 1 (id 0), incarnation 0", sp)
	}
	if m := net.Pending[len(net.Pending)-1]; m.Cause != proto.Failure || m.Tag != 2 {
		t.Fatalf("request sent again %+v: want cause failure, serial 2", m)
	}
	net.Drop("request(2) 2→1") // 1 is down: the next deadline passes in silence
	net.Fire(2, timerSuspect, "test(1) 2→1")
	if net.Out().Events[EvSearchStarted] != 1 || net.Out().Events[EvSuspicion] != 1 {
		t.Fatalf("events %v: want a second suspicion and a search", net.Out().Events)
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
	net.FireTimer(2, d, "request(2) 2→1") // no holder spoke: sent again to the father
	if sp := net.Out().Suspect; !sp.Yes || sp.Of != proto.Nil {
		t.Fatalf("suspicion %+v: want the way to the holder (Nil)", sp)
	}
	net.Drop("request(2) 2→1")
	net.Fire(2, timerSuspect, "test(1) 2→1")
}

// TestAgainRecoveredHolder: the holder of a request crashes and recovers;
// the requester's deadline passes, it sends its request again to that
// holder, which takes it (it searches: the request waits there, with
// heartbeats, until the search concludes): no search by the requester.
func TestAgainRecoveredHolder(t *testing.T) {
	net := heardHolder(t)
	net.Input(1, proto.Crash)
	net.Input(1, proto.Recover, "test(1) 1→2")
	net.Drop("test(1) 1→2") // 2 does not hear of the recovery
	net.FireTimer(2, net.Timers(2)[0])
	net.FireTimer(2, lastTimer(t, net, 2, timerSuspect), "request(2) 2→1")
	if net.Out().Events[EvSearchStarted] != 0 {
		t.Fatal("the requester searched before sending its request again")
	}
	net.Deliver("request(2) 2→1") // queued at the searching node 1
	if b := lastTimer(t, net, 1, timerBeat); b.After != 4 || b.Arg != 1 || b.Seq != 2 {
		t.Fatalf("heartbeat timer %+v: want P = 4δ for node 2's request of serial 2", b)
	}
	// A new deadline W after the request was sent again.
	if d := lastTimer(t, net, 2, timerSuspect); d.After != float64(2)*(4+1)+2 {
		t.Fatalf("deadline %+v: want W = 12δ", d)
	}
}

// TestRecoveredHolderTested: the holder of a request crashes and recovers,
// and its recovery search tests the requester. The test carries the
// holder's new incarnation: the requester knows at once that its request
// was lost with the holder's state and sends it again (a suspicion of the
// incarnation it last heard from), instead of waiting for its deadline,
// which after a long wait is as far away as the wait was long. A test from
// the holder in the incarnation heard from, or from another node, changes
// nothing.
func TestRecoveredHolderTested(t *testing.T) {
	for _, c := range []struct {
		name  string
		crash bool         // the holder, node 1, crashes and recovers
		from  proto.NodeID // the tester (0-based)
		want  []string     // what the requester, node 2, sends
	}{
		{"recovered holder", true, 0, []string{"request(2) 2→1"}},
		{"holder heard from", false, 0, nil},
		{"another node", true, 2, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			net := heardHolder(t)
			var inc uint64
			if c.crash {
				net.Input(1, proto.Crash)
				net.Input(1, proto.Recover, "test(1) 1→2")
				net.Drop("test(1) 1→2")
				inc = 1
			}
			// test(2) from c.from, in its incarnation inc, reaches node 2
			// (power 0: it stays silent).
			net.Pending = append(net.Pending, proto.Message{Type: Test, Cause: proto.Failure, From: c.from, To: 1, Phase: 2, Stamp: inc})
			net.Deliver(fmt.Sprintf("test(2) %d→2", c.from+1), c.want...)
			sp := net.Out().Suspect
			if got := sp.Yes; got != (c.want != nil) {
				t.Fatalf("suspected %v (%+v), want %v", got, sp, c.want != nil)
			}
			if sp.Yes && (sp.Of != 0 || sp.Inc != 0) {
				t.Fatalf("suspicion %+v: want node 1 in incarnation 0", sp)
			}
			if net.Out().Events[EvSearchStarted] != 0 {
				t.Fatal("the requester searched")
			}
		})
	}
}

// TestAgainHeldRestartsHeartbeats: a holder that receives a request it
// still holds (sent again: possible only when a delay broke δ) drops the
// copy and starts its heartbeats again at P.
func TestAgainHeldRestartsHeartbeats(t *testing.T) {
	net := heardHolder(t)
	net.FireTimer(2, net.Timers(2)[0])
	net.FireTimer(2, lastTimer(t, net, 2, timerSuspect), "request(2) 2→1")
	net.Deliver("request(2) 2→1")
	if net.Out().Events[EvDuplicateRequest] != 1 {
		t.Fatalf("events %v: want the copy dropped", net.Out().Events)
	}
	if b := lastTimer(t, net, 1, timerBeat); b.After != 4 || b.Arg != 1 {
		t.Fatalf("heartbeat timer %+v: want a new chain at P = 4δ for node 2", b)
	}
}

// TestAgainTransitFatherRejects: a requester's father was transit for its
// request and so took the requester as its father. The request, sent to it
// again, comes from beyond its power: it is rejected at once with an
// anomaly (queued behind the father's own request, it would wait on the
// requester itself), and the requester searches.
func TestAgainTransitFatherRejects(t *testing.T) {
	net := watchNet(t, 4) // fathers 2→1, 3→1, 4→3; 3 has power 1
	net.Input(1, proto.Crash)
	net.Enter(4, "request(4) 4→3")
	net.Deliver("request(4) 4→3", "request(4) 3→1") // transit: 3 takes 4 as its father
	net.Drop("request(4) 3→1")
	net.Enter(3, "request(3) 3→4") // 3 asks its new father
	net.Fire(4, timerSuspect, "request(4) 4→3")
	net.Deliver("request(4) 4→3", "anomaly(4) 3→4")
	net.Deliver("anomaly(4) 3→4", "test(1) 4→3")
}

// TestObsoleteRequestForgotten: a node asks for one request at a time and
// its own requests have increasing serials. A node that queues an own
// request of j and receives one of a larger serial drops the old one (from
// before j crashed, or served through another way); one of a smaller serial,
// arriving late, is dropped itself.
func TestObsoleteRequestForgotten(t *testing.T) {
	net := watchNet(t, 4)
	net.Enter(1)
	net.Enter(2, "request(2) 2→1")
	net.Deliver("request(2) 2→1") // queued: 1 is in the CS
	queued := func() (tags []uint32) {
		t.Helper()
		n := net.Nodes[0].(*Node)
		for k := 0; k < 8; k++ {
			if n.core.Holds(1, uint32(k*10+2)) {
				tags = append(tags, uint32(k*10+2))
			}
		}
		return tags
	}
	for _, c := range []struct {
		tag  uint32
		want []uint32
	}{
		{22, []uint32{22}}, // newer: the old one (2) goes
		{12, []uint32{22}}, // older, late: dropped itself
	} {
		net.Pending = append(net.Pending, proto.Message{Type: scheme.Request, From: 1, To: 0, J: proto.RefTo(1), Src: proto.RefTo(1), Tag: c.tag})
		net.Deliver("request(2) 2→1")
		if e := net.Out().Events[EvObsoleteRequest]; e != 1 {
			t.Fatalf("serial %d: obsolete requests dropped %d, want 1", c.tag, e)
		}
		if got := queued(); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Fatalf("serial %d: node 1 queues node 2's requests %v, want %v", c.tag, got, c.want)
		}
	}
}

// TestChaseFindsCycle: a waiting node passes a chase to the holder of its
// request; a chase that comes back to its initiator shows a cycle of waits,
// and the initiator searches. A chase of another node's request dies at a
// node that does not wait.
//
// A chase goes from a node to the holder of its request, and names that
// request's serial (Stamp): a node that does not hold it (the edge is stale,
// the request moved on) drops the chase.
func TestChaseFindsCycle(t *testing.T) {
	net := heardHolder(t)
	// Node 3's request (serial 9) waits at 2, which waits on 1.
	net.Pending = append(net.Pending, proto.Message{Type: scheme.Request, From: 2, To: 1, J: proto.RefTo(2), Src: proto.RefTo(2), Tag: 9})
	net.Deliver("request(3) 3→2")
	// A chase of node 4 comes from 3: 2 holds 3's request and passes it on,
	// naming its own request's serial.
	net.Pending = append(net.Pending, proto.Message{Type: Chase, Cause: proto.Liveness, From: 2, To: 1, J: proto.RefTo(3), Phase: 1, Tag: 8, Stamp: 9})
	net.Deliver("chase(4) 3→2", "chase(4) 2→1")
	if m := net.Pending[len(net.Pending)-1]; m.Phase != 2 || m.Tag != 8 || m.Stamp != 2 {
		t.Fatalf("chase passed on as %+v: want hop 2, serial 8, last hop's serial 2", m)
	}
	net.Deliver("chase(4) 2→1") // 1 holds the token: the chain ends here
	// A chase over a stale edge (2 holds no request of 3 of serial 5) dies.
	net.Pending = append(net.Pending, proto.Message{Type: Chase, Cause: proto.Liveness, From: 2, To: 1, J: proto.RefTo(3), Phase: 1, Tag: 8, Stamp: 5})
	net.Deliver("chase(4) 3→2")
	// Node 2's own chase comes back to it from 3, whose request it holds:
	// its request waits on itself. 3 is beyond 2's power (0): 2 rejects
	// 3's request at once.
	net.Pending = append(net.Pending, proto.Message{Type: Chase, Cause: proto.Liveness, From: 2, To: 1, J: proto.RefTo(1), Phase: 3, Tag: 2, Stamp: 9})
	net.Deliver("chase(2) 3→2", "anomaly(3) 2→3")
	if net.Out().Events[EvWaitCycle] != 1 {
		t.Fatalf("events %v: want a wait cycle", net.Out().Events)
	}
	if n := net.Nodes[1].(*Node); n.core.Holds(2, 9) || n.searching {
		t.Fatal("node 2 still holds 3's request, or searches")
	}
}

// TestChaseCycleWithinPower: a chase comes back to its initiator from a
// node within its power: that edge of the cycle is a sound one, and the
// initiator searches a father again, keeping the request it holds.
func TestChaseCycleWithinPower(t *testing.T) {
	net := watchNet(t, 4) // fathers 2→1, 3→1, 4→3: 3 has power 1, 4 is at distance 1
	net.Enter(1)
	net.Enter(3, "request(3) 3→1")
	net.Deliver("request(3) 3→1")
	net.FireTimer(1, lastTimer(t, net, 1, timerBeat), "wait(1) 1→3")
	net.Deliver("wait(1) 1→3")
	net.Enter(4, "request(4) 4→3")
	net.Deliver("request(4) 4→3") // queued: 3 asks
	net.Pending = append(net.Pending, proto.Message{Type: Chase, Cause: proto.Liveness, From: 3, To: 2, J: proto.RefTo(2), Phase: 3, Tag: 3, Stamp: 4})
	net.Deliver("chase(3) 4→3", "test(1) 3→4")
	if n := net.Nodes[2].(*Node); !n.core.Holds(3, 4) {
		t.Fatal("node 3 dropped 4's request")
	}
}

// TestPaperRetestsTryLater: under the paper's protocol an asking node of
// power below the phase answers "try later", and the search tests it again
// after RetestDelay, as often as it answers so; the project's protocol has
// it stay silent (TestAskingNodesStaySilent).
func TestPaperRetestsTryLater(t *testing.T) {
	net := &steptest.Net{T: t, Types: messageTypes, Base: 1, Nodes: Algorithm{FT: &Config{CSEstimate: 1, RetestDelay: 3, Paper: true, PaperStart: true}}.NewNodes(4)}
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

// TestStaleTransitCycle plays in 16 nodes the cycle of waits behind two of
// the four stalls of scripts/paper-protocol.sh (N = 32 seeds 21 and 89): a
// node serves as transit a request its requester issued before it crashed,
// and so takes the requester for its father; the requester, recovered and
// now the son of another node, sends the loan for that old request back to
// its lender, and waits on its new father, which waits on the transit node,
// which waits on the requester. Every node in the cycle is alive and sends
// heartbeats: no deadline ever passes. The requester's chase comes back to
// it over the one edge where powers do not increase (it holds the request
// of a node at distance 2 with a power of 0): it rejects that request with
// an anomaly. Searching instead, as it did, it found its own father again
// (of power 1 at distance 1), and the cycle was rebuilt at every chase.
//
// Names are 1-based; node 1 is the root (power 4), 5 its son of power 2,
// 6 and 7 the sons of 5 (powers 0 and 1), 8 the son of 7.
func TestStaleTransitCycle(t *testing.T) {
	net := watchNet(t, 16)
	net.Enter(1) // the root holds the token: in the CS
	net.EnterTag(6, 60, "request(6) 6→5")
	net.Deliver("request(6) 6→5", "request(5) 5→1") // 5 asks on 6's account
	net.Deliver("request(5) 5→1")                   // queued at the root
	net.EnterTag(7, 70, "request(7) 7→5")
	net.Deliver("request(7) 7→5") // queued at 5, which asks
	net.EnterTag(5, 50)           // 5's own request, queued behind 7's
	net.Input(7, proto.Crash)

	// 8 asks its father 7, which is down; it sends its request again, then
	// searches and finds 5 (power 2 at distance 2), which queues the request.
	net.EnterTag(8, 80, "request(8) 8→7")
	net.Drop("request(8) 8→7")
	net.Fire(8, timerSuspect, "request(8) 8→7")
	net.Drop("request(8) 8→7")
	net.Fire(8, timerSuspect, "test(1) 8→7")
	net.Drop("test(1) 8→7")
	net.Fire(8, timerPhase, "test(2) 8→5", "test(2) 8→6")
	net.Deliver("test(2) 8→6")
	net.Deliver("test(2) 8→5", "answer(1) 5→8")
	net.Deliver("answer(1) 5→8", "request(8) 8→5")
	net.Deliver("request(8) 8→5")

	// 7 recovers and finds 8 (now of power 1) at distance 1; its new
	// request waits at 8.
	net.Input(7, proto.Recover, "test(1) 7→8")
	net.Deliver("test(1) 7→8", "answer(1) 8→7")
	net.Deliver("answer(1) 8→7")
	net.Fire(7, timerQuiet)
	net.EnterTag(7, 71, "request(7) 7→8")
	net.Deliver("request(7) 7→8")

	// The root lends the token for 6; 5 passes it on, then serves 7's old
	// request as transit (father := 7) and asks 7 for its own.
	net.Exit(1, "token(1) 1→5")
	net.Deliver("token(1) 1→5", "token(1) 5→6", "request(7) 5→1", "request(5) 5→7")
	net.Deliver("token(1) 5→6")
	net.Exit(6, "token(nil) 6→1")
	net.Deliver("token(nil) 6→1")
	net.Deliver("request(7) 5→1", "token(1) 1→7")
	net.Deliver("token(1) 1→7", "token(nil) 7→1") // a loan for 7's old request: back to its lender
	net.Deliver("token(nil) 7→1")
	net.Deliver("request(5) 5→7") // queued: 7 asks

	// The cycle 7 → 8 → 5 → 7: each holder tells its requester so.
	for _, beat := range []struct {
		holder proto.NodeID
		msg    string
	}{{8, "wait(8) 8→7"}, {5, "wait(5) 5→8"}, {7, "wait(7) 7→5"}} {
		net.FireTimer(beat.holder, lastTimer(t, net, beat.holder, timerBeat), beat.msg)
		net.Deliver(beat.msg)
	}
	// 7's chase (as after its fourth heartbeat) goes round the cycle.
	net.Pending = append(net.Pending, proto.Message{Type: Chase, Cause: proto.Liveness, From: 6, To: 7, J: proto.RefTo(6), Phase: 1, Tag: 71, Stamp: 71})
	net.Deliver("chase(7) 7→8", "chase(7) 8→5")
	net.Deliver("chase(7) 8→5", "chase(7) 5→7")
	net.Deliver("chase(7) 5→7", "anomaly(5) 7→5")
	if net.Out().Events[EvWaitCycle] != 1 {
		t.Fatalf("events %v: want a wait cycle", net.Out().Events)
	}
	// 5 searches and finds the root: the cycle is broken.
	net.Deliver("anomaly(5) 7→5", "test(1) 5→6")
	net.Deliver("test(1) 5→6")
	net.Fire(5, timerPhase, "test(2) 5→7", "test(2) 5→8")
	net.Deliver("test(2) 5→7")
	net.Deliver("test(2) 5→8")
	net.Fire(5, timerPhase, "test(3) 5→1", "test(3) 5→2", "test(3) 5→3", "test(3) 5→4")
	net.Deliver("test(3) 5→1", "answer(1) 1→5")
	net.Deliver("answer(1) 1→5", "request(5) 5→1")
	if f := net.Fathers(scheme.FatherOf); f[4] != 1 {
		t.Fatalf("fathers %v: want 5's father 1", f)
	}
}
