package opencube

import (
	"testing"

	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/sim"
)

// judgedNet is a step-test net with a clock and the simulator's judge of
// suspicions (sim.Judge), told of every crash, recovery and receipt of a
// failure-protocol message at the time the test gives, as the simulator
// tells it. δ is 1: times are in δ.
type judgedNet struct {
	*steptest.Net
	judge *sim.Judge
}

// newJudgedNet returns a judged net of n nodes (1-based) running the
// project's protocol.
func newJudgedNet(t *testing.T, n int) *judgedNet {
	return &judgedNet{Net: watchNet(t, n), judge: sim.NewJudge(n, 1)}
}

// deliverAt delivers the pending message msg at time now, as Deliver does.
func (j *judgedNet) deliverAt(now float64, msg string, want ...string) {
	j.T.Helper()
	if j.Find(msg).Cause == proto.Failure {
		j.judge.HeardFailure(now)
	}
	j.Deliver(msg, want...)
}

// inputAt steps node id (1-based) with a crash or a recovery at time now.
func (j *judgedNet) inputAt(now float64, id proto.NodeID, kind proto.InputKind, want ...string) {
	j.T.Helper()
	j.Input(id, kind, want...)
	j.judge.UpDown(id-1, kind == proto.Recover, now)
}

// TestSuspicionAfterRegeneration replays in 4 nodes what issue 27 reported
// as false suspicions (N = 8 --think 4 --min-delay 1 seeds 2 and 3, N = 32
// --think 32 --fifo seed 3): a crash sets off a search that fails its last
// phase while the token is on its way, the search announces a new token
// generation, the token on its way to a requester reaches it after the
// announcement and is discarded as stale, and the requester, hearing
// nothing more of its request, suspects "the way" to its holder once its
// window W has passed. Its request was lost: the suspicion is right, though
// the crash and the recovery happened before the requester even asked. The
// judge must not count it as false; it did, since it looked only for a node
// down, crashing or recovering during the silence.
//
// Times are in δ, every delay within δ. Nodes are numbered from 1; node 1 is
// the root, 2 and 3 its sons, 4 the son of 3 (pmax 2: P = 4δ, W = 12δ).
//   - 0: node 4 asks; 3 is transit (father := 4) and 1 gives the token to 4
//     (a gift: father(1) := 4).
//   - 0.6, 0.7: node 3 crashes and recovers, and searches. Its test(1)
//     reaches 4 before the gift (4, asking, of power 0, stays silent); its
//     test(2) reaches 1 (power 1) and 2 (power 0): silent. Its last phase
//     fails with 4 the live root, at distance 1.
//   - 4.9: node 2 asks; 1 is transit, and 4 gives the token to 2 at 5.75.
//   - 5.7: node 3 announces a new generation. The announcement reaches 4
//     after it gave the token away (nobody objects), and reaches 2 before
//     the token does (regenerateFirst), or after (the control).
//   - 8.2: node 3 regenerates the token.
//   - 16.9 = 4.9 + W: if 2 discarded the token, it suspects.
func TestSuspicionAfterRegeneration(t *testing.T) {
	for _, c := range []struct {
		name            string
		regenerateFirst bool // the announcement reaches node 2 before the token
	}{
		{"announcement first: the token is discarded and node 2 suspects", true},
		{"token first: node 2 is served and objects to the regeneration", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			net := newJudgedNet(t, 4)
			net.Enter(4, "request(4) 4→3") // t = 0
			net.deliverAt(0.5, "request(4) 4→3", "request(4) 3→1")
			net.inputAt(0.6, 3, proto.Crash)
			net.inputAt(0.7, 3, proto.Recover, "test(1) 3→4")
			net.deliverAt(0.8, "test(1) 3→4")
			net.deliverAt(1.0, "request(4) 3→1", "token(nil) 1→4")
			net.deliverAt(1.5, "token(nil) 1→4")
			net.InCS(4)
			net.Exit(4)                                           // t = 2.5: node 4 is the root
			net.Fire(3, timerPhase, "test(2) 3→1", "test(2) 3→2") // t = 3.2
			net.deliverAt(3.3, "test(2) 3→1")
			net.deliverAt(3.3, "test(2) 3→2")
			net.Enter(2, "request(2) 2→1") // t = 4.9
			deadline := lastTimer(t, net.Net, 2, timerSuspect)
			if want := float64(2)*(4+1) + 2; deadline.After != want {
				t.Fatalf("node 2's deadline %gδ, want W = %gδ", deadline.After, want)
			}
			net.deliverAt(5.2, "request(2) 2→1", "request(2) 1→4")
			net.Fire(3, timerPhase, "regenerate(nil) 3→1", "regenerate(nil) 3→2", "regenerate(nil) 3→4") // t = 5.7
			net.deliverAt(5.75, "request(2) 1→4", "token(nil) 4→2")
			net.deliverAt(5.8, "regenerate(nil) 3→4")
			net.deliverAt(5.8, "regenerate(nil) 3→1")
			if !c.regenerateFirst {
				net.deliverAt(5.85, "token(nil) 4→2")
				net.InCS(2)
				net.deliverAt(5.9, "regenerate(nil) 3→2", "answer(6) 2→3")
				net.FireTimer(2, deadline) // t = 16.9: served, no suspicion
				if net.Out().Suspect.Yes {
					t.Fatal("node 2 suspected a failure after it was served")
				}
				return
			}
			net.deliverAt(5.9, "regenerate(nil) 3→2")
			net.deliverAt(6.5, "token(nil) 4→2")
			if net.Out().Events[EvStaleToken] != 1 || net.Nodes[1].View().InCS {
				t.Fatalf("node 2 took the token of the old generation (events %v)", net.Out().Events)
			}
			net.Fire(3, timerConfirm)                    // t = 8.2: 3 regenerates
			net.FireTimer(2, deadline, "request(2) 2→1") // t = 16.9: sent again to its father
			sp := net.Out().Suspect
			if !sp.Yes || sp.Of != proto.Nil || sp.Window != deadline.After {
				t.Fatalf("suspicion %+v: want the way to the holder (Of Nil) after W", sp)
			}
			if net.judge.False(sp, 16.9) {
				t.Errorf("the judge counts node 2's suspicion as false; its request was lost to the regeneration that node 3's crash set off")
			}
		})
	}
}
