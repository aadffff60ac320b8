package opencube

import (
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
)

func ftNet(t *testing.T, n int) *steptest.Net {
	return &steptest.Net{T: t, Types: messageTypes, Base: 1, Nodes: Algorithm{FT: &Config{CSEstimate: 1, RetestDelay: 3, PaperStart: true, Paper: true}}.NewNodes(n)}
}

func tests(from proto.NodeID, d int, to ...proto.NodeID) []string {
	var out []string
	for _, k := range to {
		out = append(out, (&steptest.Net{Base: 1, Types: messageTypes}).Msg(proto.Message{Type: Test, Phase: uint8(d), From: from - 1, To: k - 1}))
	}
	return out
}

// each returns format filled with every k in [lo, hi), in order: the
// message names of a broadcast from one node.
func each(format string, lo, hi int) []string {
	var out []string
	for k := lo; k < hi; k++ {
		out = append(out, fmt.Sprintf(format, k))
	}
	return out
}

// TestPaperFailureExample replays the open-cube paper's §5 example: nodes 10
// and 12 request, node 9 fails before processing their requests, both
// search concurrently, 10 becomes the root; 9 recovers, 13's request raises
// an anomaly at 9, and 13 finds its father 10.
func TestPaperFailureExample(t *testing.T) {
	net := ftNet(t, 16)
	net.Enter(10, "request(10) 10→9")
	net.Enter(12, "request(12) 12→11")
	net.Deliver("request(12) 12→11", "request(12) 11→9") // 11 is transit; father11 := 12
	net.Input(9, proto.Crash)
	net.Drop("request(10) 10→9")
	net.Drop("request(12) 11→9")

	// Both suspect a failure (2·pmax·δ after their requests).
	net.Fire(10, timerSuspect, "test(1) 10→9")
	net.Drop("test(1) 10→9") // 9 is down
	net.Fire(10, timerPhase, "test(2) 10→11", "test(2) 10→12")
	net.Fire(12, timerSuspect, "test(1) 12→11")
	net.Deliver("test(1) 12→11") // 11 has power 0 and is not asking: no answer
	// 12, in phase 1, receives test(2) from 10: it concludes father12 := 10
	// at once and issues its request again to 10 (which queues it).
	net.Deliver("test(2) 10→12", "request(12) 12→10")
	net.Deliver("test(2) 10→11")
	net.Deliver("request(12) 12→10")
	net.Fire(10, timerPhase, tests(10, 3, 13, 14, 15, 16)...)
	for _, k := range []string{"13", "14", "15", "16"} {
		net.Deliver("test(3) 10→" + k)
	}
	net.Fire(10, timerPhase, tests(10, 4, 1, 2, 3, 4, 5, 6, 7, 8)...)
	net.Deliver("test(4) 10→1", "answer(1) 1→10") // power(1) = 4: "ok"
	for _, k := range []string{"2", "3", "4", "5", "6", "7", "8"} {
		net.Deliver("test(4) 10→" + k)
	}
	net.Deliver("answer(1) 1→10", "request(10) 10→1") // father10 := 1, request again
	// 1 is transit for 10 (dist1(10) = 4 = power(1)): 10 becomes the root.
	net.Deliver("request(10) 10→1", "token(nil) 1→10")
	net.Deliver("token(nil) 1→10")
	net.InCS(10)
	// Leaving, 10 serves 12's request: dist10(12) = 2 < 4, so 10 lends the token.
	net.Exit(10, "token(10) 10→12")
	net.Deliver("token(10) 10→12")
	net.InCS(12)
	net.Exit(12, "token(nil) 12→10")
	net.Deliver("token(nil) 12→10")

	// 9 recovers and searches from phase 1, as a leaf: 10 answers "ok".
	net.Input(9, proto.Recover, "test(1) 9→10")
	net.Deliver("test(1) 9→10", "answer(1) 10→9")
	net.Deliver("answer(1) 10→9")
	if f := net.Fathers(scheme.FatherOf)[8]; f != 10 {
		t.Fatalf("9 concluded with father %d, want 10", f)
	}
	// 2δ after recovering, 9 takes tokens again and serves its queue
	// (docs/failures.md; the paper has no such delay).
	net.Fire(9, timerQuiet)
	// 13 requests: 9 has power 0 < dist9(13) = 3, an anomaly.
	net.Enter(13, "request(13) 13→9")
	net.Deliver("request(13) 13→9", "anomaly(13) 9→13")
	net.Deliver("anomaly(13) 9→13", tests(13, 3, 9, 10, 11, 12)...)
	net.Deliver("test(3) 13→9")
	net.Deliver("test(3) 13→11")
	net.Deliver("test(3) 13→12")
	net.Deliver("test(3) 13→10", "answer(1) 10→13")
	net.Deliver("answer(1) 10→13", "request(13) 13→10")
	net.Deliver("request(13) 13→10", "token(10) 10→13") // dist10(13) = 3 < 4: a loan
	net.Deliver("token(10) 10→13")
	net.InCS(13)
	want := map[int]proto.NodeID{9: 10, 10: 0, 12: 10, 13: 10, 11: 12}
	f := net.Fathers(scheme.FatherOf)
	for node, w := range want {
		if f[node-1] != w {
			t.Errorf("father of %d = %d, want %d", node, f[node-1], w)
		}
	}
}

