package mishrasrimani

import (
	"fmt"

	"github.com/ocbench/ocbench/algo/suzukikasami"
	"github.com/ocbench/ocbench/internal/incr"
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Invariants implements proto.Algorithm. Without crashes: Suzuki–Kasami's
// (the token's LN and Q against every node's request numbers, and the
// holder knowing every request when nothing is in flight), TokenGen and
// HeldToken. With crashes, HeldToken.
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	held := proto.Invariant{Name: "held token", When: proto.EveryStep, Check: HeldToken,
		Incremental: incr.Local(HeldToken, func(s proto.System, i proto.NodeID) bool {
			x, ok := s.Nodes()[i].(*Node)
			return !ok || heldAt(s, x, int(i), len(s.Nodes())) != nil
		})}
	if crashes {
		return []proto.Invariant{held}
	}
	return []proto.Invariant{
		suzukikasami.TokenStateInvariant(),
		suzukikasami.HolderKnowsInvariant(),
		{Name: "token generation", When: proto.EveryStep, Check: TokenGen, Incremental: func() proto.Incremental { return &tokenGen{} }},
		held,
	}
}

func nodes(s proto.System) ([]*Node, error) {
	return nodecast.Checked(s, "Mishra–Srimani", nodecast.Is[*Node])
}

// TokenGen checks, without crashes, in O(N) plus the messages in flight,
// that no token in flight names a generation newer than every node knows
// (generations are made only by a regeneration, whose creator takes the
// new one first). With crashes a node forgets its generation, so this is
// not checked.
func TokenGen(s proto.System) error {
	nd, err := nodes(s)
	if err != nil {
		return err
	}
	var newest uint64
	for _, x := range nd {
		newest = max(newest, x.gen)
	}
	var bad error
	s.ForEachInFlight(func(m *proto.Message) {
		if bad == nil && m.Type == Token && m.Stamp > newest {
			bad = fmt.Errorf("a token of generation %x travels %d→%d, newer than any node knows (%x)", m.Stamp, m.From, m.To, newest)
		}
	})
	return bad
}

// HeldToken checks, in O(N), every up node: a node in the critical
// section holds the token; a node that syncs after a restart holds none;
// a held token's queue Q names distinct nodes, none of them the holder.
func HeldToken(s proto.System) error {
	nd, err := nodes(s)
	if err != nil {
		return err
	}
	for i, x := range nd {
		if err := heldAt(s, x, i, len(nd)); err != nil {
			return err
		}
	}
	return nil
}

// heldAt checks HeldToken at node i, x, of n.
func heldAt(s proto.System, x *Node, i, n int) error {
	if s.Down(proto.NodeID(i)) {
		return nil
	}
	if x.InCS && !x.TokenHere {
		return fmt.Errorf("node %d is in the critical section without the token", i)
	}
	if x.TokenHere && x.syncing {
		return fmt.Errorf("node %d holds the token while it syncs after a restart", i)
	}
	if !x.TokenHere {
		return nil
	}
	var err error
	seen := make(map[proto.NodeID]bool)
	x.Queue(func(j proto.NodeID, _ uint32) {
		switch {
		case err != nil:
		case j < 0 || int(j) >= n:
			err = fmt.Errorf("the token at %d queues node %d", i, j)
		case seen[j]:
			err = fmt.Errorf("the token at %d queues node %d twice", i, j)
		case j == proto.NodeID(i):
			err = fmt.Errorf("the token at %d queues its holder", i)
		}
		seen[j] = true
	})
	return err
}

// tokenGen checks TokenGen step by step (proto.Incremental): it keeps every
// node's generation and the newest; while no generation goes back, the
// newest does not either, so only the tokens a step sends are read.
type tokenGen struct {
	gen    []uint64
	newest uint64
}

func (c *tokenGen) Full(s proto.System) error {
	if err := TokenGen(s); err != nil {
		return err
	}
	ps := s.Nodes()
	c.gen, c.newest = c.gen[:0], 0
	for _, p := range ps {
		g := p.(*Node).gen
		c.gen = append(c.gen, g)
		c.newest = max(c.newest, g)
	}
	return nil
}

func (c *tokenGen) Step(s proto.System, id proto.NodeID, _ *proto.Message, out []proto.Message) error {
	x, ok := s.Nodes()[id].(*Node)
	if !ok || int(id) >= len(c.gen) || x.gen < c.gen[id] {
		return proto.ErrFull
	}
	c.gen[id] = x.gen
	c.newest = max(c.newest, x.gen)
	for k := range out {
		if out[k].Type == Token && out[k].Stamp > c.newest {
			return incr.ErrBroken
		}
	}
	return nil
}
