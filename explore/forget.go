package explore

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/ocbench/ocbench/proto"
)

// Forgetting (docs/explore.md, "Forgetting"): once every node has issued
// its last request, in an untimed search without crashes, an algorithm may
// declare values of its nodes' states and messages that no longer matter
// (proto.Forgetter, proto.MessageForgetter), and the explorer sets them to
// fixed values in every such state it reaches, so that states differing
// only in them are one.

// forgetting reports whether cfg's search forgets, and if cfg asked for it
// and it does not, why.
// nodes are the search's nodes in their initial state, as the algorithm
// built them.
func forgetting(cfg Config, e *Explorer, nodes []proto.Node) (bool, string) {
	declares := slices.ContainsFunc(nodes, func(n proto.Node) bool {
		_, ok := n.(proto.Forgetter)
		return ok
	})
	if !declares || !cfg.Forget {
		return false, ""
	}
	why := notPlain(cfg, e)
	switch {
	case why != "":
		return false, why
	case e.reduce:
		return false, "with the partial-order reduction"
	}
	return true, ""
}

// final reports whether in c every node has issued every request it will.
func (e *Explorer) final(c *sys) bool {
	for i := range min(e.cfg.Requesters, len(c.ext)) {
		if int(c.ext[i].issued) < e.cfg.Requests {
			return false
		}
	}
	return true
}

// forgotten is a worker's record of the forgetting done: node state and
// message numbers to their forgotten entries (nil: not yet known).
type forgotten struct {
	nodes []*cachedNode
	msgs  []*message
}

// grow returns s with room for index i.
func grow[T any](s []*T, i uint32) []*T {
	if int(i) < len(s) {
		return s
	}
	return append(s, make([]*T, int(i)+1-len(s)+len(s)/2)...)
}

// forget sets c's forgettable values to their fixed ones. A declaration
// that changes a node's view, or that a second Forget would change again,
// is an error of the search.
func (e *Explorer) forget(c *sys) error {
	for i := range c.ids {
		e.forgot.nodes = grow(e.forgot.nodes, c.ids[i])
		cn := e.forgot.nodes[c.ids[i]]
		if cn == nil {
			var err error
			if cn, err = e.forgetNode(int32(i), e.node(c.ids[i])); err != nil {
				return err
			}
			e.forgot.nodes[c.ids[i]] = cn
		}
		c.ids[i], c.nodes[i], c.views[i] = cn.id, cn.node, cn.view
	}
	changed := false
	for k := range c.msgs {
		f := &c.msgs[k]
		m, err := e.forgetMessage(f.message)
		if err != nil {
			return err
		}
		if m != f.message {
			f.message, changed = m, true
		}
	}
	if changed && !e.cfg.FIFO {
		slices.SortFunc(c.msgs, cmpFlight)
	}
	return nil
}

// forgetMessage returns the entry of message from with its values
// forgotten (from itself if the algorithm declares nothing of its
// messages). A declaration that changes a message's sender, receiver or
// type is an error of the search.
func (e *Explorer) forgetMessage(from *message) (*message, error) {
	mf, ok := e.alg.(proto.MessageForgetter)
	if !ok {
		return from, nil
	}
	e.forgot.msgs = grow(e.forgot.msgs, from.id)
	if m := e.forgot.msgs[from.id]; m != nil {
		return m, nil
	}
	x := from.m
	x.Payload = slices.Clone(x.Payload)
	mf.ForgetMessage(&x)
	if x.From != from.m.From || x.To != from.m.To || x.Type != from.m.Type {
		return nil, fmt.Errorf("%s's ForgetMessage changed a message's sender, receiver or type (%v to %v)", e.alg.Name(), from.m, x)
	}
	m := e.internMsg(appendMessage(nil, &x), x)
	e.forgot.msgs[from.id] = m
	return m, nil
}

// forgetNode returns the entry of node i's state from with its values
// forgotten (from itself if the node declares nothing).
func (e *Explorer) forgetNode(i int32, from *cachedNode) (*cachedNode, error) {
	if _, ok := from.node.(proto.Forgetter); !ok {
		return from, nil
	}
	var once []byte
	for pass := range 2 {
		n, err := e.nc.decodeNode(e.types[i], from.seg)
		if err != nil {
			return nil, err
		}
		n.(proto.Forgetter).Forget()
		cd := coder{nc: e.nc}
		if err := cd.encodeNode(n); err != nil {
			return nil, err
		}
		if pass == 1 {
			if !bytes.Equal(cd.buf, once) {
				return nil, fmt.Errorf("%s's Forget is not idempotent: node %d's state changes when forgotten twice", e.alg.Name(), i)
			}
			return from, nil
		}
		if v := n.View(); v != from.view {
			return nil, fmt.Errorf("%s's Forget changed node %d's view (%+v to %+v): it may forget only what nothing reads", e.alg.Name(), i, from.view, v)
		}
		once = cd.buf
		from = e.intern(i, n, cd.buf)
	}
	panic("unreachable")
}

// realAction returns the action of real state s that a, an action of q
// (s with its forgettable values set, or s itself before the last
// request), stands for: the same but for a delivery, which is of a
// message of s whose forgotten form is a's message, in the same window.
func (e *Explorer) realAction(s, q *sys, a action) (action, error) {
	if a.kind != Deliver {
		return a, nil
	}
	want := q.msgs[a.idx]
	final := e.final(s)
	for k, f := range s.msgs {
		m := f.message
		if final {
			var err error
			if m, err = e.forgetMessage(m); err != nil {
				return a, err
			}
		}
		if m == want.message && f.lo == want.lo && f.hi == want.hi && f.old == want.old {
			return action{kind: Deliver, node: a.node, idx: int32(k)}, nil
		}
	}
	return a, fmt.Errorf("explore: replaying a run with forgetting: no message of the real state stands for %v", want.m)
}
