package explore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/ocbench/ocbench/proto"
)

// A node's steps are a function of its state and its input (an algorithm
// is a pure state machine), and a node meets the same few states in many
// system states. So the explorer keeps, by the hash of their encodings,
// the nodes it decoded (never stepped again: read only, by views and
// invariants) and the outcome of each (node state, input) it stepped. A
// hit is checked against the encodings it was made from, so a collision of
// the hash costs a miss, never a wrong step.

// cachedNode is a node state: its encoding, its number in the table, the
// index of its node, the node decoded (read only: a step decodes its own copy), its view.
type cachedNode struct {
	seg   []byte
	id    uint32
	owner int32 // the node's index
	node  proto.Node
	view  proto.View
}

// stepResult is what a step of a node state does with an input.
type stepResult struct {
	from   uint32 // the state stepped
	in     []byte // the input's encoding
	after  *cachedNode
	msgs   []flight // lo and hi are set when used
	timers []timer  // at is set
	enter  bool
	// rounds is how many round events (Explorer.roundEvent) the step
	// counted; renamed, whether the node's timers are renamed
	// (timerRenamer) and the step armed one.
	rounds  int32
	renamed bool
}

// maxCache bounds the cache of steps (of all workers together); a full
// cache is emptied.
const maxCache = 1 << 21

// nodeTable is the table of node states, shared by the workers of a
// search: all by number, idx finds a state's number by the hash of its
// encoding (and its node index), segBytes is their encodings' size. It
// only grows, and an entry never changes once added.
type nodeTable struct {
	mu       sync.Mutex
	all      []*cachedNode
	idx      map[uint64]uint32
	segBytes int64
}

// size returns the number of node states and their encodings' size.
func (t *nodeTable) size() (int, int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.all), t.segBytes
}

// nodeKey is where the search for node index's state seg starts in a
// table keyed by hash.
func nodeKey(index int32, seg []byte) uint64 {
	return hash64(seg) ^ uint64(index)*0x9e3779b97f4a7c15
}

// intern returns the entry of node index's state n, encoded as seg, in the
// table of node states (which keeps every node state met: a system state
// names its nodes' states by number). The explorer's own index
// (internIdx, over its snapshot interned) answers most lookups without
// the shared table's lock.
func (e *Explorer) intern(index int32, n proto.Node, seg []byte) *cachedNode {
	for h := nodeKey(index, seg); ; h++ {
		k, ok := e.internIdx[h]
		if !ok {
			break
		}
		if c := e.node(k); bytes.Equal(c.seg, seg) && c.owner == index {
			return c
		}
	}
	t := e.nt
	t.mu.Lock()
	defer t.mu.Unlock()
	h := nodeKey(index, seg)
	for ; ; h++ {
		k, ok := t.idx[h]
		if !ok {
			break
		}
		if c := t.all[k]; bytes.Equal(c.seg, seg) && c.owner == index {
			e.internIdx[h], e.interned = k, t.all
			return c
		}
	}
	c := &cachedNode{seg: seg, id: uint32(len(t.all)), node: n, view: n.View(), owner: index}
	t.idx[h] = c.id
	t.all = append(t.all, c)
	t.segBytes += int64(len(seg))
	e.internIdx[h], e.interned = c.id, t.all
	return c
}

// node returns node state id, or nil if the table has none.
func (e *Explorer) node(id uint32) *cachedNode {
	if id < uint32(len(e.interned)) {
		return e.interned[id]
	}
	e.nt.mu.Lock()
	e.interned = e.nt.all
	e.nt.mu.Unlock()
	if id < uint32(len(e.interned)) {
		return e.interned[id]
	}
	return nil
}

// inputKey appends the encoding of in to b.
func inputKey(b []byte, in *proto.Input, enc []byte) []byte {
	b = append(b, byte(in.Kind))
	b = binary.LittleEndian.AppendUint32(b, in.Tag)
	return append(b, enc...)
}

// step returns the outcome of node id, in state from, stepped with in
// (whose encoding, a message's or a timer's, is enc).
func (e *Explorer) step(id int32, from *cachedNode, in *proto.Input, enc []byte) (*stepResult, error) {
	e.key = inputKey(e.key[:0], in, enc)
	h := hash64(e.key) ^ uint64(from.id)*0xff51afd7ed558ccd
	if r, ok := e.steps[h]; ok && r.from == from.id && bytes.Equal(r.in, e.key) {
		e.hits++
		return r, nil
	}
	n, err := e.nc.decodeNode(e.types[id], from.seg)
	if err != nil {
		return nil, err
	}
	if in.Kind == proto.Receive && len(in.Msg.Payload) > 0 {
		// The payload is the table of messages' (shared by every state
		// that holds the message): the node gets its own.
		in.Msg.Payload = slices.Clone(in.Msg.Payload)
	}
	if err := e.safeStep(n, in); err != nil {
		return nil, err
	}
	r, err := e.outcome(id, n)
	if err != nil {
		return nil, err
	}
	r.from, r.in = from.id, slices.Clone(e.key)
	if len(e.steps) >= e.cacheMax {
		clear(e.steps)
	}
	e.steps[h] = r
	return r, nil
}

