package opencube

import (
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
)

// Sons (docs/failures.md, "Where we go beyond the paper"). In an open-cube a
// node has at most one son at each distance d ≤ power: the head of the
// (d−1)-subcube at distance d. After crashes, searches can leave two live
// nodes that both take themselves for that son (both at distance d, so the
// paper's anomaly test, dist > power, passes for both). A node remembers the
// son it knows at each distance; a request from a second node at that
// distance makes it probe the first, and if the first answers that it still
// is its son, the newcomer gets an anomaly and searches again. In the
// failure-free protocol the request of a son at distance d always comes
// from the son the node knows there (or from one it does not know), so no
// probe is ever sent.

// son returns the son this node knows at distance d (Nil if none).
func (n *Node) son(d int) proto.NodeID {
	if d < len(n.sons) {
		return n.sons[d]
	}
	return proto.Nil
}

// setSon records k as this node's son at distance d.
func (n *Node) setSon(d int, k proto.NodeID) {
	if n.cfg.Paper || d < 1 || d > n.rule.PMax {
		return
	}
	if n.sons == nil {
		if k == proto.Nil {
			return
		}
		n.sons = make([]proto.NodeID, n.rule.PMax+1)
		for i := range n.sons {
			n.sons[i] = proto.Nil
		}
	}
	n.sons[d] = k
}

// trimSons forgets the sons beyond the node's power: after its father
// changed, it cannot have sons there.
func (n *Node) trimSons() {
	if n.sons == nil || n.searching {
		return
	}
	for d := n.rule.Power(&n.core) + 1; d < len(n.sons); d++ {
		n.sons[d] = proto.Nil
	}
}

// dist is the distance from this node to k.
func (n *Node) dist(k proto.NodeID) int { return hypercube.Dist(int(n.core.ID), int(k)) }

// drain serves the requests that wait, oldest first, as the general
// scheme's wait (not asked_i) does, checking first that each comes from the
// son the node knows at its distance (probe, above).
func (n *Node) drain(out *proto.Output) {
	c := &n.core
	for n.probeSeq == 0 {
		j, from, ok := c.Next()
		if !ok {
			return
		}
		if from != c.ID && !n.cfg.Paper {
			if d := n.dist(from); d <= n.rule.Power(c) && n.son(d) != proto.Nil && n.son(d) != from {
				n.probe(d, out)
				return
			}
		}
		switch c.ServeNext(out) {
		case scheme.Proxy:
			if j != c.ID {
				// J gets the token from us (now or once we have it) and
				// takes us as its father.
				n.setSon(n.dist(j), j)
			}
		case scheme.Transit:
			n.trimSons()
		}
	}
}

// probe asks the known son at distance d whether it still is our son; the
// request at the head of the queue waits.
func (n *Node) probe(d int, out *proto.Output) {
	n.probeSon, n.probeD = n.son(d), d
	n.send(out, proto.Message{Type: Probe, Cause: proto.Failure, To: n.probeSon})
	n.probeSeq = n.timer(out, timerProbe, n.roundTrip())
}

// probed ends a probe: the son answered that it still is our son (yes), or
// answered no, or did not answer within 2δ.
func (n *Node) probed(yes bool, out *proto.Output) {
	n.probeSeq = 0
	if !yes {
		if n.son(n.probeD) == n.probeSon {
			n.setSon(n.probeD, proto.Nil)
		}
		return // drain goes on with the newcomer
	}
	// The request probed for must still head the queue: it may have been
	// dropped meanwhile as obsolete (a newer one of its requester came).
	_, from, ok := n.core.Next()
	if !ok || from == n.core.ID || from == n.probeSon || n.dist(from) != n.probeD {
		return // drain serves the head, probing again if it must
	}
	out.Events[EvSonConflict]++
	// The requester searches again from phase 1 and finds the head of its
	// subcube, as after the paper's anomaly.
	j, src, tag := n.core.DropNext()
	n.send(out, scheme.NewAnomaly(j, from, src, tag))
}

// receiveSons handles the messages of the son check.
func (n *Node) receiveSons(m proto.Message, out *proto.Output) {
	c := &n.core
	switch m.Type {
	case Probe:
		var r uint8
		if !n.searching && c.Father == m.From {
			r = AnswerOK
		}
		n.send(out, proto.Message{Type: Attach, Cause: proto.Failure, To: m.From, Reply: r})
	case Attach:
		if n.probeSeq != 0 && m.From == n.probeSon {
			n.probed(m.Reply == AnswerOK, out)
		}
	case Reattach:
		// A reattach to every node at some distance (J = none) is only for
		// the sons beyond the sender's power (Phase − 1).
		if n.searching || c.Father != m.From || (!m.J.Is(c.ID) && n.dist(m.From) < int(m.Phase)) {
			return
		}
		if c.Asked {
			// Our request is at our father or beyond, and the token
			// may still come through it (a loan makes it our father
			// again): search once we no longer ask (reattachLater).
			n.reattachFrom = m.From
			return
		}
		out.Events[EvReattach]++
		n.startSearch(1, out)
	}
}

// reattachLater starts the search that a reattach asked for while the node
// was asking, once it no longer asks, if its father is still the sender.
func (n *Node) reattachLater(out *proto.Output) {
	c := &n.core
	if n.reattachFrom == proto.Nil || c.Asked || n.searching {
		return
	}
	if c.Father == n.reattachFrom {
		out.Events[EvReattach]++
		n.startSearch(1, out)
	}
	n.reattachFrom = proto.Nil
}

// attached ends a search with father k: the sons that this node can no
// longer have (its power fell below their distance) search again. It tells
// those it knows; after an anomaly, it also tells every node at the
// distances of the nodes that were transit for the rejected request (it
// knows only the farthest), and those whose father it is search again.
func (n *Node) attached(k proto.NodeID, out *proto.Output) {
	if n.cfg.Paper {
		return
	}
	p := n.dist(k) - 1
	for d := p + 1; d <= max(n.searchPower, n.transitTop); d++ {
		switch s := n.son(d); {
		case s == k:
			// Our new father was our son: it is not any more (our
			// request, re-issued to it, passes through it).
			n.sons[d] = proto.Nil
		case s != proto.Nil:
			n.send(out, proto.Message{Type: Reattach, Cause: proto.Failure, To: s, J: proto.RefTo(s)})
			n.sons[d] = proto.Nil
		case d <= n.transitTop:
			// The nodes that were transit for our rejected request are
			// our sons; we know only the farthest: tell every node at
			// distance d, those of them that are our sons search again.
			lo, hi := hypercube.AtDistance(int(n.core.ID), d)
			for i := lo; i < hi; i++ {
				if proto.NodeID(i) == k {
					continue
				}
				n.send(out, proto.Message{Type: Reattach, Cause: proto.Failure, To: proto.NodeID(i), Phase: uint8(p + 1)})
			}
		}
	}
	n.transitTop = 0
}
