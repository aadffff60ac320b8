package kofl

import (
	"math/rand/v2"

	"github.com/ocbench/ocbench/proto"
)

// Scramble sets every variable of the node to a value drawn from its
// domain (a transient fault): the mode (a request or a critical section
// the fault invents has Tag 0), NEED in 1..K, T_h and T_d in 0..K each,
// MySeq in 0..MaxSeq, MyT_c in 0..MaxV_c, MyT_a in 0..min(2·MaxV_c, ℓ),
// MyOrder, and at Root C_e and C_f in 0..ℓ+1 and Disabling. Root's timer is the
// runtime's: Start arms it.
func (nd *Node) Scramble(rng *rand.Rand) {
	p := nd.p
	l := Local{
		Mode:    Mode(rng.IntN(3)),
		Need:    1 + rng.IntN(p.K),
		Th:      rng.IntN(p.K + 1),
		Td:      rng.IntN(p.K + 1),
		MySeq:   rng.Uint64N(p.mod),
		MyTc:    rng.IntN(p.maxVc + 1),
		MyTa:    rng.IntN(p.maxTa + 1),
		MyOrder: rng.IntN(2) == 1,
	}
	if nd.Root() {
		l.Ce, l.Cf, l.Disabling = rng.IntN(p.maxC+1), rng.IntN(p.maxC+1), rng.IntN(2) == 1
	}
	nd.SetLocal(l)
}

// Junk returns an arbitrary message on the link out of the node: a type
// drawn uniformly, and its fields from their domains (Seq in 0..MaxSeq,
// T_a in 0..min(2·MaxV_c, ℓ), T_c in 0..MaxV_c, Order 0 or 1).
func (nd *Node) Junk(rng *rand.Rand) proto.Message {
	p := nd.p
	m := proto.Message{Type: proto.MsgType(rng.IntN(int(numTypes))), Cause: proto.Normal,
		From: nd.id, To: nd.next}
	switch m.Type {
	case CToken:
		m.Stamp = rng.Uint64N(p.mod)
	case Allocate:
		m.Stamp, m.Phase = uint64(rng.IntN(p.maxTa+1)), uint8(rng.IntN(2))
	case Collect:
		m.Stamp = uint64(rng.IntN(p.maxVc + 1))
	}
	return m
}

// Arbitrary makes an arbitrary configuration (the transient-fault model):
// it scrambles every node and returns the messages it puts in the links,
// 0..linkCap on each, drawn by Junk, link by link (from node 0's link on
// along the ring), each link's oldest first.
func Arbitrary(nodes []*Node, rng *rand.Rand, linkCap int) []proto.Message {
	var msgs []proto.Message
	for _, nd := range nodes {
		nd.Scramble(rng)
	}
	for k := range nodes {
		nd := nodes[ringAt(k, len(nodes))]
		for range rng.IntN(linkCap + 1) {
			msgs = append(msgs, nd.Junk(rng))
		}
	}
	return msgs
}
