package neilsenmizuno

import (
	"fmt"

	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Invariants implements proto.Algorithm: without crashes, EdgeItems and
// NextQueue after every step, and OneSink when no message is in flight.
// None with crashes (the algorithm has no failure protocol).
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	return []proto.Invariant{
		{Name: "edge_items", When: proto.EveryStep, Check: EdgeItems},
		{Name: "next_queue", When: proto.EveryStep, Check: NextQueue},
		{Name: "one_sink", When: proto.Quiet, Check: OneSink},
	}
}

func nodesOf(s proto.System) []*Node { return nodecast.All[*Node](s) }

// edge returns the child end of tree edge {a, b} (its key), or -1 if a and
// b are not neighbours in the tree.
func edge(nodes []*Node, a, b proto.NodeID) int {
	switch {
	case a < 0 || b < 0:
		return -1
	case nodes[b].father == a:
		return int(b)
	case nodes[a].father == b:
		return int(a)
	}
	return -1
}

// EdgeItems checks that every last pointer and every request in flight
// lies along a tree edge, and that each tree edge carries exactly one of
// them: last of one end pointing at the other, or a request in flight
// between them (in either direction).
func EdgeItems(s proto.System) error {
	nodes := nodesOf(s)
	count := make([]uint8, len(nodes)) // by child end; entry 0 unused
	for _, nd := range nodes {
		if nd.last == proto.Nil {
			continue
		}
		e := edge(nodes, nd.id, nd.last)
		if e < 0 {
			return fmt.Errorf("node %d's last %d is not a tree neighbour", nd.id, nd.last)
		}
		count[e]++
	}
	var err error
	s.ForEachInFlight(func(m *proto.Message) {
		if err != nil || m.Type != Request {
			return
		}
		e := edge(nodes, m.From, m.To)
		if e < 0 {
			err = fmt.Errorf("request %d→%d not along a tree edge", m.From, m.To)
			return
		}
		count[e]++
	})
	if err != nil {
		return err
	}
	for c := 1; c < len(count); c++ {
		if count[c] != 1 {
			return fmt.Errorf("tree edge %d–%d carries %d last pointers and requests, want 1", nodes[c].father, c, count[c])
		}
	}
	return nil
}

// NextQueue checks the implicit queue: a node's next is a node that waits
// for the token (asked, not in its CS, not holding), and no two nodes name
// the same next nor a token in flight goes to it; a node with a next has a
// request of its own (waiting or in its CS); the holder of the idle token
// is a sink with no next and no request.
func NextQueue(s proto.System) error {
	nodes := nodesOf(s)
	named := make([]bool, len(nodes))
	mark := func(j, by proto.NodeID) error {
		w := nodes[j]
		if !w.asked || w.inCS || w.holding {
			return fmt.Errorf("node %d is next of %d but does not wait for the token", j, by)
		}
		if named[j] {
			return fmt.Errorf("node %d is named twice in the queue (again by %d)", j, by)
		}
		named[j] = true
		return nil
	}
	for _, nd := range nodes {
		if nd.holding && (nd.last != proto.Nil || nd.next != proto.Nil || nd.asked || nd.inCS) {
			return fmt.Errorf("node %d holds the idle token with last %d, next %d, asked %v", nd.id, nd.last, nd.next, nd.asked)
		}
		if nd.next == proto.Nil {
			continue
		}
		if !nd.asked {
			return fmt.Errorf("node %d has next %d but no request", nd.id, nd.next)
		}
		if err := mark(nd.next, nd.id); err != nil {
			return err
		}
	}
	var err error
	s.ForEachInFlight(func(m *proto.Message) {
		if err == nil && m.Type == Token {
			err = mark(m.To, m.From)
		}
	})
	return err
}

// OneSink checks that, when no message is in flight, exactly one node is a
// sink (last = Nil): the end of the path of every request.
func OneSink(s proto.System) error {
	sinks := 0
	for _, nd := range nodesOf(s) {
		if nd.last == proto.Nil {
			sinks++
		}
	}
	if sinks != 1 {
		return fmt.Errorf("%d sinks with nothing in flight, want 1", sinks)
	}
	return nil
}
