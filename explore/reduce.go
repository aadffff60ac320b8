package explore

import (
	"slices"

	"github.com/ocbench/ocbench/proto"
)

// Partial-order reduction: persistent sets by node (docs/explore.md,
// "Reductions", has the argument). In an untimed run without crashes, a
// node's step reads and writes only that node's state and appends
// messages, so transitions of different nodes commute and neither
// disables the other. From a state, the explorer may then take only the
// deliveries to a set S of nodes, provided
//
//   - no node outside S can, in any run from the state in which the nodes
//     of S do not move, send a message that gives a node of S a new
//     delivery (persistence: computed below by a fixpoint over the other
//     nodes' local behaviours, from the messages they may receive);
//   - no node of S may request or leave the critical section now (those
//     events would end a quiet state or mend a violation);
//   - no delivery taken changes what the explorer's own checks count in a
//     way that could mend a violation: it leaves no node of the critical
//     section, and it keeps the number of tokens (held and in flight);
//   - the BFS proviso: if a delivery taken leads to a state of a level no
//     deeper than the state's own, the state is expanded in full
//     (reduce_proviso.go).

// maxLocal bounds the local states explored for one node when the
// reduction looks for the messages it may send; a node that reaches more
// is taken to be able to send anything to anyone.
const maxLocal = 32

// maxPotential bounds the messages a node may receive from nodes outside S
// that the fixpoint keeps; a node given more is taken to be able to send
// anything to anyone.
const maxPotential = 16

// localKey is a node's local state in that search: its state's number in
// the table and the requests it has issued.
type localKey struct {
	id     uint32
	issued uint8
	used   uint64 // the messages in flight to the node it has received
}

// reducer holds the buffers of the reduction.
type reducer struct {
	inS      []bool
	pot      [][]flight // per node: messages it may yet receive from nodes outside S
	potKeys  []map[string]bool
	seen     map[localKey]bool
	queue    []localKey
	inputs   []flight
	cand     []action
	best     []action
	reduced  int64 // states expanded with a reduced set
	full     int64 // states expanded in full
	provisos int64 // reduced sets undone by the proviso
	active   []int // the nodes with a delivery enabled
	// collect: local records a message to a node of S in pot instead of
	// reporting that its sender joins S (commuting).
	collect bool
}

// ample returns the transitions to take from s, a subset of as (the
// enabled ones), and whether it is a proper subset.
func (e *Explorer) ample(s *sys, as []action) ([]action, bool) {
	r := &e.red
	n := e.cfg.Nodes
	if r.inS == nil {
		r.inS = make([]bool, n)
		r.pot = make([][]flight, n)
		r.potKeys = make([]map[string]bool, n)
		for i := range r.potKeys {
			r.potKeys[i] = map[string]bool{}
		}
		r.seen = map[localKey]bool{}
	}
	env := make([]bool, n) // nodes with a request or an exit enabled
	deliv := make([]int, n)
	r.active = r.active[:0]
	for _, a := range as {
		switch a.kind {
		case Deliver:
			if deliv[a.node] == 0 {
				r.active = append(r.active, int(a.node))
			}
			deliv[a.node]++
		case Request, Exit:
			env[a.node] = true
		default:
			return as, false // timers, crashes, ticks: no reduction
		}
	}
	r.best = r.best[:0]
	for i := range n {
		if deliv[i] == 0 || env[i] || (len(r.best) > 0 && deliv[i] >= len(r.best)) {
			continue
		}
		if !e.closure(s, i, env) && !e.commuting(s, i, as) {
			continue
		}
		r.cand = r.cand[:0]
		for _, a := range as {
			if a.kind == Deliver && r.inS[a.node] {
				r.cand = append(r.cand, a)
			}
		}
		if len(r.cand) >= len(as) || (len(r.best) > 0 && len(r.cand) >= len(r.best)) {
			continue
		}
		if !e.invisible(s, r.cand) {
			continue
		}
		r.best = append(r.best[:0], r.cand...)
		if len(r.best) == 1 {
			break
		}
	}
	if len(r.best) == 0 {
		return as, false
	}
	if env != nil && len(r.best) == len(as) {
		return as, false
	}
	return append(as[:0], r.best...), true
}

// invisible reports whether no delivery of as changes, from the state
// of its node in s, what the explorer counts in a way that could mend a
// violation (invisibleAt).
func (e *Explorer) invisible(s *sys, as []action) bool {
	for _, a := range as {
		if !e.invisibleAt(a.node, e.node(s.ids[a.node]), &s.msgs[a.idx]) {
			return false
		}
	}
	return true
}

