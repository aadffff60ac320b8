package helaryplouzeauraynal

import (
	"slices"

	"github.com/ocbench/ocbench/internal/tokennode"
	"github.com/ocbench/ocbench/proto"
)

// The message types.
const (
	Request proto.MsgType = iota // J = origin, Stamp = its time; Payload = the path, then the set of nodes sent to
	Token                        // J = destination; Payload = the granted times, then the rest of the route
)

var messageTypes = []proto.MessageType{
	{Name: "request", Arg: "", Stamp: "the request's time (the origin's Lamport clock)",
		Payload: "k, the path origin … sender (k ids), then the bitset of the nodes already sent the request"},
	{Name: "token", Token: true, Arg: "", Stamp: "the sender's Lamport clock",
		Payload: "the time of every node's last granted request (N words), then the route left, destination first"},
}

// Node is one node of the Hélary–Plouzeau–Raynal algorithm. Only Step
// changes it.
type Node struct {
	tokennode.State
	id        proto.NodeID
	n         int
	neighbors []proto.NodeID
	clock     uint64

	// What the node knows of every origin's latest request: its time, its
	// serial, and the path by which it came (origin first, the neighbour
	// that sent it last).
	known    []uint64
	knownTag []uint32
	path     [][]proto.NodeID
	// granted is the time of every node's last granted request, as this
	// node last saw the token's; the token's own while held.
	granted []uint64
}

func (nd *Node) reset() {
	*nd = Node{State: tokennode.State{TokenHere: nd.id == 0}, id: nd.id, n: nd.n, neighbors: nd.neighbors,
		known: nd.known, knownTag: nd.knownTag, path: nd.path, granted: nd.granted}
	clear(nd.known)
	clear(nd.knownTag)
	clear(nd.granted)
	for j := range nd.path {
		nd.path[j] = nd.path[j][:0]
	}
}

// Step implements proto.Node.
func (nd *Node) Step(in proto.Input, out *proto.Output) {
	switch nd.Gate(in, out) {
	case tokennode.Ask:
		nd.clock++
		nd.known[nd.id], nd.knownTag[nd.id] = nd.clock, in.Tag
		nd.path[nd.id] = append(nd.path[nd.id][:0], nd.id)
		nd.propagate(nd.id, nil, nil, out)
	case tokennode.Leave:
		nd.granted[nd.id] = nd.known[nd.id]
		nd.transmit(out)
	case tokennode.Deliver:
		m := &in.Msg
		nd.clock = max(nd.clock, m.Stamp)
		switch m.Type {
		case Request:
			nd.request(m, out)
		case Token:
			nd.token(m, out)
		}
	}
}

// Recover implements proto.Recoverer: the node starts again as NewNodes
// made it.
func (nd *Node) Recover(*proto.Output) { nd.reset() }

// words is the length of the bitset of n nodes.
func words(n int) int { return (n + 63) / 64 }

// propagate sends origin's request to the neighbours not in sent (the
// bitset of the nodes already sent it; nil: none), adding them to it;
// path is the path so far, this node excluded.
func (nd *Node) propagate(origin proto.NodeID, path []int64, sent []int64, out *proto.Output) {
	w := words(nd.n)
	set := make([]int64, w)
	copy(set, sent)
	set[nd.id/64] |= 1 << (nd.id % 64)
	var to []proto.NodeID
	for _, k := range nd.neighbors {
		if set[k/64]&(1<<(k%64)) == 0 {
			to = append(to, k)
			set[k/64] |= 1 << (k % 64)
		}
	}
	if len(to) == 0 {
		return
	}
	p := make([]int64, 0, 1+len(path)+1+w)
	p = append(p, int64(len(path)+1))
	p = append(p, path...)
	p = append(p, int64(nd.id))
	p = append(p, set...)
	for _, k := range to {
		out.Msgs = append(out.Msgs, proto.Message{Type: Request, From: nd.id, To: k, J: proto.RefTo(origin),
			Stamp: nd.known[origin], Tag: nd.knownTag[origin], Payload: p})
	}
}

// request handles a request: a new one is recorded with its path and
// passed on to the neighbours not yet sent it; an idle holder transmits
// the token.
func (nd *Node) request(m *proto.Message, out *proto.Output) {
	o := m.J.Node()
	if m.Stamp <= nd.known[o] || m.Stamp <= nd.granted[o] {
		return // known already, or outdated
	}
	k := int(m.Payload[0])
	path := m.Payload[1 : 1+k]
	nd.known[o], nd.knownTag[o] = m.Stamp, m.Tag
	nd.path[o] = nd.path[o][:0]
	for _, v := range path {
		nd.path[o] = append(nd.path[o], proto.NodeID(v))
	}
	nd.propagate(o, path, m.Payload[1+k:], out)
	if nd.TokenHere && !nd.Asked {
		nd.transmit(out)
	}
}

// transmit sends the token, at its holder, to the oldest pending request
// it knows of, by (time, id), along that request's path; with none, the
// holder keeps the idle token.
func (nd *Node) transmit(out *proto.Output) {
	best := proto.Nil
	for j := range proto.NodeID(nd.n) {
		if j != nd.id && nd.known[j] > nd.granted[j] &&
			(best == proto.Nil || nd.known[j] < nd.known[best] || nd.known[j] == nd.known[best] && j < best) {
			best = j
		}
	}
	if best == proto.Nil {
		return
	}
	nd.granted[best] = nd.known[best]
	route := nd.path[best] // origin … the neighbour that sent it here
	p := make([]int64, nd.n, nd.n+len(route)-1)
	for j, g := range nd.granted {
		p[j] = int64(g)
	}
	for _, v := range route[:len(route)-1] {
		p = append(p, int64(v))
	}
	nd.TokenHere = false
	out.Msgs = append(out.Msgs, proto.Message{Type: Token, From: nd.id, To: route[len(route)-1], J: proto.RefTo(best),
		Stamp: nd.clock, Tag: nd.knownTag[best], Payload: p})
}

// token handles the token: at its destination the node enters; elsewhere
// it passes it on along the route.
func (nd *Node) token(m *proto.Message, out *proto.Output) {
	for j := range nd.granted {
		nd.granted[j] = max(nd.granted[j], uint64(m.Payload[j]))
	}
	if m.J.Is(nd.id) {
		nd.TokenHere = true
		if nd.Asked {
			nd.InCS, out.Enter = true, true
			return
		}
		nd.transmit(out)
		return
	}
	route := m.Payload[nd.n:]
	next := proto.NodeID(route[len(route)-1])
	out.Msgs = append(out.Msgs, proto.Message{Type: Token, From: nd.id, To: next, J: m.J, Stamp: nd.clock, Tag: m.Tag,
		Payload: slices.Clip(m.Payload[:len(m.Payload)-1])})
}

// View implements proto.Node.
func (nd *Node) View() proto.View { return nd.State.View() }

// Waiting implements proto.Node: the node itself while it waits for the
// token; at the holder, every request it knows is not granted.
func (nd *Node) Waiting(f func(j proto.NodeID)) {
	if nd.Waits() {
		f(nd.id)
	}
	if nd.TokenHere {
		for j := range proto.NodeID(nd.n) {
			if j != nd.id && nd.known[j] > nd.granted[j] {
				f(j)
			}
		}
	}
}
