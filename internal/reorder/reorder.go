// Package reorder drives the nodes of a failure-free algorithm with random
// requests and a random delivery order (any message in flight may be the
// next one delivered: non-FIFO channels, or FIFO per pair of nodes), for
// the randomized tests of the algorithm packages. After every step it
// checks mutual exclusion (not for a proto.KExclusion algorithm, whose
// invariants bound the nodes in the critical section), the token count of
// a token-based algorithm, the
// contract of proto.Node and proto.Message, the algorithm's own invariants
// and the test's own check; it fails a run that deadlocks or does not end;
// at the end it checks that every request was served, nothing is left in
// flight and no node queues a request.
//
// Lone serves one request at a time on the same nodes, with the same
// checks, for the tests of what a request alone costs.
package reorder

import (
	"errors"
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
	// Saturate makes every node ask at the start, and a node leave the
	// critical section as soon as it enters it and ask again at once
	// (while fewer than Requests are issued): every request contends.
	Saturate bool
	// Checks are the test's own checks of the whole system, made after
	// every step (and on the initial state) beside the algorithm's
	// invariants: a full check too slow for a runtime, or a property of
	// every message in flight (PlainMessages, Serving).
	Checks []func(s proto.System) error
	// MaxSteps bounds the steps of the run; a run that has not ended by
	// then fails (a livelock). 0 means 100·(N+1) steps per request.
	MaxSteps int
	// Log, if set, is given every step: the node, its input and the
	// messages it sent (for debugging).
	Log func(format string, args ...any)
}

// Result is what a run did.
type Result struct {
	Entries int // critical sections entered
	Msgs    int // messages sent
	Steps   int
	// ByTag counts the messages sent by tag, for every request issued. A
	// request's serial is unique in a run and a message carries the serial
	// of the request it serves, so ByTag[s] is the cost of request s.
	ByTag map[uint32]int
}

// Costs returns the least and the most messages a request cost.
func (res Result) Costs() (least, most int) {
	first := true
	for _, c := range res.ByTag {
		if first || c < least {
			least = c
		}
		if first || c > most {
			most = c
		}
		first = false
	}
	return least, most
}

// Serving returns a Check: every message in flight serves the request of
// node owner(m), which waits for the critical section (asks, and is not in
// it) with the message's tag as its request's serial.
func Serving(owner func(m *proto.Message) proto.NodeID) func(proto.System) error {
	return func(s proto.System) error {
		var err error
		nodes := s.Nodes()
		s.ForEachInFlight(func(m *proto.Message) {
			if err != nil {
				return
			}
			o := owner(m)
			if o < 0 || int(o) >= len(nodes) {
				err = fmt.Errorf("message %+v serves the request of no node (%d)", *m, o)
			} else if v := nodes[o].View(); !v.Asked || v.InCS || v.Tag != m.Tag {
				err = fmt.Errorf("message %+v serves request %d of node %d, whose view is %+v", *m, m.Tag, o, v)
			}
		})
		return err
	}
}

// Requester is the owner for Serving in a permission-based algorithm:
// a message of type reply serves its receiver's request, any other its
// sender's.
func Requester(reply proto.MsgType) func(m *proto.Message) proto.NodeID {
	return func(m *proto.Message) proto.NodeID {
		if m.Type == reply {
			return m.To
		}
		return m.From
	}
}

// Carried is the owner for Serving in a token-based algorithm whose
// requests carry their requester in J: a message of type token serves its
// receiver's request, any other the request of node J.
func Carried(token proto.MsgType) func(m *proto.Message) proto.NodeID {
	return func(m *proto.Message) proto.NodeID {
		if m.Type == token {
			return m.To
		}
		return m.J.Node()
	}
}

// PlainMessages is a Check for an algorithm whose messages name no node
// but their sender and receiver: every message in flight has J and Src
// Nil.
func PlainMessages(s proto.System) error {
	var err error
	s.ForEachInFlight(func(m *proto.Message) {
		if err == nil && (!m.J.IsNil() || !m.Src.IsNil()) {
			err = fmt.Errorf("message %d→%d (type %d) names node %v (J) or %v (Src)", m.From, m.To, m.Type, m.J, m.Src)
		}
	})
	return err
}

// Static is a system of nodes with nothing in flight and no node down, for
// a test that checks an invariant on a state it built by hand.
func Static(nodes []proto.Node) proto.System { return &system{nodes: nodes} }

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
	asking  []bool   // node i has a request not yet finished (exit_cs)
	tags    map[uint32]bool
	tokens  int // tokens in flight
	issued  int
	res     Result
}

