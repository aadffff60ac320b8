package sim

import "github.com/ocbench/ocbench/proto"

// Judge decides which of the failures that nodes suspect (proto.Suspicion)
// were false. A runtime tells it, in time order, when a node crashes or
// recovers (UpDown), then asks it about each suspicion as it is made
// (False). The simulator judges every suspicion with one (Stats); a step
// test that drives nodes by hand can keep its own to judge the scenario it
// plays.
type Judge struct {
	n     int
	delta float64 // δ, in the unit of the times the judge is given
	// incarnation[i] counts node i's recoveries and down[i] says whether it
	// is down (both nil until the first crash); downNodes is the number of
	// nodes down, lastCrash and lastUp the times of the last crash and
	// recovery (-1: none).
	incarnation       []uint32
	down              []bool
	downNodes         int
	lastCrash, lastUp float64
}

// NewJudge returns the judge of a system of n nodes, all up, in which δ is
// delta (in the unit of the times it is given: seconds in the simulator).
func NewJudge(n int, delta float64) *Judge {
	return &Judge{n: n, delta: delta, lastCrash: -1, lastUp: -1}
}

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

// False reports whether suspicion sp, made at time now, was false. In a
// run without crashes every suspicion is false. Once a node has crashed, a
// suspicion is false if no node was down at any time during the silence
// the suspecter waited (so nothing can have lost its request) and the node
// it suspects is up, in the incarnation it last heard from; a suspicion
// while some node is down is given the benefit of the doubt, so the count
// of false ones is a lower bound there.
func (j *Judge) False(sp proto.Suspicion, now float64) bool {
	if j.incarnation == nil {
		return true
	}
	from := now - sp.Window*j.delta
	if j.downNodes > 0 || j.lastUp >= from || j.lastCrash >= from {
		return false
	}
	return sp.Of == proto.Nil || (!j.down[sp.Of] && j.incarnation[sp.Of] == sp.Inc)
}
