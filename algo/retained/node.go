package retained

import (
	"math/bits"

	"github.com/ocbench/ocbench/algo/tsorder"
	"github.com/ocbench/ocbench/proto"
)

// The message types.
const (
	Request proto.MsgType = iota // request(ts): From asks To for its permission
	Reply                        // reply: From's permission, kept by To (Singhal: Stamp = From's clock)
)

// deferral is a request a node answers at its exit.
type deferral struct {
	j   proto.NodeID
	tag uint32
}

// Node is one node of either algorithm (Algorithm says which).
type Node struct {
	ID  proto.NodeID
	n   int
	alg Algorithm

	proto.Life
	requesting bool // a request is pending (not yet in the CS)
	inCS       bool
	tag        uint32 // serial of the current (or last) request
	ts         uint64 // timestamp of the current (or last) request
	highest    uint64 // highest timestamp seen (Singhal's clock C_i)

	perm     []uint64   // bit j: node j's permission is held (A_i[j]; Singhal: j ∉ R_i)
	held     int        // number of permissions held
	deferred []deferral // Singhal's inform set I_i
}

func newNode(a Algorithm, id proto.NodeID, n int) *Node {
	nd := &Node{ID: id, n: n, alg: a, perm: make([]uint64, (n+63)/64)}
	nd.init()
	return nd
}

// init puts the node in its initial state: up, idle, and holding no
// permission (Carvalho–Roucairol) or, in Singhal's staircase, the
// permission of every node above it (R_i = {0, …, i−1} ∪ {i}).
func (nd *Node) init() {
	clear(nd.perm)
	*nd = Node{ID: nd.ID, n: nd.n, alg: nd.alg, perm: nd.perm, deferred: nd.deferred[:0]}
	if nd.alg.staircase {
		for j := nd.ID + 1; j < proto.NodeID(nd.n); j++ {
			nd.take(j)
		}
	}
}

// Holds reports whether the node holds node j's permission.
func (nd *Node) Holds(j proto.NodeID) bool { return nd.perm[j>>6]&(1<<(uint(j)&63)) != 0 }

func (nd *Node) give(j proto.NodeID) {
	if nd.Holds(j) {
		nd.perm[j>>6] &^= 1 << (uint(j) & 63)
		nd.held--
	}
}

func (nd *Node) take(j proto.NodeID) {
	if !nd.Holds(j) {
		nd.perm[j>>6] |= 1 << (uint(j) & 63)
		nd.held++
	}
}

// Step implements proto.Node.
func (nd *Node) Step(in proto.Input, out *proto.Output) {
	switch in.Kind {
	case proto.EnterCS:
		nd.enterCS(in.Tag, out)
	case proto.ExitCS:
		nd.exitCS(out)
	case proto.Receive:
		switch in.Msg.Type {
		case Request:
			nd.request(in.Msg, out)
		case Reply:
			if nd.alg.clockInReplies {
				nd.highest = max(nd.highest, in.Msg.Stamp)
			}
			nd.take(in.Msg.From)
			nd.tryEnter(out)
		}
	}
}

// Recover implements proto.Recoverer.
func (nd *Node) Recover(*proto.Output) {
	nd.init()
}

// reply sends j the node's permission for request tag.
func (nd *Node) reply(out *proto.Output, j proto.NodeID, tag uint32) {
	var gen uint64
	if nd.alg.clockInReplies {
		gen = nd.highest
	}
	nd.send(out, Reply, j, gen, tag)
}

func (nd *Node) send(out *proto.Output, t proto.MsgType, to proto.NodeID, gen uint64, tag uint32) {
	out.Msgs = append(out.Msgs, proto.Message{Type: t, Cause: proto.Normal, From: nd.ID, To: to,
		Stamp: gen, Tag: tag})
}

// enterCS: stamp the request and ask every node whose permission is missing.
func (nd *Node) enterCS(tag uint32, out *proto.Output) {
	if nd.requesting || nd.inCS {
		return
	}
	nd.requesting, nd.tag = true, tag
	nd.highest++
	nd.ts = nd.highest
	for w, word := range nd.perm {
		missing := ^word
		if rest := nd.n - 64*w; rest < 64 {
			missing &= 1<<uint(rest) - 1
		}
		for missing != 0 {
			b := bits.TrailingZeros64(missing)
			missing &= missing - 1
			if j := proto.NodeID(64*w + b); j != nd.ID {
				nd.send(out, Request, j, nd.ts, tag)
			}
		}
	}
	nd.tryEnter(out)
}

// tryEnter enters the CS if the node is requesting and holds every
// permission.
func (nd *Node) tryEnter(out *proto.Output) {
	if nd.requesting && nd.held == nd.n-1 {
		nd.requesting, nd.inCS = false, true
		out.Enter = true
	}
}

// request: receipt of request(ts) from j.
func (nd *Node) request(m proto.Message, out *proto.Output) {
	j := m.From
	nd.highest = max(nd.highest, m.Stamp)
	if nd.inCS || (nd.requesting && tsorder.Before(nd.ts, nd.ID, m.Stamp, j)) {
		nd.deferred = append(nd.deferred, deferral{j: j, tag: m.Tag})
		return
	}
	had := nd.Holds(j)
	nd.give(j)
	nd.reply(out, j, m.Tag)
	if nd.requesting && had {
		// The special case: j's older request takes a permission that this
		// pending request had counted on; ask for it back.
		nd.send(out, Request, j, nd.ts, nd.tag)
	}
}

// exitCS: leave the CS and answer every deferred request.
func (nd *Node) exitCS(out *proto.Output) {
	if !nd.inCS {
		return
	}
	nd.inCS = false
	for _, d := range nd.deferred {
		nd.give(d.j)
		nd.reply(out, d.j, d.tag)
	}
	nd.deferred = nd.deferred[:0]
}

// View implements proto.Node.
func (nd *Node) View() proto.View {
	return proto.View{Bits: proto.Bits{Up: nd.Up(), InCS: nd.inCS, Asked: nd.requesting || nd.inCS}, Tag: nd.tag, Gen: nd.highest}
}

// Waiting implements proto.Node: the node's own pending request, and the
// requests it defers.
func (nd *Node) Waiting(f func(j proto.NodeID)) {
	if nd.requesting {
		f(nd.ID)
	}
	for _, d := range nd.deferred {
		f(d.j)
	}
}