func newRun(c Config) *run {
	r := &run{c: c, rng: rand.New(rand.NewPCG(c.Seed, uint64(c.N))),
		s:       &system{nodes: c.Alg.NewNodes(c.N)},
		token:   proto.TokenType(c.Alg.MessageTypes()),
		serial:  make([]uint32, c.N),
		waiting: make([]bool, c.N),
		asking:  make([]bool, c.N),
		tags:    map[uint32]bool{},
		res:     Result{ByTag: map[uint32]int{}},
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
	return r
}

// Run runs c and fails t at the first violation.
func Run(t testing.TB, c Config) Result {
	t.Helper()
	res, err := Try(c)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Try runs c and returns the first violation, for a test that expects one.
func Try(c Config) (Result, error) {
	r := newRun(c)
	if err := r.run(); err != nil {
		return r.res, fmt.Errorf("%s n=%d seed=%d, step %d: %w", c.Alg.Name(), c.N, c.Seed, r.res.Steps, err)
	}
	return r.res, nil
}

func (r *run) run() error {
	c := r.c
	if err := r.check(); err != nil {
		return fmt.Errorf("initial state: %w", err)
	}
	maxSteps := c.MaxSteps
	if maxSteps == 0 {
		maxSteps = 100 * (c.N + 1) * (c.Requests + 1)
	}
	if c.Saturate {
		for i := range c.N {
			if r.issued < c.Requests {
				if err := r.request(proto.NodeID(i)); err != nil {
					return err
				}
			}
		}
	}
	for r.issued < c.Requests || len(r.s.pending) > 0 || r.inCS() != proto.Nil {
		if r.res.Steps > maxSteps {
			return fmt.Errorf("no end after %d steps (%d of %d requests issued, %d served, %d messages in flight): a livelock", r.res.Steps, r.issued, c.Requests, r.res.Entries, len(r.s.pending))
		}
		if len(r.s.pending) == 0 && r.inCS() == proto.Nil {
			if i := slices.Index(r.waiting, true); i >= 0 {
				return fmt.Errorf("deadlock: node %d waits, none is in the CS, nothing in flight", i)
			}
		}
		var err error
		switch a := r.rng.IntN(10); {
		case c.Saturate:
			if i := r.inCS(); i != proto.Nil {
				if err = r.step(i, proto.Input{Kind: proto.ExitCS}); err == nil && r.issued < c.Requests {
					err = r.request(i)
				}
				break
			}
			err = r.deliver()
		case r.issued < c.Requests && a < 3:
			i := proto.NodeID(r.rng.IntN(c.N))
			if r.asking[i] {
				continue
			}
			err = r.request(i)
		case a < 5:
			i := r.inCS()
			if i == proto.Nil {
				continue
			}
			err = r.step(i, proto.Input{Kind: proto.ExitCS})
		default:
			if len(r.s.pending) == 0 {
				continue
			}
			err = r.deliver()
		}
		if err != nil {
			return err
		}
	}
	if err := r.idle(); err != nil {
		return err
	}
	if r.res.Entries != r.issued {
		return fmt.Errorf("%d requests issued, %d served", r.issued, r.res.Entries)
	}
	for _, inv := range r.atEnd {
		if err := inv.Check(r.s); err != nil {
			return fmt.Errorf("at the end: %s: %w", inv.Name, err)
		}
	}
	return nil
}

// request makes node i ask. Serials grow per node, with gaps, and are not
// ordered between nodes (node i's k-th serial is about k·N + i), so each is
// unique in the run.
func (r *run) request(i proto.NodeID) error {
	n := uint32(r.c.N)
	r.serial[i] = (r.serial[i]/n+1+uint32(r.rng.IntN(2)))*n + uint32(i)
	if r.serial[i] == 0 {
		r.serial[i] = n
	}
	r.issued++
	return r.ask(i, r.serial[i])
}

func (r *run) ask(i proto.NodeID, tag uint32) error {
	r.serial[i] = tag
	r.tags[tag] = true
	r.res.ByTag[tag] += 0 // a request that costs nothing counts
	r.waiting[i], r.asking[i] = true, true
	return r.step(i, proto.Input{Kind: proto.EnterCS, Tag: tag})
}

// idle checks the end of a run: nothing in flight, every request served and
// finished, no node queues a request.
func (r *run) idle() error {
	if len(r.s.pending) > 0 {
		return fmt.Errorf("%d messages still in flight", len(r.s.pending))
	}
	for i, nd := range r.s.nodes {
		v := nd.View()
		if r.waiting[i] || v.Asked || v.InCS {
			return fmt.Errorf("nothing in flight, and node %d still waits (asked %v, in CS %v): a request was not served", i, v.Asked, v.InCS)
		}
		var err error
		nd.Waiting(func(j proto.NodeID) {
			if err == nil {
				err = fmt.Errorf("every request served, and node %d still queues node %d's request", i, j)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// inCS returns a node in the critical section (with k-exclusion, one of
// them at random), or Nil.
func (r *run) inCS() proto.NodeID {
	in, seen := proto.Nil, 0
	for i, nd := range r.s.nodes {
		if nd.View().InCS {
			if r.c.Alg.Family() != proto.KExclusion {
				return proto.NodeID(i)
			}
			if seen++; r.rng.IntN(seen) == 0 {
				in = proto.NodeID(i)
			}
		}
	}
	return in
}

// deliver delivers a message in flight chosen at random (with FIFO, the
// oldest of a pair chosen at random).
func (r *run) deliver() error {
	k := r.rng.IntN(len(r.s.pending))
	if r.c.FIFO {
		m := r.s.pending[k].m
		k = slices.IndexFunc(r.s.pending, func(p inFlight) bool { return p.m.From == m.From && p.m.To == m.To })
	}
	return r.deliverAt(k, r.c.FIFO)
}

// deliverAt delivers the k-th message in flight; ordered keeps the order
// of the others.
func (r *run) deliverAt(k int, ordered bool) error {
	p := r.s.pending[k]
	if ordered {
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
	proto.Step(nd, in, &r.out)
	r.res.Steps++
	after := nd.View()
	if r.c.Log != nil {
		r.c.Log("step %d: node %d, %s (msg %+v): sent %+v, enter %v", r.res.Steps, i, in.Kind, in.Msg, r.out.Msgs, r.out.Enter)
	}
	if !after.Up {
		return fmt.Errorf("node %d is down after %s", i, in.Kind)
	}
	if r.out.Enter != (after.InCS && !before.InCS) {
		return fmt.Errorf("node %d after %s: Enter %v, but in CS %v → %v", i, in.Kind, r.out.Enter, before.InCS, after.InCS)
	}
	if in.Kind == proto.ExitCS {
		if after.InCS {
			return fmt.Errorf("node %d still in the CS after exit_cs", i)
		}
		r.asking[i] = false
	} else if before.InCS && !after.InCS {
		return fmt.Errorf("node %d left the CS on %s", i, in.Kind)
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
		case !r.tags[m.Tag]:
			return fmt.Errorf("node %d sent a message (type %d) with tag %d, the serial of no request", i, m.Type, m.Tag)
		}
		r.s.pending = append(r.s.pending, inFlight{m: m, payload: slices.Clone(m.Payload)})
		if m.Type == r.token {
			r.tokens++
		}
		r.res.Msgs++
		r.res.ByTag[m.Tag]++
	}
	return r.check()
}

func (r *run) check() error {
	inCS, held := 0, 0
	for i, nd := range r.s.nodes {
		v := nd.View()
		if v.InCS {
			inCS++
			if r.c.Alg.Family() == proto.TokenBased && !v.TokenHere {
				return fmt.Errorf("node %d is in the CS without the token", i)
			}
		}
		if v.Asked != r.asking[i] {
			return fmt.Errorf("node %d: asked %v, while its request is outstanding: %v", i, v.Asked, r.asking[i])
		}
		if v.TokenHere {
			held++
		}
	}
	if inCS > 1 && r.c.Alg.Family() != proto.KExclusion {
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
	for _, check := range r.c.Checks {
		if err := check(r.s); err != nil {
			return err
		}
	}
	return nil
}

// Lone serves requests one at a time on the same nodes, delivering every
// message oldest first, with Run's checks after every step (and the
// Config's Checks); tests of what a request alone costs use it.
type Lone struct {
	t testing.TB
	r *run
}

// NewLone returns the c.N nodes of c.Alg in their initial state; of c, only
// Alg, N and Check count.
func NewLone(t testing.TB, c Config) *Lone {
	t.Helper()
	l := &Lone{t: t, r: newRun(c)}
	if err := l.r.check(); err != nil {
		t.Fatalf("%s n=%d: initial state: %v", c.Alg.Name(), c.N, err)
	}
	return l
}

// Nodes returns the nodes, for a test's own look at their state.
func (l *Lone) Nodes() []proto.Node { return l.r.s.nodes }

var errStuck = errors.New("nothing in flight, and the requester is not in the CS")

// Serve makes node id ask with the given serial, the only request in the
// system, and returns the messages it cost. It delivers every message
// until none is in flight; the node must then be in the critical section
// with the request's serial; it leaves, and the messages that sends are
// delivered. Every message must carry the request's serial, and at the end
// no node may ask or queue a request.
func (l *Lone) Serve(id proto.NodeID, tag uint32) int {
	l.t.Helper()
	r := l.r
	before := r.res.Msgs
	err := func() error {
		if err := r.ask(id, tag); err != nil {
			return err
		}
		if err := l.drain(tag); err != nil {
			return err
		}
		if v := r.s.nodes[id].View(); !v.InCS {
			return errStuck
		}
		if err := r.step(id, proto.Input{Kind: proto.ExitCS}); err != nil {
			return err
		}
		if err := l.drain(tag); err != nil {
			return err
		}
		return r.idle()
	}()
	if err != nil {
		l.t.Fatalf("%s n=%d, node %d's lone request %d, step %d: %v", r.c.Alg.Name(), r.c.N, id, tag, r.res.Steps, err)
	}
	return r.res.Msgs - before
}

// drain delivers the messages in flight, oldest first, until none is left.
func (l *Lone) drain(tag uint32) error {
	for len(l.r.s.pending) > 0 {
		if m := l.r.s.pending[0].m; m.Tag != tag {
			return fmt.Errorf("message %+v does not carry the request's serial %d", m, tag)
		}
		if err := l.r.deliverAt(0, true); err != nil {
			return err
		}
	}
	return nil
}