// invisibleAt reports whether delivering f to node id in state from
// leaves the node in the critical section if it was (with no fewer
// units) and keeps the number of tokens, held and in flight.
func (e *Explorer) invisibleAt(id int32, from *cachedNode, f *flight) bool {
	in := proto.Input{Kind: proto.Receive, Msg: f.m}
	res, err := e.step(id, from, &in, f.enc)
	if err != nil {
		return false // the full expansion reports it
	}
	before, after := from.view, res.after.view
	if before.InCS && (!after.InCS || after.Units < before.Units) {
		return false
	}
	if e.family == proto.TokenBased {
		d := 0
		if before.TokenHere {
			d--
		}
		if after.TokenHere {
			d++
		}
		if f.m.Type == e.token {
			d--
		}
		for k := range res.msgs {
			if res.msgs[k].m.Type == e.token {
				d++
			}
		}
		if d != 0 {
			return false
		}
	}
	return true
}

// begin empties the potential messages of n nodes and makes S node i
// alone.
func (r *reducer) begin(i, n int) {
	for j := range n {
		r.inS[j] = j == i
		r.pot[j] = r.pot[j][:0]
		clear(r.potKeys[j])
	}
}

// closure computes in e.red.inS the least set S of nodes that holds node
// i and every node that may, while the nodes of S do not move, send a
// message giving a node of S a new delivery. It returns false if S holds
// a node with a request or an exit enabled (env).
func (e *Explorer) closure(s *sys, i int, env []bool) bool {
	r := &e.red
	n := e.cfg.Nodes
	r.begin(i, n)
	for changed := true; changed; {
		changed = false
		for j := range n {
			if r.inS[j] {
				continue
			}
			joins, grew := e.local(s, j, true)
			joins = joins || len(r.pot[j]) > maxPotential
			if joins {
				if env[j] {
					return false
				}
				r.inS[j] = true
				changed = true
				if !slices.ContainsFunc(r.active, func(k int) bool { return !r.inS[k] }) {
					return false // S holds every node with a delivery: nothing to leave out
				}
				break
			}
			changed = changed || grew
		}
	}
	return true
}

// local explores node j alone from its state in s: every order of the
// messages in flight to it (if inFlight) and of those it may receive from
// nodes outside S (each as often as wanted: an over-approximation), and
// its requests and exits. It returns whether j may send a message that gives a node of
// S a new delivery (or the search outgrew maxLocal), and whether a node
// outside S gained a message it may receive.
func (e *Explorer) local(s *sys, j int, inFlight bool) (joins, grew bool) {
	r := &e.red
	r.inputs = r.inputs[:0]
	for k := range s.msgs {
		if inFlight && int(s.msgs[k].m.To) == j {
			r.inputs = append(r.inputs, s.msgs[k])
		}
	}
	nIn := len(r.inputs) // each received once; the potential ones at will
	if nIn > 64 {
		return true, false
	}
	r.inputs = append(r.inputs, r.pot[j]...)
	clear(r.seen)
	start := localKey{s.ids[j], s.ext[j].issued, 0}
	r.seen[start] = true
	r.queue = append(r.queue[:0], start)
	canRequest := j < e.cfg.Requesters
	for len(r.queue) > 0 {
		k := r.queue[0]
		r.queue = r.queue[1:]
		from := e.node(k.id)
		try := func(in *proto.Input, enc []byte, issued uint8, used uint64) bool {
			res, err := e.step(int32(j), from, in, enc)
			if err != nil {
				return true
			}
			for _, f := range res.msgs {
				to := int(f.m.To)
				if r.inS[to] {
					if e.cfg.FIFO && e.channelBusy(s, j, to) {
						continue // behind a message in flight: no new delivery
					}
					if !r.collect {
						return true
					}
				}
				if to != j && !r.potKeys[to][string(f.enc)] {
					r.potKeys[to][string(f.enc)] = true
					r.pot[to] = append(r.pot[to], f)
					grew = true
				}
			}
			nk := localKey{res.after.id, issued, used}
			if !r.seen[nk] {
				r.seen[nk] = true
				r.queue = append(r.queue, nk)
			}
			return len(r.seen) > maxLocal
		}
		v := from.view
		for x := range r.inputs {
			used := k.used
			if x < nIn {
				if used&(1<<x) != 0 {
					continue
				}
				used |= 1 << x
			}
			f := &r.inputs[x]
			in := proto.Input{Kind: proto.Receive, Msg: f.m}
			if try(&in, f.enc, k.issued, used) {
				return true, grew
			}
		}
		if canRequest && v.Up && !v.Asked && !v.InCS && int(k.issued) < e.cfg.Requests {
			in := proto.Input{Kind: proto.EnterCS, Tag: uint32(int(k.issued)*e.cfg.Nodes + j + 1)}
			if try(&in, nil, k.issued+1, k.used) {
				return true, grew
			}
		}
		if v.Up && v.InCS {
			in := proto.Input{Kind: proto.ExitCS}
			if try(&in, nil, k.issued, k.used) {
				return true, grew
			}
		}
	}
	return false, grew
}

// channelBusy reports whether a message from → to is in flight in s.
func (e *Explorer) channelBusy(s *sys, from, to int) bool {
	return slices.ContainsFunc(s.msgs, func(f flight) bool { return int(f.m.From) == from && int(f.m.To) == to })
}

