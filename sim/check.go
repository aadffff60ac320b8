package sim

import (
	"fmt"

	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/proto"
)

// breach records the first safety violation of a KeepGoing run.
func (s *Sim) breach(format string, args ...any) {
	if s.Stats.FirstBreach == "" {
		s.Stats.FirstBreach = fmt.Sprintf("at step %d (t=%.6fs): ", s.Stats.Steps, s.now) + fmt.Sprintf(format, args...)
	}
}

// check runs the invariants after a step of node id.
func (s *Sim) check(id proto.NodeID, in proto.Input) {
	if s.inCS > 1 {
		if s.cfg.KeepGoing {
			if s.out.Enter {
				s.Stats.OverlappingCS++
				s.breach("node %d entered the critical section while %d other node(s) were in it", id, s.inCS-1)
			}
		} else {
			s.fail("%d nodes are in the critical section (after node %d's step)", s.inCS, id)
			return
		}
	}
	t := s.tokenHolders + s.tokensInFlight
	if t > 1 && s.cfg.Crashes {
		t = s.liveTokens()
	}
	switch {
	case t > 1 && s.cfg.KeepGoing:
		if t > s.lastTokens {
			s.Stats.DuplicateTokens++
			s.breach("%d tokens exist (%d held, %d in flight) after node %d's step", t, s.tokenHolders, s.tokensInFlight, id)
		}
	case t > 1 || (t == 0 && !s.cfg.Crashes):
		s.fail("%d tokens exist (%d held, %d in flight) after node %d's step", t, s.tokenHolders, s.tokensInFlight, id)
		return
	}
	s.lastTokens = t
	if s.cfg.Check < CheckFull {
		return
	}
	if s.cfg.Crashes {
		if s.cfg.OpenCube {
			s.checkCrashRelations()
		}
		return
	}
	s.checkATree()
	if s.err == nil && s.cfg.OpenCube && s.inFlight == 0 {
		s.checkOpenCube()
	}
}

// liveTokens counts the tokens that can still be used: held by a live node,
// or in flight to a live node that will not discard it as stale (its
// generation is not below the destination's).
func (s *Sim) liveTokens() int {
	t := s.tokenHolders
	s.ForEachInFlight(func(m *proto.Message) {
		if m.Type == proto.Token && !s.down[m.To] && m.Gen >= s.nodes[m.To].View().Gen {
			t++
		}
	})
	return t
}

// ForEachInFlight calls f for every message in flight (f must not keep m).
func (s *Sim) ForEachInFlight(f func(m *proto.Message)) {
	for _, it := range s.heap {
		if p := &s.slab[it.idx]; p.kind == evDeliver {
			f(&p.msg)
		}
	}
}

// checkATree checks Proposition 1 of RR-1692: the relation a_tree is a rooted
// tree. (i, j) ∈ a_tree iff
//
//	(a1) ¬asked_i ∧ father_i = j
//	(a2) asked_i ∧ a message request(i) is in transit towards, or waiting on, j
//	(a3) asked_i ∧ mandator_j = i ∧ i ≠ j
//	(a4) asked_i ∧ a message token(k), k ≠ nil, is in transit from j towards i
//	(a5) asked_i ∧ father_i = j ∧ token_here_i
func (s *Sim) checkATree() {
	n := len(s.nodes)
	views := make([]proto.View, n)
	for i, nd := range s.nodes {
		views[i] = nd.View()
	}
	parent := make([]proto.NodeID, n)
	for i := range parent {
		parent[i] = proto.Nil
	}
	set := func(i, j proto.NodeID, cond string) bool {
		if parent[i] != proto.Nil && parent[i] != j {
			s.fail("a_tree: node %d has two fathers, %d and %d (%s)", i, parent[i], j, cond)
			return false
		}
		parent[i] = j
		return true
	}
	for i, v := range views {
		id := proto.NodeID(i)
		switch {
		case !v.Asked && v.Father != proto.Nil:
			if !set(id, v.Father, "a1") {
				return
			}
		case v.Asked && v.TokenHere && v.Father != proto.Nil:
			if !set(id, v.Father, "a5") {
				return
			}
		}
		if v.Mandator != proto.Nil && v.Mandator != id && views[v.Mandator].Asked {
			if !set(v.Mandator, id, "a3") {
				return
			}
		}
		ok := true
		s.nodes[i].Waiting(func(j proto.NodeID) {
			if ok && j != id && views[j].Asked {
				ok = set(j, id, "a2, waiting")
			}
		})
		if !ok {
			return
		}
	}
	ok := true
	s.ForEachInFlight(func(m *proto.Message) {
		switch {
		case !ok:
		case m.Type == proto.Request && views[m.J].Asked:
			ok = set(m.J, m.To, "a2, in transit")
		case m.Type == proto.Token && m.J != proto.Nil && views[m.To].Asked:
			ok = set(m.To, m.From, "a4")
		}
	})
	if !ok {
		return
	}
	// A rooted tree: exactly one root, and every path upwards reaches it.
	roots := 0
	state := make([]uint8, n) // 0 unvisited, 1 on the current path, 2 reaches the root
	for i := range parent {
		if parent[i] == proto.Nil {
			roots++
			state[i] = 2
		}
	}
	if roots != 1 {
		s.fail("a_tree has %d roots", roots)
		return
	}
	for i := range parent {
		j := proto.NodeID(i)
		for state[j] == 0 {
			state[j] = 1
			j = parent[j]
		}
		if state[j] == 1 {
			s.fail("a_tree has a cycle through node %d", j)
			return
		}
		for j = proto.NodeID(i); state[j] == 1; j = parent[j] {
			state[j] = 2
		}
	}
}

