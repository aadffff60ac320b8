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

// numbering is how a node numbers its requests: Suzuki–Kasami's unbounded
// integers (unbounded), or the bounded variant's rounds of L modulo M = 2L
// (*rounds). r is a request number, rn a node's RN[j], ln the token's
// LN[j].
type numbering interface {
	// next returns the number of the node's next request after its own r
	// in an n-node system (and, bounded, starts waiting for the acks of
	// a round it completes).
	next(r int64, n int) int64
	// hold reports whether a new request must wait for the acks of the
	// previous round, and then notes that it waits (pending).
	hold() bool
	// newer reports whether r from j is higher than any received: r > rn;
	// bounded, r lies within L ahead of rn modulo M (at most a round of
	// j's requests is unreceived here).
	newer(r, rn int64) bool
	// unserved reports whether j's latest request is not granted by the
	// token: rn > ln; bounded, rn = ln+1 (mod M).
	unserved(rn, ln int64) bool
	// gap returns rn − ln (mod M when bounded): 0 when j's latest request
	// is granted, 1 while it waits.
	gap(rn, ln int64) int64
	// count counts a request received from j and returns the count and
	// whether it completes a round to acknowledge (bounded).
	count(j proto.NodeID) (int64, bool)
	// acked takes an ack of the node's last complete round and reports
	// whether a pending request is to be sent now.
	acked() bool
	// pending reports whether the node's request waits for acks, unsent.
	pending() bool
	// regrant reports whether a token that arrives at a node that does not
	// ask grants the node's own latest number (a request it gave up).
	regrant() bool
	// round returns L, 0 for unbounded numbers.
	round() int
}

// unbounded is Suzuki–Kasami's numbering: integers, no ack.
type unbounded struct{}

func (unbounded) next(r int64, _ int) int64        { return r + 1 }
func (unbounded) hold() bool                       { return false }
func (unbounded) newer(r, rn int64) bool           { return r > rn }
func (unbounded) unserved(rn, ln int64) bool       { return rn > ln }
func (unbounded) gap(rn, ln int64) int64           { return rn - ln }
func (unbounded) count(proto.NodeID) (int64, bool) { return 0, false }
func (unbounded) acked() bool                      { return false } // cannot happen: no ack is sent
func (unbounded) pending() bool                    { return false }
func (unbounded) regrant() bool                    { return true }
func (unbounded) round() int                       { return 0 }

// rounds is a node's numbering for request numbers bounded in rounds of L.
type rounds struct {
	l, m  int64   // the round length L and the modulus M = 2L
	waits bool    // asked, and its request waits for the previous round's acks
	owed  int     // acks of its last complete round not yet received
	cnt   []int64 // the requests received from j, mod M
}

// mod returns x modulo M, in 0..M−1.
func (b *rounds) mod(x int64) int64 { return ((x % b.m) + b.m) % b.m }

func (b *rounds) next(r int64, n int) int64 {
	r = b.mod(r + 1)
	if r%b.l == 0 {
		b.owed = n - 1
	}
	return r
}

func (b *rounds) hold() bool {
	if b.owed > 0 {
		b.waits = true
		return true
	}
	return false
}

func (b *rounds) newer(r, rn int64) bool {
	d := b.mod(r - rn)
	return d >= 1 && d <= b.l
}

func (b *rounds) unserved(rn, ln int64) bool { return b.mod(rn-ln) == 1 }
func (b *rounds) gap(rn, ln int64) int64     { return b.mod(rn - ln) }

func (b *rounds) count(j proto.NodeID) (int64, bool) {
	b.cnt[j] = b.mod(b.cnt[j] + 1)
	return b.cnt[j], b.cnt[j]%b.l == 0
}

func (b *rounds) acked() bool {
	if b.owed == 0 {
		return false // cannot happen without failures: a round is acked once
	}
	b.owed--
	if b.owed == 0 && b.waits {
		b.waits = false
		return true
	}
	return false
}

func (b *rounds) pending() bool { return b.waits }
func (b *rounds) regrant() bool { return false }
func (b *rounds) round() int    { return int(b.l) }

// check returns an error unless the rounds' state is consistent in an
// n-node system: 0 ≤ owed ≤ n−1, and a pending request owes acks.
func (b *rounds) check(n int) error {
	if b.owed < 0 || b.owed > n-1 || b.waits && b.owed == 0 {
		return fmt.Errorf("pending=%v with %d acks owed", b.waits, b.owed)
	}
	return nil
}

// ack receives a node's ack of the node's last complete round; the last of
// N−1 sends a request that was pending.
func (nd *Node) ack(out *proto.Output) {
	if nd.num.acked() {
		nd.sendRequests(out)
	}
}

// pending reports whether the node's request waits for acks, unsent.
func (nd *Node) pending() bool { return nd.num.pending() }

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
	return append([]proto.Invariant{TokenStateInvariant(), HolderKnowsInvariant()},
		proto.Invariant{Name: "rounds acknowledged", When: proto.Quiet, Check: RoundsAcknowledged})
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
		b, ok := x.num.(*rounds)
		if !ok {
			continue
		}
		if b.owed != 0 {
			return fmt.Errorf("node %d owes %d acks with nothing in flight", i, b.owed)
		}
		own := x.rn[i]
		for k, y := range nd {
			yb, ok := y.num.(*rounds)
			if k != i && ok && (y.rn[i] != own || yb.cnt[i] != own) {
				return fmt.Errorf("node %d has RN[%d] = %d and counted %d of its requests; node %d's own is %d (mod %d)", k, i, y.rn[i], yb.cnt[i], i, own, b.m)
			}
		}
	}
	return nil
}