// figure13 sets up the paper's 4-node situation of Figure 13 (a=1, b=2,
// c=3, d=4): b and c request, the root a fails before processing their
// requests, and b suspects first and tests a in phase 1 (no answer).
func figure13(t *testing.T) *steptest.Net {
	net := ftNet(t, 4)
	figure13On(net)
	return net
}

// figure13On plays figure13's steps on a 4-node net.
func figure13On(net *steptest.Net) {
	net.Enter(2, "request(2) 2→1")
	net.Enter(3, "request(3) 3→1")
	net.Input(1, proto.Crash)
	net.Drop("request(2) 2→1")
	net.Drop("request(3) 3→1")
	net.Fire(2, timerSuspect, "test(1) 2→1")
	net.Drop("test(1) 2→1")
}

// TestConcurrentSearchSmallerPhaseConcludes replays the paper's first 4-node
// example (Figure 13, a=1, b=2, c=3, d=4; a fails): b in phase 1 receives
// test(2) from c and concludes at once with father_b := c; c, with no answer
// in phase 2 = pmax, becomes the root and regenerates the token.
func TestConcurrentSearchSmallerPhaseConcludes(t *testing.T) {
	net := figure13(t)
	// c = 3 has power 1: it searches from phase 2, testing 1 and 2.
	net.Fire(3, timerSuspect, "test(2) 3→1", "test(2) 3→2")
	net.Drop("test(2) 3→1")
	net.Deliver("test(2) 3→2", "request(2) 2→3") // b concludes father_b := c
	net.Deliver("request(2) 2→3")                // queued: c is busy
	// Phase pmax failed: c announces a new generation and, with no objection
	// within 2δ, becomes the root with a regenerated token.
	net.Fire(3, timerPhase, "regenerate(nil) 3→1", "regenerate(nil) 3→2", "regenerate(nil) 3→4")
	net.Drop("regenerate(nil) 3→1")
	net.Deliver("regenerate(nil) 3→2")
	net.Deliver("regenerate(nil) 3→4")
	net.Fire(3, timerConfirm)
	net.InCS(3)
	if v, f := net.Nodes[2].View(), scheme.FatherOf(net.Nodes[2]); f != proto.Nil || v.Gen != nextGen(0, 2) {
		t.Fatalf("c: father %d gen %x, want the root with a regenerated token of generation %x", f+1, v.Gen, nextGen(0, 2))
	}
	// dist3(2) = 2 = power(3): c is transit for b and gives the token up.
	net.Exit(3, "token(nil) 3→2")
	net.Deliver("token(nil) 3→2")
	net.InCS(2)
}

