package sim

import (
	"fmt"

	"github.com/ocbench/ocbench/proto"
)

// breach records the first safety violation of a KeepGoing run.
func (s *Sim) breach(format string, args ...any) {
	if s.Stats.FirstBreach == "" {
		s.Stats.FirstBreach = fmt.Sprintf("at step %d (t=%.6fs): ", s.Stats.Steps, s.now) + fmt.Sprintf(format, args...)
	}
}

// check runs the invariants after a step of node id.
func (s *Sim) check(id proto.NodeID) {
	if s.cfg.Mirrored {
		return // the mirror checks the whole run (Config.Mirrored)
	}
	if s.cfg.Legitimate != nil && !s.checkStab() {
		return // before stabilization the configuration is arbitrary
	}
	if s.cfg.Family == proto.KExclusion {
		if !s.checkUnits(id) {
			return
		}
	} else if s.inCS > 1 {
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
	if s.cfg.Family == proto.TokenBased && s.owned == nil &&
		(s.tokenHolders+s.tokensInFlight != 1 || s.lastTokens != 1) && !s.checkTokens(id) {
		return // checkTokens runs unless exactly one token exists, as after the last check
	}
	if s.cfg.Check < CheckFull || s.skipped {
		return // skipped: not this step's turn (ClosureSmall)
	}
	for _, inv := range s.cfg.Invariants {
		switch {
		case inv.When == proto.EveryStep, inv.When == proto.Quiet && s.inFlight == 0:
			if err := inv.Check(s); err != nil {
				s.fail("%v", err)
				return
			}
		}
	}
}

// checkTokens checks the token of a token-based algorithm after a step of
// node id: exactly one (at most one live token with crashes). It reports
// whether the run goes on.
func (s *Sim) checkTokens(id proto.NodeID) bool {
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
		return false
	}
	s.lastTokens = t
	return true
}

// Nodes implements proto.System.
func (s *Sim) Nodes() []proto.Node { return s.nodes }

// CheckAtEnd checks now the invariants of Config.Invariants that hold at
// the end of a run (proto.AtEnd: the open-cube's shape after the repair
// pass); it returns the first violation, a *Violation, without stopping
// the run.
func (s *Sim) CheckAtEnd() error {
	for _, inv := range s.cfg.Invariants {
		if inv.When == proto.AtEnd {
			if err := inv.Check(s); err != nil {
				return &Violation{Seed: s.cfg.Seed, Step: s.Stats.Steps, Time: s.now, What: err.Error()}
			}
		}
	}
	return nil
}

// liveTokens counts the tokens that can still be used: held by a live node,
// or in flight to a live node that will not discard it as stale (its
// generation is not below the destination's).
func (s *Sim) liveTokens() int {
	t := s.tokenHolders
	s.ForEachInFlight(func(m *proto.Message) {
		if m.Type == s.token && !s.slotOf(m.To).down && m.Stamp >= s.nodes[m.To].View().Gen {
			t++
		}
	})
	return t
}

// ForEachInFlight calls f for every message in flight (f must not keep m),
// in delivery order with Config.OrderedInFlight.
func (s *Sim) ForEachInFlight(f func(m *proto.Message)) {
	if s.cfg.OrderedInFlight {
		for _, it := range s.orderedInFlight() {
			f(&s.slab[it.Idx].in.Msg)
		}
		return
	}
	for _, it := range s.heap {
		if p := &s.slab[it.Idx]; p.kind == evDeliver {
			f(&p.in.Msg)
		}
	}
}

// upDown notes that node id crashed (up false) or recovered.
func (s *Sim) upDown(id proto.NodeID, up bool) { s.note(Note{Kind: NoteUpDown, Node: id, Up: up}) }

// judge counts a suspicion of node id and notes it for the judge.
func (s *Sim) judge(id proto.NodeID, sp proto.Suspicion) {
	s.Stats.Suspicions++
	s.note(Note{Kind: NoteSuspect, Node: id, Sp: sp})
}
