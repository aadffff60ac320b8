package explore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/ocbench/ocbench/proto"
)

// A node's steps are a function of its state and its input (an algorithm
// is a pure state machine), and a node meets the same few states in many
// system states. So the explorer keeps, by the hash of their encodings,
// the nodes it decoded (never stepped again: read only, by views and
// invariants) and the outcome of each (node state, input) it stepped. A
// hit is checked against the encodings it was made from, so a collision of
// the hash costs a miss, never a wrong step.

// cachedNode is a node state: its encoding, the node decoded, its view.
type cachedNode struct {
	seg  []byte
	node proto.Node
	view proto.View
}

// stepResult is what a step of a node state does with an input.
type stepResult struct {
	seg    []byte // the state stepped
	in     []byte // the input's encoding
	after  *cachedNode
	msgs   []flight // lo and hi are set when used
	timers []timer  // at is set
	enter  bool
}

// maxCache bounds each cache; a full cache is emptied.
const maxCache = 1 << 21

// cached returns node id's state from its encoding seg, decoded once.
func (e *Explorer) cached(id int32, seg []byte) (*cachedNode, error) {
	h := hash64(seg) ^ uint64(id)*0x9e3779b97f4a7c15
	if c, ok := e.nodes[h]; ok && bytes.Equal(c.seg, seg) {
		return c, nil
	}
	n, err := e.nc.decodeNode(e.types[id], seg)
	if err != nil {
		return nil, err
	}
	c := &cachedNode{seg: slices.Clone(seg), node: n, view: n.View()}
	if len(e.nodes) >= maxCache {
		clear(e.nodes)
	}
	e.nodes[h] = c
	return c, nil
}

// inputKey appends the encoding of in to b.
func inputKey(b []byte, in *proto.Input, enc []byte) []byte {
	b = append(b, byte(in.Kind))
	b = binary.LittleEndian.AppendUint32(b, in.Tag)
	return append(b, enc...)
}

// step returns the outcome of node id, in state seg, stepped with in
// (whose encoding, a message's or a timer's, is enc).
func (e *Explorer) step(id int32, seg []byte, in *proto.Input, enc []byte) (*stepResult, error) {
	e.key = inputKey(e.key[:0], in, enc)
	h := hash64(e.key) ^ hash64(seg)*0xff51afd7ed558ccd ^ uint64(id)
	if r, ok := e.steps[h]; ok && bytes.Equal(r.in, e.key) && bytes.Equal(r.seg, seg) {
		e.hits++
		return r, nil
	}
	n, err := e.nc.decodeNode(e.types[id], seg)
	if err != nil {
		return nil, err
	}
	e.out.Reset()
	n.Step(*in, &e.out)
	r, err := e.outcome(id, n)
	if err != nil {
		return nil, err
	}
	r.seg, r.in = slices.Clone(seg), slices.Clone(e.key)
	if len(e.steps) >= maxCache {
		clear(e.steps)
	}
	e.steps[h] = r
	return r, nil
}

// outcome builds the result of a step that left node id as n, with
// output e.out.
func (e *Explorer) outcome(id int32, n proto.Node) (*stepResult, error) {
	cd := coder{nc: e.nc}
	if err := cd.encodeNode(n); err != nil {
		return nil, err
	}
	r := &stepResult{after: &cachedNode{seg: cd.buf, node: n, view: n.View()}, enter: e.out.Enter}
	for k := range e.out.Msgs {
		m := e.out.Msgs[k]
		if m.To < 0 || int(m.To) >= e.cfg.Nodes {
			return nil, fmt.Errorf("node %d sent a message to a node that does not exist (%d)", m.From, m.To)
		}
		m.Payload = slices.Clone(m.Payload)
		r.msgs = append(r.msgs, flight{enc: appendMessage(make([]byte, 0, 40+8*len(m.Payload)), &m), m: m})
	}
	if len(e.out.Timers) > 0 && e.cfg.Ticks == 0 {
		return nil, fmt.Errorf("node %d set a timer: %s needs discrete time (--ticks)", id, e.alg.Name())
	}
	for k := range e.out.Timers {
		t := e.out.Timers[k]
		at := math.Ceil(t.After*float64(e.cfg.Ticks) - 1e-9)
		if at < 0 || at > math.MaxUint16 {
			return nil, fmt.Errorf("node %d set a timer of %gδ: outside 0..%d ticks", id, t.After, math.MaxUint16)
		}
		r.timers = append(r.timers, timer{enc: appendTimer(make([]byte, 0, 21), id, &t), node: id, t: t, at: uint16(at)})
	}
	return r, nil
}

// use records r as node id's step in c.
func (e *Explorer) use(c *sys, id int32, r *stepResult, rec *Step) {
	c.seg[id], c.nodes[id], c.views[id] = r.after.seg, r.after.node, r.after.view
	if v := r.after.view; !v.InCS || !v.Up {
		c.ext[id].cs = 0
	}
	lo, hi := uint8(e.cfg.MinTicks), uint8(e.cfg.Ticks)
	for _, f := range r.msgs {
		f.lo, f.hi = lo, hi
		c.msgs = append(c.msgs, f)
	}
	c.timers = append(c.timers, r.timers...)
	if len(r.msgs) > 0 {
		sortFlights(c.msgs, e.cfg.FIFO)
	}
	if len(r.timers) > 0 {
		sortTimers(c.timers)
	}
	if rec != nil {
		rec.Enter, rec.Up = r.enter, r.after.view.Up
		for _, f := range r.msgs {
			rec.Sent = append(rec.Sent, f.m)
		}
	}
}
