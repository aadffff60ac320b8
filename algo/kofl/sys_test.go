package kofl

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/ocbench/ocbench/proto"
)

// sys is a test runtime: the nodes of one ring and FIFO links (the link
// out of node i holds its messages, oldest first), Root's timer, and
// counts. It implements proto.System, enumerating each link in delivery
// order as Legitimate needs.
type sys struct {
	nodes  []*Node
	pn     []proto.Node
	links  [][]proto.Message // by sender id
	timer  proto.Timer
	armed  bool
	out    proto.Output
	events [proto.MaxEvents]int
	hops   int // CToken receipts
	steps  int
	fifo   bool // false: deliver any message of a link (the test of FIFO's need)
	// fastExit makes a node in the critical section leave at the next move
	// (critical sections of no duration).
	fastExit bool
	// app: the requests the test issued and the entries it saw
	issued, served int
	want           []uint32 // node i's outstanding request (0: none)
}

func newSys(c Config, n int) *sys {
	s := &sys{nodes: Algorithm{c}.Nodes(n), links: make([][]proto.Message, n), want: make([]uint32, n), fifo: true}
	for _, nd := range s.nodes {
		s.pn = append(s.pn, nd)
	}
	return s
}

// start calls Start on every node, in id order.
func (s *sys) start() error {
	for _, nd := range s.nodes {
		s.out.Reset()
		nd.Start(&s.out)
		if err := s.apply(nd.id); err != nil {
			return err
		}
	}
	return nil
}

func (s *sys) Nodes() []proto.Node    { return s.pn }
func (s *sys) Down(proto.NodeID) bool { return false }
func (s *sys) ForEachInFlight(f func(m *proto.Message)) {
	for k := range s.nodes {
		l := s.links[ringAt(k, len(s.nodes))]
		for i := range l {
			f(&l[i])
		}
	}
}

func (s *sys) inFlight() int {
	t := 0
	for _, l := range s.links {
		t += len(l)
	}
	return t
}

func (s *sys) ctokens() int {
	c := 0
	for _, l := range s.links {
		for _, m := range l {
			if m.Type == CToken {
				c++
			}
		}
	}
	return c
}

// step steps node id with in and queues what it sends.
func (s *sys) step(id proto.NodeID, in proto.Input) error {
	nd := s.nodes[id]
	before := nd.View()
	s.out.Reset()
	nd.Step(in, &s.out)
	s.steps++
	after := nd.View()
	if s.out.Enter != (after.InCS && !before.InCS) {
		return fmt.Errorf("node %d after %s: Enter %v, in CS %v → %v", id, in.Kind, s.out.Enter, before.InCS, after.InCS)
	}
	if s.out.Enter {
		if w := s.want[id]; w != 0 {
			if after.Tag != w {
				return fmt.Errorf("node %d entered with tag %d, its request is %d", id, after.Tag, w)
			}
			s.want[id] = 0
			s.served++
		}
	}
	return s.apply(id)
}

func (s *sys) apply(id proto.NodeID) error {
	for _, m := range s.out.Msgs {
		if m.From != id || m.To != s.nodes[id].next {
			return fmt.Errorf("node %d sent a message %d→%d, off its ring link", id, m.From, m.To)
		}
		s.links[id] = append(s.links[id], m)
	}
	for _, t := range s.out.Timers {
		if id != 0 || t.Kind != TimerCToken || t.After <= 0 {
			return fmt.Errorf("node %d set timer %+v", id, t)
		}
		s.timer, s.armed = t, true
	}
	for k, e := range s.out.Events {
		s.events[k] += int(e)
	}
	return nil
}

// deliver delivers the oldest message of the link out of node from (any
// of its messages if !fifo).
func (s *sys) deliver(from proto.NodeID, rng *rand.Rand) error {
	l := s.links[from]
	k := 0
	if !s.fifo {
		k = rng.IntN(len(l))
	}
	m := l[k]
	s.links[from] = slices.Delete(l, k, k+1)
	if m.Type == CToken {
		s.hops++
	}
	return s.step(m.To, proto.Input{Kind: proto.Receive, Msg: m})
}

// fire fires Root's timer: the test's timeout is exact, it fires when no
// CToken is left in flight.
func (s *sys) fire() error {
	if !s.armed {
		return fmt.Errorf("no CToken in flight and Root's timer is not armed")
	}
	s.armed = false
	return s.step(0, proto.Input{Kind: proto.Fire, Timer: s.timer})
}

// randomLink returns a node whose out-link is not empty, at random.
func (s *sys) randomLink(rng *rand.Rand) proto.NodeID {
	k := rng.IntN(s.inFlight())
	for i, l := range s.links {
		if k < len(l) {
			return proto.NodeID(i)
		}
		k -= len(l)
	}
	panic("no message")
}

// act makes one random move: a request at a node outside (while fewer
// than limit were issued), an exit from the critical section, or (most
// often) the delivery of the oldest message of a random link, weighted by
// the messages in flight; or Root's timeout when no CToken is in flight.
func (s *sys) act(rng *rand.Rand, limit int) error {
	if s.ctokens() == 0 {
		return s.fire()
	}
	if s.fastExit {
		for i, nd := range s.nodes {
			if nd.View().InCS {
				return s.step(proto.NodeID(i), proto.Input{Kind: proto.ExitCS})
			}
		}
	}
	switch a := rng.IntN(20); {
	case a < 3 && s.issued < limit:
		i := rng.IntN(len(s.nodes))
		if s.nodes[i].View().Asked {
			return nil
		}
		s.issued++
		tag := uint32(s.issued*len(s.nodes) + i)
		s.want[i] = tag
		return s.step(proto.NodeID(i), proto.Input{Kind: proto.EnterCS, Tag: tag})
	case a < 6:
		i := rng.IntN(len(s.nodes))
		if !s.nodes[i].View().InCS {
			return nil
		}
		return s.step(proto.NodeID(i), proto.Input{Kind: proto.ExitCS})
	}
	return s.deliver(s.randomLink(rng), rng)
}