// TestConcurrentSearchEqualPhases replays the paper's second 4-node example:
// b and c search in the same phase 2 and test each other. Without a rule both
// would become roots and regenerate two tokens; with the smaller id as the
// father, b answers "ok" to c and only b regenerates. c, the larger id, does
// not answer b under either reading of the tie-break; under the stated
// outcome ("the node with the 'smallest' identity becomes the father of the
// other") it concludes father_c := b on b's test, under the example's
// mechanism (Config.SilentTie) on b's "ok".
func TestConcurrentSearchEqualPhases(t *testing.T) {
	for _, silent := range []bool{false, true} {
		t.Run(fmt.Sprintf("SilentTie=%v", silent), func(t *testing.T) {
			net := &steptest.Net{T: t, Types: messageTypes, Base: 1, Nodes: Algorithm{FT: &Config{CSEstimate: 1, RetestDelay: 3, PaperStart: true, Paper: true, SilentTie: silent}}.NewNodes(4)}
			figure13On(net)
			net.Fire(2, timerPhase, "test(2) 2→3", "test(2) 2→4")
			net.Fire(3, timerSuspect, "test(2) 3→1", "test(2) 3→2")
			net.Drop("test(2) 3→1")
			net.Deliver("test(2) 3→2", "answer(1) 2→3") // b (smaller id) answers ok
			if silent {
				net.Deliver("test(2) 2→3") // c does not answer b and searches on
				net.Deliver("test(2) 2→4") // d: power 0, not asking
				net.Deliver("answer(1) 2→3", "request(3) 3→2")
			} else {
				net.Deliver("test(2) 2→3", "request(3) 3→2") // c does not answer b: it takes b as its father
				net.Deliver("test(2) 2→4")                   // d: power 0, not asking
				net.Deliver("answer(1) 2→3")                 // c searches no more: nothing to do
			}
			if f := scheme.FatherOf(net.Nodes[2]); f != 1 {
				t.Fatalf("father of c = %d, want b (2)", f+1)
			}
			net.Fire(2, timerPhase, "regenerate(nil) 2→1", "regenerate(nil) 2→3", "regenerate(nil) 2→4") // b: phase pmax failed
			net.Drop("regenerate(nil) 2→1")
			net.Deliver("regenerate(nil) 2→3")
			net.Deliver("regenerate(nil) 2→4")
			net.Fire(2, timerConfirm) // no objection: b becomes the root
			net.InCS(2)
			net.Deliver("request(3) 3→2") // queued until b leaves
			net.Exit(2, "token(nil) 2→3") // dist2(3) = 2 = power(2): transit
			net.Deliver("token(nil) 2→3")
			net.InCS(3)
			if g := net.Nodes[2].View().Gen; g != nextGen(0, 1) {
				t.Errorf("c holds a token of generation %x, want b's, %x", g, nextGen(0, 1))
			}
		})
	}
}

// TestRecoveredNodeDiscardsEarlierToken: a token sent to a node before it
// crashed, delivered in the 2δ after it recovered, is discarded. It may be
// older than a regeneration announced while the node was down (the node did
// not hear of it), and accepting it made two tokens (crash sweep, seed 1735 of
// N=8; docs/failures.md). After the 2δ, a token is accepted again.
func TestRecoveredNodeDiscardsEarlierToken(t *testing.T) {
	for _, quietOver := range []bool{false, true} {
		net := ftNet(t, 4)
		net.Enter(2, "request(2) 2→1")
		net.Deliver("request(2) 2→1", "token(1) 1→2") // 1 lends the token
		net.Deliver("token(1) 1→2")
		net.InCS(2)
		net.Exit(2, "token(nil) 2→1")
		net.Input(1, proto.Crash)
		net.Input(1, proto.Recover, "test(1) 1→2")
		net.Enter(1) // queued: no request in the 2δ after recovering
		if quietOver {
			net.Fire(1, timerQuiet)
		}
		net.Deliver("token(nil) 2→1")
		v := net.Nodes[0].View()
		if v.TokenHere == !quietOver {
			t.Fatalf("quiet window over: %v; node 1 token_here = %v", quietOver, v.TokenHere)
		}
		if quietOver {
			net.InCS(1) // the token made 1 the root, and it serves its queue
		}
	}
}

