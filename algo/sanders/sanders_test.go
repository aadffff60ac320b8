package sanders

import (
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// TestStructures: both structures meet Sanders' conditions at every n
// tried (powers of two and others), and a structure that breaks them is
// caught.
func TestStructures(t *testing.T) {
	for _, s := range []Structure{Grid{}, Broadcast{}} {
		for _, n := range []int{2, 3, 4, 5, 8, 9, 12, 16, 32, 64} {
			if i, j, ok := Check(s, n); !ok {
				t.Errorf("%s, n=%d: nodes %d and %d break the conditions", s.Name(), n, i, j)
			}
		}
	}
	if i, j, ok := Check(lonely{}, 4); ok {
		t.Error("I_i = {i}, R_i = the grid quorum passed the check")
	} else {
		t.Logf("lonely: nodes %d and %d break the conditions", i, j)
	}
}

// lonely is a broken structure: disjoint informing sets, and request sets
// (grid quorums) that do not hold every other node.
type lonely struct{}

func (lonely) Name() string { return "lonely" }
func (lonely) Sets(i proto.NodeID, n int) (inform, request []proto.NodeID) {
	_, r := Grid{}.Sets(i, n)
	return []proto.NodeID{i}, r
}
func (lonely) Informs(j, k proto.NodeID, _ int) bool { return j == k }

// TestBroadcastExample: Ricart and Agrawala's structure, 3 nodes. Nodes 1
// and 2 ask at once, both with timestamp 1; node 1 comes first (smaller
// id). Each holds its own permission (CSSTAT busy: it is in its own
// status set). Node 2, asked by node 1 first, inquires itself and keeps
// the inquiry; node 1 fails node 2, which then yields its own permission:
// node 2's arbiter grants node 1 (outside its status set: CSSTAT stays
// free) and itself again. Node 0, whose status set is {0}, grants both at
// once. Node 1's release goes to I_1 = {1} only, which grants node 2.
// 2 · 2(n−1) messages and one fail.
func TestBroadcastExample(t *testing.T) {
	a := Broadcasts
	net := &steptest.Net{T: t, Types: messageTypes, Nodes: a.NewNodes(3), Invariants: a.Invariants(false)}
	net.EnterTag(1, 11, "request() 1→0", "request() 1→2")
	net.EnterTag(2, 12, "request() 2→0", "request() 2→1")
	net.Deliver("request() 1→2")                // inquire to itself, kept: no fail yet
	net.Deliver("request() 2→1", "fail() 1→2")  // node 1's (1, 1) comes first
	net.Deliver("fail() 1→2", "grant() 2→1")    // node 2 yields to itself, grants node 1
	net.Deliver("request() 1→0", "grant() 0→1") // node 0: CSSTAT free
	net.Deliver("request() 2→0", "grant() 0→2") // still free: node 2 is not in S_0
	net.Deliver("grant() 0→1")
	net.Deliver("grant() 2→1")
	net.InCS(1)
	net.Exit(1, "grant() 1→2") // the release to itself grants node 2
	net.Deliver("grant() 0→2")
	net.Deliver("grant() 1→2")
	net.InCS(2)
	net.Exit(2)
	if want := 2*int(a.StatedCost(3).High) + 1; net.Sent != want {
		t.Errorf("%d messages, want %d", net.Sent, want)
	}
}

// TestGridExample: Maekawa's structure on the 2×2 grid (node 0's sets are
// {0, 1, 2}, node 3's {1, 2, 3}). Node 3 asks alone: requests to 1 and 2,
// their grants, its releases to them: |I−{i}| + 2|R−{i}| = 6 messages.
func TestGridExample(t *testing.T) {
	a := Quorums
	net := &steptest.Net{T: t, Types: messageTypes, Nodes: a.NewNodes(4), Invariants: a.Invariants(false)}
	net.EnterTag(3, 5, "request() 3→1", "request() 3→2")
	net.Deliver("request() 3→1", "grant() 1→3")
	net.Deliver("request() 3→2", "grant() 2→3")
	net.EnterTag(0, 6, "request() 0→1", "request() 0→2")
	net.Deliver("request() 0→1", "inquire() 1→3") // (1, 0) precedes (1, 3)
	net.Deliver("request() 0→2", "inquire() 2→3")
	net.Deliver("grant() 1→3")
	net.Deliver("grant() 2→3")
	net.InCS(3)
	net.Deliver("inquire() 1→3") // in the critical section: ignored
	net.Deliver("inquire() 2→3")
	net.Exit(3, "release() 3→1", "release() 3→2")
	net.Deliver("release() 3→1", "grant() 1→0")
	net.Deliver("release() 3→2", "grant() 2→0")
	net.Deliver("grant() 1→0")
	net.Deliver("grant() 2→0")
	net.InCS(0)
	net.Exit(0, "release() 0→1", "release() 0→2")
	net.Deliver("release() 0→1")
	net.Deliver("release() 0→2")
	if net.Sent != 6+6+2 {
		t.Errorf("%d messages, want 14: 6 each, and 2 inquires", net.Sent)
	}
}

// TestLoneRequest: a request from the quiescent state costs exactly
// |I_i − {i}| + 2|R_i − {i}| (survey, Table 2), for every requester.
func TestLoneRequest(t *testing.T) {
	for _, a := range []Algorithm{Quorums, Broadcasts} {
		for _, n := range []int{2, 3, 4, 9, 16, 64} {
			lone := reorder.NewLone(t, reorder.Config{Alg: a, N: n})
			for r := range n {
				inform, request := a.Structure.Sets(proto.NodeID(r), n)
				want := len(inform) - 1 + 2*(len(request)-1)
				if sent := lone.Serve(proto.NodeID(r), uint32(r+1)); sent != want {
					t.Errorf("%s n=%d, requester %d: %d messages, want %d", a.Name(), n, r, sent, want)
				}
			}
		}
	}
}

// TestRandom drives both structures with random requests and a random
// delivery order (channels not FIFO), and saturated, with the invariants
// and internal/reorder's checks after every step; every request is served.
func TestRandom(t *testing.T) {
	for _, a := range []Algorithm{Quorums, Broadcasts} {
		for _, n := range []int{2, 3, 4, 8, 9} {
			seeds := 100
			if testing.Short() {
				seeds = 25
			}
			t.Run(fmt.Sprintf("%s/n=%d", a.Name(), n), func(t *testing.T) {
				for seed := range seeds {
					reorder.Run(t, reorder.Config{Alg: a, N: n, Seed: uint64(seed), Requests: 10 * n,
						Checks: []func(proto.System) error{reorder.PlainMessages}})
					reorder.Run(t, reorder.Config{Alg: a, N: n, Seed: uint64(seed), Requests: 10 * n, Saturate: true})
				}
			})
		}
	}
}

// TestCrashRecover: a crashed node ignores every input; it recovers in the
// initial state (steptest.CrashRecover).
func TestCrashRecover(t *testing.T) {
	steptest.CrashRecover(t, Quorums.NewNodes(4), 1)
}