// checkOpenCube checks, when no node is asking or searching and no message
// is in flight, that the father relation is an open-cube: one root of power
// pmax, and every node of power p has exactly one son of each power
// 0..p−1, where the power of a non-root node is dist(i, father_i) − 1
// (Proposition 2.1). While some nodes are down (crashed for good) it checks
// what the live nodes can still be: one root, fathers that are up, and no
// node with two sons of the same power or a son of a power not below its
// own; the sons that the down nodes would be are missing.
func (s *Sim) checkOpenCube() {
	views := make([]proto.View, len(s.nodes))
	partial := false
	for i, nd := range s.nodes {
		views[i] = nd.View()
		if !views[i].Up {
			partial = true
			continue
		}
		if views[i].Asked || views[i].Searching {
			return
		}
	}
	power := func(i int) int { return hypercube.PowerWith(i, int(views[i].Father), s.cfg.PMax) }
	sons := make([]uint64, len(views))
	roots := 0
	for i, v := range views {
		if !v.Up {
			continue
		}
		if v.Father == proto.Nil {
			roots++
			continue
		}
		f, p := int(v.Father), power(i)
		if !views[f].Up {
			s.fail("open-cube: node %d has father %d, which is down", i, f)
			return
		}
		if p >= power(int(v.Father)) {
			s.fail("open-cube: node %d of power %d has father %d of power %d", i, p, f, power(f))
			return
		}
		if sons[f]&(1<<p) != 0 {
			s.fail("open-cube: node %d has two sons of power %d", f, p)
			return
		}
		sons[f] |= 1 << p
	}
	if roots != 1 {
		s.fail("open-cube: %d roots", roots)
		return
	}
	if partial {
		return
	}
	for i := range views {
		if want := uint64(1)<<power(i) - 1; sons[i] != want {
			s.fail("open-cube: node %d of power %d has sons of powers %b, want one of each power below %d", i, power(i), sons[i], power(i))
			return
		}
	}
}

// CheckShape checks now that the father relation of the live nodes is an
// open-cube (none asking or searching; with nodes down, what the live nodes
// can still be: checkOpenCube); it returns the violation, if any, without
// stopping the run.
func (s *Sim) CheckShape() error {
	saved := s.err
	s.err = nil
	s.checkOpenCube()
	err := s.err
	s.err = saved
	return err
}

// upDown notes that node id crashed (up false) or recovered.
func (s *Sim) upDown(id proto.NodeID, up bool) {
	if s.incarnation == nil {
		s.incarnation = make([]uint32, len(s.nodes))
	}
	if up {
		s.incarnation[id]++
		s.downNodes--
		s.lastUp = s.now
		return
	}
	s.downNodes++
	s.lastCrash = s.now
}

// judge counts a suspicion of node id, and counts it as false if no node
// was down at any time during the silence the suspecter waited (so nothing
// can have lost its request) and the node it suspects is up, in the
// incarnation it last heard from. In a run without crashes every suspicion
// is false; in a run with crashes, a suspicion while some node is down is
// given the benefit of the doubt, so FalseSuspicions is a lower bound there.
func (s *Sim) judge(id proto.NodeID, sp proto.Suspicion) {
	s.Stats.Suspicions++
	from := s.now - sp.Window*s.cfg.Delta
	if s.incarnation != nil {
		if s.downNodes > 0 || s.lastUp >= from || s.lastCrash >= from {
			return
		}
		if sp.Of != proto.Nil && (s.down[sp.Of] || s.incarnation[sp.Of] != sp.Inc) {
			return
		}
	}
	s.Stats.FalseSuspicions++
	if s.Stats.FirstFalseSuspicion == "" {
		of := "the way to its request's holder"
		if sp.Of != proto.Nil {
			of = fmt.Sprintf("node %d (up, incarnation %d)", sp.Of, sp.Inc)
		}
		s.Stats.FirstFalseSuspicion = fmt.Sprintf("at step %d (t=%.6fs): node %d suspected %s after %.1fδ of silence", s.Stats.Steps, s.now, id, of, sp.Window)
	}
}

// checkCrashRelations checks, in a run with crashes, a relation that holds
// while nodes search and after crashes bent the tree (docs/failures.md,
// "What is checked"): at most one live node that neither asks nor searches
// is a root (father nil). The a_tree relation and the open-cube shape do
// not hold then: a crashed node's sons keep it as their father until they
// next ask, and searches leave the fathers of idle nodes bent, even in
// cycles, until requests repair them (anomalies, chases).
func (s *Sim) checkCrashRelations() {
	first := proto.Nil
	for i, nd := range s.nodes {
		v := nd.View()
		if !v.Up || v.Asked || v.Searching || v.Father != proto.Nil {
			continue
		}
		if first != proto.Nil {
			s.fail("crash relations: two idle roots, nodes %d and %d", first, i)
			return
		}
		first = proto.NodeID(i)
	}
}