// TestUnexpectedLoanKeepsFather: a loan that reaches a node no longer
// waiting for it (its request, re-issued after a search, was served twice)
// goes back to its lender and changes nothing else. The node was transit
// for a son since it asked; taking the lender as father, as we once did,
// left the lender with two sons of the same power (crash sweep N=8, seed 7
// with the repair pass).
func TestUnexpectedLoanKeepsFather(t *testing.T) {
	net := ftNet(t, 8)
	net.Enter(4, "request(4) 4→3")
	net.Deliver("request(4) 4→3", "request(4) 3→1") // 3 is transit: father3 := 4
	net.Pending = append(net.Pending, proto.Message{Type: scheme.Token, From: 0, To: 2, J: proto.RefTo(0), Src: proto.RefTo(2), Tag: 1})
	net.Deliver("token(1) 1→3", "token(nil) 3→1")
	if f := net.Fathers(scheme.FatherOf)[2]; f != 4 {
		t.Fatalf("father of 3 = %d, want 4", f)
	}
	if v := net.Nodes[2].View(); v.TokenHere || v.Asked {
		t.Fatalf("3 kept the loan: %+v", v)
	}
}

// TestSearchStartsAtPhaseOne: by default a suspicion starts search_father at
// phase 1, testing the node's own subcube first, not at power+1 as the paper
// does (Config.PaperStart; docs/failures.md): after crashes a node's power may
// be wrong, and skipping its subcube attached it beside another head there.
func TestSearchStartsAtPhaseOne(t *testing.T) {
	net := &steptest.Net{T: t, Types: messageTypes, Base: 1, Nodes: Algorithm{FT: &Config{CSEstimate: 1, RetestDelay: 3}}.NewNodes(4)}
	// 3 has power 1 (father 1, its son 4): it suspects and tests 4 first.
	net.Enter(3, "request(3) 3→1")
	net.Input(1, proto.Crash)
	net.Drop("request(3) 3→1")
	net.Fire(3, timerSuspect, "request(3) 3→1") // sent again once: 1 is down
	net.Drop("request(3) 3→1")
	net.Fire(3, timerSuspect, "test(1) 3→4")
	net.Deliver("test(1) 3→4") // 4: power 0, not asking: no answer
	net.Fire(3, timerPhase, "test(2) 3→1", "test(2) 3→2")
}

// seed99 sets up the crash sweep's seed 99 of N=8 (0-based ids, as in the
// trace): nodes 2 and 3 crash and recover together, each searching from
// phase 1 and testing the other; node 4, whose father 0 crashed, searches
// too and reaches phase 3, where it tests 0, 1, 2 and 3. The tests of 2 and
// 3 to each other are still in flight when 4's test(3) reaches them.
func seed99(t *testing.T, cfg Config) *steptest.Net {
	net := &steptest.Net{T: t, Types: messageTypes, Base: 0, Nodes: Algorithm{FT: &cfg}.NewNodes(8)}
	net.Input(2, proto.Crash)
	net.Input(3, proto.Crash)
	net.Input(2, proto.Recover, "test(1) 2→3")
	net.Input(3, proto.Recover, "test(1) 3→2")
	net.Enter(4, "request(4) 4→0")
	net.Input(0, proto.Crash)
	net.Drop("request(4) 4→0")
	if cfg.Paper {
		net.Fire(4, timerSuspect, "test(1) 4→5")
	} else { // the project's protocol sends the request to 0 again first; it is down
		net.Fire(4, timerSuspect, "request(4) 4→0")
		net.Drop("request(4) 4→0")
		net.Fire(4, timerSuspect, "test(1) 4→5")
	}
	net.Deliver("test(1) 4→5") // 5: power 0, not asking
	net.Fire(4, timerPhase, "test(2) 4→6", "test(2) 4→7")
	net.Deliver("test(2) 4→6")
	net.Deliver("test(2) 4→7")
	net.Fire(4, timerPhase, "test(3) 4→0", "test(3) 4→1", "test(3) 4→2", "test(3) 4→3")
	net.Drop("test(3) 4→0")
	net.Deliver("test(3) 4→1")
	return net
}

