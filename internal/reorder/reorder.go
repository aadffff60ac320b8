// Package reorder drives the nodes of a failure-free algorithm with random
// requests and a random delivery order (any message in flight may be the
// next one delivered: non-FIFO channels), for the randomized tests of the
// algorithm packages. After every step it checks mutual exclusion, the
// token count of a token-based algorithm, the contract of proto.Node and
// proto.Message, and the algorithm's own invariants; at the end it checks
// that every request was served and nothing is left in flight.
package reorder

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ocbench/ocbench/proto"
)

// Config is one randomized run.
type Config struct {
	Alg      proto.Algorithm
	N        int
	Seed     uint64
	Requests int // CS requests issued in all
	// FIFO delivers in sending order between each pair of nodes (for an
	// algorithm that needs it); otherwise any message may come next.
	FIFO bool
}

// Result is what a run did.
type Result struct {
	Entries int // critical sections entered
	Msgs    int // messages sent
	Steps   int
}

type inFlight struct {
	m       proto.Message
	payload []int64 // a copy at sending, to tell a payload changed after it was sent
}

type system struct {
	nodes   []proto.Node
	pending []inFlight
}

func (s *system) Nodes() []proto.Node    { return s.nodes }
func (s *system) Down(proto.NodeID) bool { return false }
func (s *system) ForEachInFlight(f func(m *proto.Message)) {
	for i := range s.pending {
		f(&s.pending[i].m)
	}
}

type run struct {
	t       testing.TB
	c       Config
	rng     *rand.Rand
	s       *system
	out     proto.Output
	token   proto.MsgType
	every   []proto.Invariant
	quiet   []proto.Invariant
	atEnd   []proto.Invariant
	serial  []uint32 // node i's last serial
	waiting []bool   // node i has a request not yet served
	tokens  int      // tokens in flight
	res     Result
}

// Run runs c and fails t at the first violation.
func Run(t testing.TB, c Config) Result {
	t.Helper()
	r := &run{t: t, c: c, rng: rand.New(rand.NewPCG(c.Seed, uint64(c.N))),
		s:       &system{nodes: c.Alg.NewNodes(c.N)},
		token:   proto.TokenType(c.Alg.MessageTypes()),
		serial:  make([]uint32, c.N),
		waiting: make([]bool, c.N),
	}
	for _, inv := range c.Alg.Invariants(false) {
		switch inv.When {
		case proto.EveryStep:
			r.every = append(r.every, inv)
		case proto.Quiet:
			r.quiet = append(r.quiet, inv)
		case proto.AtEnd:
			r.atEnd = append(r.atEnd, inv)
		}
	}
	if err := r.check(); err != nil {
		t.Fatalf("%s n=%d seed=%d: initial state: %v", c.Alg.Name(), c.N, c.Seed, err)
	}
	issued := 0
	for issued < c.Requests || len(r.s.pending) > 0 || r.inCS() != proto.Nil {
		var err error
		switch a := r.rng.IntN(10); {
		case issued < c.Requests && a < 3:
			i := proto.NodeID(r.rng.IntN(c.N))
			if r.s.nodes[i].View().Asked {
				continue
			}
			// Serials grow per node, with gaps, and are not ordered
			// between nodes (node i's k-th serial is about k·N + i).
			r.serial[i] = (r.serial[i]/uint32(c.N)+1+uint32(r.rng.IntN(2)))*uint32(c.N) + uint32(i)
			if r.serial[i] == 0 {
				r.serial[i] = uint32(c.N)
			}
			issued++
			r.waiting[i] = true
			err = r.step(i, proto.Input{Kind: proto.EnterCS, Tag: r.serial[i]})
		case a < 5:
			i := r.inCS()
			if i == proto.Nil {
				continue
			}
			err = r.step(i, proto.Input{Kind: proto.ExitCS})
		default:
			if len(r.s.pending) == 0 {
				if r.inCS() == proto.Nil && r.allAsked() {
					t.Fatalf("%s n=%d seed=%d, step %d: deadlock: every node asks, none is in the CS, nothing in flight", c.Alg.Name(), c.N, c.Seed, r.res.Steps)
				}
				continue
			}
			err = r.deliver()
		}
		if err != nil {
			t.Fatalf("%s n=%d seed=%d, step %d: %v", c.Alg.Name(), c.N, c.Seed, r.res.Steps, err)
		}
	}
	for i, nd := range r.s.nodes {
		v := nd.View()
		if r.waiting[i] || v.Asked || v.InCS {
			t.Fatalf("%s n=%d seed=%d: nothing in flight at the end, and node %d still waits (asked %v, in CS %v): a request was not served",
				c.Alg.Name(), c.N, c.Seed, i, v.Asked, v.InCS)
		}
	}
	if r.res.Entries != issued {
		t.Fatalf("%s n=%d seed=%d: %d requests issued, %d served", c.Alg.Name(), c.N, c.Seed, issued, r.res.Entries)
	}
	for _, inv := range r.atEnd {
		if err := inv.Check(r.s); err != nil {
			t.Fatalf("%s n=%d seed=%d: at the end: %s: %v", c.Alg.Name(), c.N, c.Seed, inv.Name, err)
		}
	}
	return r.res
}

