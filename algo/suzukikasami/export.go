package suzukikasami

import "github.com/ocbench/ocbench/proto"

// What a variant of Suzuki–Kasami with a failure protocol (package
// mishrasrimani) uses of a node: it embeds a Node, steps it with the
// failure-free inputs (a regenerated token is installed as the receipt of a
// Token message, a request learned from a recovery as a Request), reads the
// request state in the node's tokennode.State, and reads or resets the rest
// here.

// SuzukiKasami returns the node itself; the invariants read a system's
// nodes through it, so that they apply to a node that embeds one.
func (nd *Node) SuzukiKasami() *Node { return nd }

// Init puts the node in its initial state, node 0 holding the token.
func (nd *Node) Init(id proto.NodeID, n int) { nd.init(id, n, 0) }

// ID returns the node's id.
func (nd *Node) ID() proto.NodeID { return nd.id }

// N returns the number of nodes.
func (nd *Node) N() int { return nd.n }

// RN returns RN[j], the highest request number the node has received from
// j (its own for j = ID), and the serial of that request.
func (nd *Node) RN(j proto.NodeID) (int64, uint32) { return nd.rn[j], nd.rnTag[j] }

// SetOwnRN sets the node's own request number RN[ID] (a recovered node
// learns it from the others before it asks again); its next request is
// r+1.
func (nd *Node) SetOwnRN(r int64) { nd.rn[nd.id] = r }

// LN returns the held token's LN[j], or 0 if the node holds no token.
func (nd *Node) LN(j proto.NodeID) int64 {
	if !nd.TokenHere {
		return 0
	}
	return nd.ln[j]
}

// Queue calls f for every entry of the held token's queue Q, head first.
func (nd *Node) Queue(f func(j proto.NodeID, tag uint32)) {
	if !nd.TokenHere {
		return
	}
	for _, e := range nd.q {
		f(unpack(e))
	}
}

// DropToken forgets the token the node holds, if any (a recovered node
// comes back without one).
func (nd *Node) DropToken() {
	for _, e := range nd.q {
		k, _ := unpack(e)
		nd.inQ[k] = false
	}
	nd.q = nd.q[:0]
	nd.TokenHere = false
}

// Entry packs a queue entry of the token's payload: node j's request of
// serial tag.
func Entry(j proto.NodeID, tag uint32) int64 { return entry(j, tag) }

// Unpack unpacks a queue entry of the token's payload.
func Unpack(e int64) (proto.NodeID, uint32) { return unpack(e) }