// TestConcurrentSearchTwoLowerSearchers replays the crash sweep's seed 99
// of N=8 with the paper's rule (Config.Paper): 2 and 3, both in phase
// 1, receive test(3) from 4 and both conclude at once with father := 4, so
// 4 has two sons of power 2 (dist(4,2) = dist(4,3) = 3).
func TestConcurrentSearchTwoLowerSearchers(t *testing.T) {
	net := seed99(t, Config{CSEstimate: 1, RetestDelay: 3, Paper: true})
	net.Deliver("test(3) 4→2")
	net.Deliver("test(3) 4→3")
	if f := net.Fathers(scheme.FatherOf); f[2] != 4 || f[3] != 4 {
		t.Fatalf("fathers of 2 and 3: %d and %d, want 4 and 4 (the paper's rule)", f[2], f[3])
	}
}

// TestConcurrentSearchLowerPhasesFirst: by default, a searcher tested by a
// searcher j of a higher phase d goes on with its phases below d and
// concludes with father := j only when it reaches d (docs/failures.md). In
// the seed-99 situation, 2 and 3 settle their phase 1 first: 3, the larger
// id, concludes with father 2 on 2's test (equal phases), and only 2 becomes
// 4's son.
func TestConcurrentSearchLowerPhasesFirst(t *testing.T) {
	net := seed99(t, Config{CSEstimate: 1, RetestDelay: 3})
	net.Deliver("test(3) 4→2") // 2 notes 4 as its father in phase 3
	net.Deliver("test(3) 4→3") // so does 3
	net.Deliver("test(1) 2→3") // equal phases: 3 concludes with father 2
	net.Deliver("test(1) 3→2", "answer(1) 2→3")
	net.Deliver("answer(1) 2→3") // 3 has concluded already
	net.Fire(2, timerPhase, "test(2) 2→0", "test(2) 2→1")
	net.Drop("test(2) 2→0")
	net.Deliver("test(2) 2→1")
	net.Fire(2, timerPhase) // phase 3: 2 concludes with father 4, no test
	if f := net.Fathers(scheme.FatherOf); f[2] != 4 || f[3] != 2 {
		t.Fatalf("fathers of 2 and 3: %d and %d, want 4 and 2", f[2], f[3])
	}
}

// node returns node id of the net (0-based nets only).
func node(net *steptest.Net, id proto.NodeID) *Node { return net.Nodes[id].(*Node) }

