// Package incr makes incremental checkers (proto.Incremental) of the
// invariants that are properties of each node's own state: after a step
// only the stepping node's own state changed, so only it is read.
package incr

import (
	"errors"

	"github.com/ocbench/ocbench/proto"
)

// ErrBroken is what the checkers of this package return from Step for a
// violation: the runtime then asks the invariant's Check for its words.
var ErrBroken = errors.New("incr: invariant broken")

// Local makes checkers of an invariant check that holds iff no node is
// bad, where bad(s, i) reads only node i's own state and whether it is
// down.
func Local(check func(proto.System) error, bad func(s proto.System, i proto.NodeID) bool) func() proto.Incremental {
	return func() proto.Incremental { return &local{check, bad} }
}

type local struct {
	check func(proto.System) error
	bad   func(proto.System, proto.NodeID) bool
}

func (l *local) Full(s proto.System) error { return l.check(s) }

func (l *local) Step(s proto.System, id proto.NodeID, _ *proto.Message, _ []proto.Message) error {
	if l.bad(s, id) {
		return ErrBroken
	}
	return nil
}

// AtMost makes checkers of an invariant check that holds iff at most most
// nodes are such that is(s, i) and no node is bad, where is and bad read
// only node i's own state and whether it is down (bad may be nil).
func AtMost(check func(proto.System) error, most int, is, bad func(s proto.System, i proto.NodeID) bool) func() proto.Incremental {
	return func() proto.Incremental { return &atMost{check: check, most: most, is: is, bad: bad} }
}

type atMost struct {
	check   func(proto.System) error
	most, n int
	is, bad func(proto.System, proto.NodeID) bool
	in      []bool
}

func (a *atMost) Full(s proto.System) error {
	if err := a.check(s); err != nil {
		return err
	}
	k := len(s.Nodes())
	if cap(a.in) < k {
		a.in = make([]bool, k)
	}
	a.in, a.n = a.in[:k], 0
	for i := range k {
		a.in[i] = a.is(s, proto.NodeID(i))
		if a.in[i] {
			a.n++
		}
	}
	return nil
}

func (a *atMost) Step(s proto.System, id proto.NodeID, _ *proto.Message, _ []proto.Message) error {
	if int(id) >= len(a.in) {
		return proto.ErrFull
	}
	if x := a.is(s, id); x != a.in[id] {
		a.in[id] = x
		if x {
			a.n++
		} else {
			a.n--
		}
	}
	if a.n > a.most || a.bad != nil && a.bad(s, id) {
		return ErrBroken
	}
	return nil
}