// commuting reports whether node i's deliveries enabled in s form a
// persistent set because every input node i may get before one of them —
// a message the other nodes may send it, a request or an exit — commutes
// with each of them in every local state node i may reach on such inputs
// (the same state and the same messages in either order, and neither
// disables the other). It leaves e.red.inS holding node i alone.
func (e *Explorer) commuting(s *sys, i int, as []action) bool {
	r := &e.red
	n := e.cfg.Nodes
	r.begin(i, n)
	r.collect = true
	defer func() { r.collect = false }()
	for changed := true; changed; {
		changed = false
		for j := range n {
			// Node i may move too before its deliveries taken (on the
			// inputs checked below), and what it sends then may bring
			// the others to send it more: it is explored without the
			// messages in flight to it (those are the set's).
			wild, grew := e.local(s, j, j != i)
			if wild || len(r.pot[j]) > maxPotential || len(r.pot[i]) > maxPotential {
				return false
			}
			changed = changed || grew
		}
	}
	// Node i's ample inputs: its deliveries enabled in s.
	var ample []*flight
	for _, a := range as {
		if a.kind == Deliver && int(a.node) == i {
			ample = append(ample, &s.msgs[a.idx])
		}
	}
	type key struct {
		id     uint32
		issued uint8
	}
	seen := map[key]bool{{s.ids[i], s.ext[i].issued}: true}
	queue := []key{{s.ids[i], s.ext[i].issued}}
	canRequest := i < e.cfg.Requesters
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		from := e.node(k.id)
		v := from.view
		// Node i may have moved before a delivery taken here is made
		// (on inputs that commute with it): it must be invisible from
		// there too.
		for _, f := range ample {
			if !e.invisibleAt(int32(i), from, f) {
				return false
			}
		}
		var inputs []proto.Input
		var encs [][]byte
		var issued []uint8
		for x := range r.pot[i] {
			inputs = append(inputs, proto.Input{Kind: proto.Receive, Msg: r.pot[i][x].m})
			encs = append(encs, r.pot[i][x].enc)
			issued = append(issued, k.issued)
		}
		if canRequest && v.Up && !v.Asked && !v.InCS && int(k.issued) < e.cfg.Requests {
			inputs = append(inputs, proto.Input{Kind: proto.EnterCS, Tag: uint32(int(k.issued)*n + i + 1)})
			encs = append(encs, nil)
			issued = append(issued, k.issued+1)
		}
		if v.Up && v.InCS {
			inputs = append(inputs, proto.Input{Kind: proto.ExitCS})
			encs = append(encs, nil)
			issued = append(issued, k.issued)
		}
		for x := range inputs {
			for _, f := range ample {
				if !e.commute(int32(i), from, &inputs[x], encs[x], f) {
					return false
				}
			}
			res, err := e.step(int32(i), from, &inputs[x], encs[x])
			if err != nil {
				return false
			}
			nk := key{res.after.id, issued[x]}
			if !seen[nk] {
				if len(seen) >= maxLocal {
					return false
				}
				seen[nk] = true
				queue = append(queue, nk)
			}
		}
	}
	return true
}

// commute reports whether input x and the delivery of f commute at node
// state from: in either order the same node state and the same messages,
// x still possible after the delivery (a delivery stays possible).
func (e *Explorer) commute(id int32, from *cachedNode, x *proto.Input, xenc []byte, f *flight) bool {
	d := proto.Input{Kind: proto.Receive, Msg: f.m}
	a1, err := e.step(id, from, &d, f.enc)
	if err != nil {
		return false
	}
	switch v := a1.after.view; x.Kind {
	case proto.EnterCS:
		if !v.Up || v.Asked || v.InCS {
			return false
		}
	case proto.ExitCS:
		if !v.Up || !v.InCS {
			return false
		}
	}
	a2, err := e.step(id, a1.after, x, xenc)
	if err != nil {
		return false
	}
	b1, err := e.step(id, from, x, xenc)
	if err != nil {
		return false
	}
	b2, err := e.step(id, b1.after, &d, f.enc)
	if err != nil {
		return false
	}
	if a2.after.id != b2.after.id || len(a1.timers)+len(a2.timers)+len(b1.timers)+len(b2.timers) > 0 {
		return false
	}
	return sameMsgs(append(slices.Clone(a1.msgs), a2.msgs...), append(slices.Clone(b1.msgs), b2.msgs...))
}

// sameMsgs reports whether two lists of messages are one multiset.
func sameMsgs(a, b []flight) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(f flight) string { return string(f.enc) }
	ka, kb := make([]string, len(a)), make([]string, len(b))
	for k := range a {
		ka[k], kb[k] = key(a[k]), key(b[k])
	}
	slices.Sort(ka)
	slices.Sort(kb)
	return slices.Equal(ka, kb)
}