// TestSecondSonAtSameDistance: a father that knows its son at distance d
// and receives a request from another node at that distance probes the
// first; if it answers that it still is its son, the newcomer gets an
// anomaly and searches from phase 1, where it finds the first as the head
// of their subcube (docs/failures.md). Here node 3 believes, as after a
// crash, that 0 is its father: dist(0,2) = dist(0,3) = 2.
func TestSecondSonAtSameDistance(t *testing.T) {
	net := &steptest.Net{T: t, Types: messageTypes, Base: 0, Nodes: Algorithm{FT: &Config{CSEstimate: 1, RetestDelay: 3}}.NewNodes(8)}
	net.Enter(2, "request(2) 2→0")
	net.Deliver("request(2) 2→0", "token(0) 0→2") // dist(0,2) = 2 < power(0): a loan
	net.Deliver("token(0) 0→2")
	net.Exit(2, "token(nil) 2→0")
	net.Deliver("token(nil) 2→0")
	if s := node(net, 0).son(2); s != 2 {
		t.Fatalf("0 knows %d as its son at distance 2, want 2", s)
	}
	node(net, 3).core.Father = 0 // a second head of {2, 3}
	net.Enter(3, "request(3) 3→0")
	net.Deliver("request(3) 3→0", "probe(nil) 0→2")
	net.Enter(1, "request(1) 1→0") // queued behind 3's request meanwhile
	net.Deliver("request(1) 1→0")
	net.Deliver("probe(nil) 0→2", "attach(1) 2→0")
	net.Deliver("attach(1) 2→0", "anomaly(3) 0→3", "token(0) 0→1")
	net.Deliver("anomaly(3) 0→3", "test(1) 3→2")
	net.Deliver("test(1) 3→2", "answer(1) 2→3")
	net.Deliver("answer(1) 2→3", "request(3) 3→2")
	net.Deliver("request(3) 3→2", "request(3) 2→0") // 2 is transit: 3 heads {2, 3} now
	net.Deliver("token(0) 0→1")
	net.Exit(1, "token(nil) 1→0")
	net.Deliver("token(nil) 1→0")
	net.Deliver("request(3) 2→0", "token(0) 0→3") // from 2, the son 0 knows: no probe
	net.Deliver("token(0) 0→3")
	net.InCS(3)
	if f := net.Fathers(scheme.FatherOf); f[2] != 3 || f[3] != 0 {
		t.Fatalf("fathers of 2 and 3: %d and %d, want 3 and 0", f[2], f[3])
	}
	if s := node(net, 0).son(2); s != 3 {
		t.Fatalf("0 knows %d as its son at distance 2, want 3", s)
	}
}

// TestAskingNodesStaySilent: under the project's protocol a tested node of
// power below the phase does not answer, even while it asks (the paper has
// it answer "try later" and be tested again). Testing such nodes again
// deadlocked whole systems while the token was lost: their requests wait on
// the searcher through chains of live holders it cannot see. 0 recovers and
// searches; 9's request waits at its proxy 8, 8's at 0; 13's at its proxy
// 12, 12's at 8. No node answers, phase 4 = pmax fails and 0 announces a
// regeneration, which the token, if it lives, stops (docs/failures.md).
func TestAskingNodesStaySilent(t *testing.T) {
	net := &steptest.Net{T: t, Types: messageTypes, Base: 0, Nodes: Algorithm{FT: &Config{CSEstimate: 1, RetestDelay: 3}}.NewNodes(16)}
	net.Input(0, proto.Crash)
	net.Input(0, proto.Recover, "test(1) 0→1")
	net.Enter(9, "request(9) 9→8")
	net.Deliver("request(9) 9→8", "request(8) 8→0") // 8 is proxy for 9
	net.Deliver("request(8) 8→0")                   // queued at 0, which searches
	net.Enter(13, "request(13) 13→12")
	net.Deliver("request(13) 13→12", "request(12) 12→8") // 12 is proxy for 13
	net.Deliver("request(12) 12→8")                      // queued at 8
	net.Deliver("test(1) 0→1")
	net.Fire(0, timerPhase, "test(2) 0→2", "test(2) 0→3")
	net.Deliver("test(2) 0→2")
	net.Deliver("test(2) 0→3")
	net.Fire(0, timerPhase, "test(3) 0→4", "test(3) 0→5", "test(3) 0→6", "test(3) 0→7")
	for _, k := range []string{"4", "5", "6", "7"} {
		net.Deliver("test(3) 0→" + k)
	}
	net.Fire(0, timerPhase, each("test(4) 0→%d", 8, 16)...)
	for k := 8; k < 16; k++ {
		net.Deliver(fmt.Sprintf("test(4) 0→%d", k)) // 8, 9, 12, 13 ask: still no answer
	}
	net.Fire(0, timerPhase, each("regenerate(nil) 0→%d", 1, 16)...)
}