func (r *run) allAsked() bool {
	for _, nd := range r.s.nodes {
		if !nd.View().Asked {
			return false
		}
	}
	return true
}

func (r *run) inCS() proto.NodeID {
	for i, nd := range r.s.nodes {
		if nd.View().InCS {
			return proto.NodeID(i)
		}
	}
	return proto.Nil
}

// deliver delivers a message in flight chosen at random (with FIFO, the
// oldest of a pair chosen at random).
func (r *run) deliver() error {
	k := r.rng.IntN(len(r.s.pending))
	if r.c.FIFO {
		m := r.s.pending[k].m
		k = slices.IndexFunc(r.s.pending, func(p inFlight) bool { return p.m.From == m.From && p.m.To == m.To })
	}
	p := r.s.pending[k]
	if r.c.FIFO {
		r.s.pending = slices.Delete(r.s.pending, k, k+1)
	} else { // the order does not matter: move the last one in
		last := len(r.s.pending) - 1
		r.s.pending[k] = r.s.pending[last]
		r.s.pending[last] = inFlight{}
		r.s.pending = r.s.pending[:last]
	}
	if p.m.Type == r.token {
		r.tokens--
	}
	if !slices.Equal(p.m.Payload, p.payload) {
		return fmt.Errorf("the payload of a message %d→%d (type %d) changed after it was sent: %v, sent as %v", p.m.From, p.m.To, p.m.Type, p.m.Payload, p.payload)
	}
	return r.step(p.m.To, proto.Input{Kind: proto.Receive, Msg: p.m})
}

func (r *run) step(i proto.NodeID, in proto.Input) error {
	nd := r.s.nodes[i]
	before := nd.View()
	r.out.Reset()
	nd.Step(in, &r.out)
	r.res.Steps++
	after := nd.View()
	if !after.Up {
		return fmt.Errorf("node %d is down after %s", i, in.Kind)
	}
	if r.out.Enter != (after.InCS && !before.InCS) {
		return fmt.Errorf("node %d after %s: Enter %v, but in CS %v → %v", i, in.Kind, r.out.Enter, before.InCS, after.InCS)
	}
	if r.out.Enter {
		if !r.waiting[i] {
			return fmt.Errorf("node %d entered the CS without a request", i)
		}
		if after.Tag != r.serial[i] {
			return fmt.Errorf("node %d entered the CS with tag %d, its request is %d", i, after.Tag, r.serial[i])
		}
		r.waiting[i] = false
		r.res.Entries++
	}
	for _, m := range r.out.Msgs {
		switch {
		case m.From != i:
			return fmt.Errorf("node %d sent a message from %d", i, m.From)
		case m.To == i || m.To < 0 || int(m.To) >= r.c.N:
			return fmt.Errorf("node %d sent a message to %d", i, m.To)
		case m.Cause != proto.Normal:
			return fmt.Errorf("node %d sent a message of cause %s", i, m.Cause)
		case m.Tag == 0:
			return fmt.Errorf("node %d sent a message (type %d) with tag 0", i, m.Type)
		}
		r.s.pending = append(r.s.pending, inFlight{m: m, payload: slices.Clone(m.Payload)})
		if m.Type == r.token {
			r.tokens++
		}
		r.res.Msgs++
	}
	return r.check()
}

func (r *run) check() error {
	inCS, held := 0, 0
	for i, nd := range r.s.nodes {
		v := nd.View()
		if v.InCS {
			inCS++
			if !v.Asked {
				return fmt.Errorf("node %d is in the CS and not asked", i)
			}
		}
		if v.TokenHere {
			held++
		}
	}
	if inCS > 1 {
		return fmt.Errorf("%d nodes in the critical section", inCS)
	}
	if r.c.Alg.Family() == proto.TokenBased {
		if held+r.tokens != 1 {
			return fmt.Errorf("%d tokens held, %d in flight", held, r.tokens)
		}
	}
	for _, inv := range r.every {
		if err := inv.Check(r.s); err != nil {
			return fmt.Errorf("%s: %w", inv.Name, err)
		}
	}
	if len(r.s.pending) == 0 {
		for _, inv := range r.quiet {
			if err := inv.Check(r.s); err != nil {
				return fmt.Errorf("%s (quiet): %w", inv.Name, err)
			}
		}
	}
	return nil
}