// stepFast is step for apply, through a direct-mapped cache in front of
// step's: the input is named by arg (a message's or a timer's number in
// the explorer's tables, a request's tag, or 0) beside its kind, so that a
// hit neither encodes nor hashes it.
func (e *Explorer) stepFast(id int32, from *cachedNode, in *proto.Input, enc []byte, arg uint32) (*stepResult, error) {
	key := uint64(from.id)<<32 | uint64(arg)
	slot := &e.fast[(key*0x9e3779b97f4a7c15^uint64(in.Kind)*0xff51afd7ed558ccd)>>(64-fastBits)]
	if slot.r != nil && slot.key == key && slot.kind == in.Kind {
		return slot.r, nil
	}
	r, err := e.step(id, from, in, enc)
	if err != nil {
		return nil, err
	}
	*slot = fastStep{key: key, kind: in.Kind, r: r}
	return r, nil
}

// fastBits is log2 of the number of entries of an explorer's stepFast
// cache.
const fastBits = 14

// fastStep is an entry of stepFast's cache: node state key>>32 stepped
// with the input of kind kind and number key&(1<<32−1) gave r.
type fastStep struct {
	key  uint64
	kind proto.InputKind
	r    *stepResult
}

// outcome builds the result of a step that left node id as n, with
// output e.out.
func (e *Explorer) outcome(id int32, n proto.Node) (*stepResult, error) {
	renamed := false
	if tr, ok := n.(timerRenamer); ok && len(e.out.Timers) > 0 {
		live := tr.TimerSeq()
		for k := range e.out.Timers {
			if t := &e.out.Timers[k]; t.Seq == live {
				t.Seq = 1
			} else {
				t.Seq = 0
			}
		}
		tr.SetTimerSeq(1)
		renamed = true
	}
	cd := coder{nc: e.nc}
	if err := cd.encodeNode(n); err != nil {
		return nil, err
	}
	r := &stepResult{after: e.intern(id, n, cd.buf), enter: e.out.Enter, renamed: renamed}
	if e.roundEvent >= 0 {
		r.rounds = e.out.Events[e.roundEvent]
	}
	for k := range e.out.Msgs {
		m := e.out.Msgs[k]
		if m.To < 0 || int(m.To) >= e.cfg.Nodes {
			return nil, fmt.Errorf("node %d sent a message to a node that does not exist (%d)", m.From, m.To)
		}
		m.Payload = slices.Clone(m.Payload)
		r.msgs = append(r.msgs, flight{message: e.internMsg(appendMessage(make([]byte, 0, 40+8*len(m.Payload)), &m), m)})
	}
	if len(e.out.Timers) > 0 && e.cfg.Ticks == 0 && !e.cfg.AnyTimer {
		return nil, fmt.Errorf("node %d set a timer: %s %w (--ticks)", id, e.alg.Name(), ErrNeedsTime)
	}
	for k := range e.out.Timers {
		t := e.out.Timers[k]
		at := math.Ceil(t.After*float64(e.cfg.Ticks) - 1e-9)
		if at < 0 || at > math.MaxUint16 {
			return nil, fmt.Errorf("node %d set a timer of %gδ: outside 0..%d ticks", id, t.After, math.MaxUint16)
		}
		r.timers = append(r.timers, timer{timerSet: e.internTimer(appendTimer(make([]byte, 0, 21), id, &t), id, t), at: uint16(at)})
	}
	return r, nil
}

// use records r as node id's step in c.
func (e *Explorer) use(c *sys, id int32, r *stepResult, rec *Step) {
	c.ids[id], c.nodes[id], c.views[id] = r.after.id, r.after.node, r.after.view
	if v := r.after.view; !v.InCS || !v.Up {
		c.ext[id].cs = 0
	}
	c.rounds = r.rounds
	if r.renamed {
		// A new live timer: the node's pending ones are stale, and a
		// stale timer's firing does nothing (timerRenamer): they go.
		c.timers = slices.DeleteFunc(c.timers, func(t timer) bool { return t.node == proto.NodeID(id) })
	}
	// c's messages and timers are in canonical order: the new ones are
	// put in theirs.
	lo, hi := uint8(e.cfg.MinTicks), uint8(e.cfg.Ticks)
	for _, f := range r.msgs {
		f.lo, f.hi = lo, hi
		c.msgs = insertFlight(c.msgs, f, e.cfg.FIFO)
	}
	for _, t := range r.timers {
		c.timers = insertTimer(c.timers, t)
	}
	if rec != nil {
		rec.Enter, rec.Up = r.enter, r.after.view.Up
		for _, f := range r.msgs {
			rec.Sent = append(rec.Sent, f.m)
		}
	}
}

// safeStep steps n with in into e.out; a node that panics is an error of
// the step (the explorer reports it with the run to it), not a crash of
// the explorer.
func (e *Explorer) safeStep(n proto.Node, in *proto.Input) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the node panicked on %s: %v", in.Kind, r)
		}
	}()
	e.out.Reset()
	proto.Step(n, *in, &e.out)
	return nil
}