// TestTransitSonsAfterAnomaly: the nodes that were transit for a request
// that an anomaly then rejects are the requester's sons. If its search then
// finds a father closer than the farthest of them, that one can no longer be
// its son: the requester tells the nodes at that distance, and the one whose
// father it is searches again (docs/failures.md). Here 3's request goes
// 3 → 2 → 0, both transit, and 4, of power 1, rejects it; 1 believes, as
// after a crash, that it heads {0, 1, 2, 3} under 5.
func TestTransitSonsAfterAnomaly(t *testing.T) {
	net := &steptest.Net{T: t, Types: messageTypes, Base: 0, Nodes: Algorithm{FT: &Config{CSEstimate: 1, RetestDelay: 3}}.NewNodes(8)}
	c0, c4, c6 := &node(net, 0).core, &node(net, 4).core, &node(net, 6).core
	c0.Father, c0.TokenHere, c0.Lender = 4, false, proto.Nil
	c4.Father = 6
	c6.Father, c6.TokenHere, c6.Lender = proto.Nil, true, 6
	node(net, 1).core.Father = 5
	net.Enter(3, "request(3) 3→2")
	net.Deliver("request(3) 3→2", "request(3) 2→0")
	net.Deliver("request(3) 2→0", "request(3) 0→4")
	net.Deliver("request(3) 0→4", "anomaly(3) 4→3")
	net.Deliver("anomaly(3) 4→3", "test(1) 3→2")
	net.Deliver("test(1) 3→2") // 2: power 0 now (father 3)
	net.Fire(3, timerPhase, "test(2) 3→0", "test(2) 3→1")
	net.Deliver("test(2) 3→0") // 0: power 1 now (father 3)
	net.Deliver("test(2) 3→1", "answer(1) 1→3")
	// 3's power is 1: 0, at distance 2, cannot stay its son. 1, the new
	// father, is not told (it cannot be 3's son).
	net.Deliver("answer(1) 1→3", "request(3) 3→1", "reattach(nil) 3→0")
	net.Deliver("reattach(nil) 3→0", "test(1) 0→1")
}

// TestProbedHeadDroppedMeanwhile: while a father probes its known son about
// the request at the head of its queue, a newer request of that requester
// arrives and the old one is dropped as obsolete; the son's "still your
// son" must then reject no other request (the node's own request, queued
// next, would be lost for good).
func TestProbedHeadDroppedMeanwhile(t *testing.T) {
	net := &steptest.Net{T: t, Types: messageTypes, Base: 0, Nodes: Algorithm{FT: &Config{CSEstimate: 1, RetestDelay: 3}}.NewNodes(8)}
	net.Enter(2, "request(2) 2→0")
	net.Deliver("request(2) 2→0", "token(0) 0→2") // 0 learns 2 as its son at distance 2
	net.Deliver("token(0) 0→2")
	net.Exit(2, "token(nil) 2→0")
	net.Deliver("token(nil) 2→0")
	node(net, 3).core.Father = 0 // a second head of {2, 3}
	net.Enter(3, "request(3) 3→0")
	net.Deliver("request(3) 3→0", "probe(nil) 0→2")
	net.Enter(0) // 0's own request, queued behind 3's
	net.Pending = append(net.Pending, proto.Message{Type: scheme.Request, From: 3, To: 0, J: proto.RefTo(3), Src: proto.RefTo(3), Tag: 99})
	net.Deliver("request(3) 3→0") // serial 99: the probed one is obsolete
	net.Deliver("probe(nil) 0→2", "attach(1) 2→0")
	net.Deliver("attach(1) 2→0") // no anomaly: 0 serves its own request and enters
	if len(net.Entered) == 0 || net.Entered[len(net.Entered)-1] != 0 {
		t.Fatalf("node 0 did not enter the critical section (entered: %v)", net.Entered)
	}
}
