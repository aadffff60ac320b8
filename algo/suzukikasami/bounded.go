package suzukikasami

import (
	"fmt"

	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// DefaultL is the round length L of the registered bounded variant.
const DefaultL = 3

var boundedTypes = []proto.MessageType{
	{Name: "request", Payload: "none", Arg: "none", Stamp: "the request number RN[j] mod 2L"},
	{Name: "token", Token: true, Payload: "LN[0..N−1] mod 2L, then Q: one word j<<32 | serial per queued node, head first", Arg: "none"},
	{Name: "ack", Payload: "none", Arg: "none", Stamp: "the acknowledged request number mod 2L (a multiple of L)"},
}

// rounds is a node's state for request numbers bounded in rounds of L.
type rounds struct {
	l, m    int64   // the round length L and the modulus M = 2L
	pending bool    // asked, and its request waits for the previous round's acks
	owed    int     // acks of its last complete round not yet received
	cnt     []int64 // the requests received from j, mod M
}

// mod returns x modulo M, in 0..M−1.
func (b *rounds) mod(x int64) int64 { return ((x % b.m) + b.m) % b.m }

// round returns the node's round length L, 0 for unbounded numbers.
func (nd *Node) round() int {
	if nd.bnd == nil {
		return 0
	}
	return int(nd.bnd.l)
}

// newer reports whether request number r from j is higher than any
// received from j: r > RN[j]; when bounded, r lies within L ahead of RN[j]
// modulo M (at most a round of j's requests is unreceived here).
func (nd *Node) newer(j proto.NodeID, r int64) bool {
	if b := nd.bnd; b != nil {
		d := b.mod(r - nd.rn[j])
		return d >= 1 && d <= b.l
	}
	return r > nd.rn[j]
}

// grantGap returns RN[j] − LN[j] for node j's own number r and the token's
// ln, modulo M when bounded: 0 when j's latest request is granted, 1 while
// it waits.
func (nd *Node) grantGap(r, ln int64) int64 {
	if b := nd.bnd; b != nil {
		return b.mod(r - ln)
	}
	return r - ln
}

// ack receives a node's ack of the node's last complete round; the last of
// N−1 sends a request that was pending.
func (nd *Node) ack(out *proto.Output) {
	b := nd.bnd
	if b == nil || b.owed == 0 {
		return // cannot happen without failures: a round is acked once
	}
	b.owed--
	if b.owed == 0 && b.pending {
		b.pending = false
		nd.sendRequests(out)
	}
}

// pending reports whether the node's request waits for acks, unsent.
func (nd *Node) pending() bool { return nd.bnd != nil && nd.bnd.pending }

// Bounded is Suzuki–Kasami's algorithm with request numbers bounded by
// rounds of L requests (the survey's variant; see the package doc).
type Bounded struct {
	// L is the round length, at least 2; DefaultL for the zero value.
	L int
}

// Name implements proto.Algorithm.
func (Bounded) Name() string { return "suzuki-kasami-bounded" }

// MemoryPerNode implements proto.MemoryEstimator: RN, its serials and the
// counts at every node, and the token's LN: about 20 bytes per node of the
// system at each node.
func (Bounded) MemoryPerNode(n int) int64 { return 20*int64(n) + 96 }

// NewNodes implements proto.Algorithm: node 0 holds the token.
func (a Bounded) NewNodes(n int) []proto.Node {
	l := a.round()
	return nodecast.New(n, func(nd *Node, id proto.NodeID) { nd.init(id, n, l) })
}

// round returns L, DefaultL for the zero Bounded.
func (a Bounded) round() int {
	if a.L < 2 {
		return DefaultL
	}
	return a.L
}

// Family implements proto.Algorithm.
func (Bounded) Family() proto.Family { return proto.TokenBased }

// MessageTypes implements proto.Algorithm.
func (Bounded) MessageTypes() []proto.MessageType { return boundedTypes }

// Events implements proto.Algorithm: none.
func (Bounded) Events() []string { return nil }

// StatedCost implements proto.CostAlgorithm: the survey's L·N + (N−1)
// messages for L entries (§4 on Suzuki–Kasami; Table 1), per entry
// (L·N + (N−1))/L; 0 when the requester holds the idle token.
func (a Bounded) StatedCost(n int) proto.Cost {
	l := a.round()
	return proto.Cost{Low: 0, High: float64(l*n+n-1) / float64(l), Text: fmt.Sprintf("L·N+(N−1) per L entries, L=%d", l),
		Source: "survey T1, §4", Kind: proto.Range}
}

// Invariants implements proto.Algorithm: TokenState after every step;
// HolderKnows and RoundsAcknowledged whenever no message is in flight.
// Nothing with crashes (the algorithm has no failure protocol).
func (Bounded) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	return []proto.Invariant{
		{Name: "token state", When: proto.EveryStep, Check: TokenState},
		{Name: "holder knows every request", When: proto.Quiet, Check: HolderKnows},
		{Name: "rounds acknowledged", When: proto.Quiet, Check: RoundsAcknowledged},
	}
}

// RoundsAcknowledged checks, when no message is in flight, what bounding
// the numbers rests on: every node has received every request of every
// other (its RN[i] and its count of i's requests are i's own RN[i]), and
// no node owes acks. O(N²). It holds trivially for unbounded numbers.
func RoundsAcknowledged(s proto.System) error {
	nd, err := nodes(s)
	if err != nil {
		return err
	}
	for i, x := range nd {
		b := x.bnd
		if b == nil {
			continue
		}
		if b.owed != 0 {
			return fmt.Errorf("node %d owes %d acks with nothing in flight", i, b.owed)
		}
		own := x.rn[i]
		for k, y := range nd {
			if k != i && y.bnd != nil && (y.rn[i] != own || y.bnd.cnt[i] != own) {
				return fmt.Errorf("node %d has RN[%d] = %d and counted %d of its requests; node %d's own is %d (mod %d)", k, i, y.rn[i], y.bnd.cnt[i], i, own, b.m)
			}
		}
	}
	return nil
}
