package sim

import (
	"fmt"
	"slices"

	"github.com/ocbench/ocbench/proto"
)

// Judge decides which of the failures that nodes suspect (proto.Suspicion)
// were false. A runtime tells it, in time order, when a node crashes or
// recovers (UpDown) and when a node receives a message of a failure
// protocol (HeardFailure), then asks it about each suspicion as it is made
// (False). The simulator judges every suspicion with one (Stats); a step
// test that drives nodes by hand can keep its own to judge the scenario it
// plays.
type Judge struct {
	n     int
	delta float64 // δ, in the unit of the times the judge is given
	// incarnation[i] counts node i's recoveries and down[i] says whether it
	// is down (both nil until the first crash); downNodes is the number of
	// nodes down, lastCrash and lastUp the times of the last crash and
	// recovery, lastFailure that of the last receipt of a failure-protocol
	// message (-1: none).
	incarnation                    []uint32
	down                           []bool
	downNodes                      int
	lastCrash, lastUp, lastFailure float64
}

// NewJudge returns the judge of a system of n nodes, all up, in which δ is
// delta (in the unit of the times it is given: seconds in the simulator).
func NewJudge(n int, delta float64) *Judge {
	return &Judge{n: n, delta: delta, lastCrash: -1, lastUp: -1, lastFailure: -1}
}

// HeardFailure notes that a live node received a message of cause
// proto.Failure (the handling of a failure: a search, an anomaly, a
// regeneration's announcement, a request sent again) at time now.
func (j *Judge) HeardFailure(now float64) { j.lastFailure = now }

// UpDown notes that node id crashed (up false) or recovered at time now.
func (j *Judge) UpDown(id proto.NodeID, up bool, now float64) {
	if j.incarnation == nil {
		j.incarnation = make([]uint32, j.n)
		j.down = make([]bool, j.n)
	}
	j.down[id] = !up
	if up {
		j.incarnation[id]++
		j.downNodes--
		j.lastUp = now
		return
	}
	j.downNodes++
	j.lastCrash = now
}

// False reports whether suspicion sp, made at time now, was false: no
// failure can explain the silence the suspecter waited.
//
// In a run without crashes every suspicion is false. Once a node has
// crashed, a suspicion is false only if, during the silence, no node was
// down, none crashed or recovered, and no node received a message of a
// failure protocol, from δ before the silence began (the news that began it
// may have been sent δ before it arrived), and the node suspected, if the
// suspicion names one, is up in the incarnation the suspecter last heard
// from. The handling of a crash outlasts the crash: a recovered node's
// search can fail its last phase while the token is on its way, announce a
// new token generation and so make the token on its way stale, to be
// discarded by the requester it was for, which then hears nothing more and
// suspects; its request was lost to the crash, though no node was down
// during its silence (docs/failures.md). Suspicions that overlap a failure
// or its handling are given the benefit of the doubt, so the count of false
// ones is a lower bound in a run with crashes.
func (j *Judge) False(sp proto.Suspicion, now float64) bool {
	if j.incarnation == nil {
		return true
	}
	from := now - sp.Window*j.delta
	if j.downNodes > 0 || j.lastUp >= from || j.lastCrash >= from || j.lastFailure >= from-j.delta {
		return false
	}
	return sp.Of == proto.Nil || (!j.down[sp.Of] && j.incarnation[sp.Of] == sp.Inc)
}

// MergeNotes merges the notes of a run's parts into the run's step order.
// The notes of one step come from one part, in the order it made them.
func MergeNotes(parts ...[]Note) []Note {
	var all []Note
	for _, p := range parts {
		all = append(all, p...)
	}
	slices.SortStableFunc(all, func(a, b Note) int {
		switch {
		case a.Before(b.Mark):
			return -1
		case b.Before(a.Mark):
			return 1
		}
		return 0
	})
	return all
}

// JudgeNotes judges the suspicions of a run of n nodes, in which δ is
// delta, from its notes in step order (MergeNotes): it returns how many
// were false (Judge.False) and describes the first of them.
func JudgeNotes(n int, delta float64, notes []Note) (falses int64, first string) {
	j := NewJudge(n, delta)
	for _, x := range notes {
		switch x.Kind {
		case NoteHeard:
			j.HeardFailure(x.T)
		case NoteUpDown:
			j.UpDown(x.Node, x.Up, x.T)
		case NoteSuspect:
			if !j.False(x.Sp, x.T) {
				continue
			}
			falses++
			if first == "" {
				of := "the way to its request's holder"
				if x.Sp.Of != proto.Nil {
					of = fmt.Sprintf("node %d (up, incarnation %d)", x.Sp.Of, x.Sp.Inc)
				}
				first = fmt.Sprintf("at t=%.6fs: node %d suspected %s after %.1fδ of silence", x.T, x.Node, of, x.Sp.Window)
			}
		}
	}
	return falses, first
}
