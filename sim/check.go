package sim

import (
	"fmt"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/safety"
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
		if (safety.KExclusion{Ell: s.cfg.Units}).Broken(s.units) {
			s.overUnits(id)
			return
		}
	} else if (safety.Mutex{}).Broken(s.inCS) && !s.twoInCS(id) {
		return
	}
	if s.cfg.Family == proto.TokenBased && s.owned == nil &&
		(s.tokenHolders+s.tokensInFlight != 1 || s.lastTokens != 1) && !s.checkTokens(id) {
		return // checkTokens runs unless exactly one token exists, as after the last check
	}
	if s.cfg.Check < CheckFull || s.skipped {
		return // skipped: not this step's turn (ClosureSmall)
	}
	full := s.incFull
	s.incFull = false
	for i, inv := range s.cfg.Invariants {
		switch {
		case inv.When == proto.EveryStep && s.incs != nil && s.incs[i] != nil:
			if err := s.stepCheck(s.incs[i], inv, id, full); err != nil {
				s.incFull = true
				s.fail("%v", err)
				return
			}
		case inv.When == proto.Quiet && s.inFlight == 0 && s.incs != nil && s.incs[i] != nil:
			if s.incs[i].Full(s) != nil {
				if err := inv.Check(s); err != nil {
					s.incFull = true
					s.fail("%v", err)
					return
				}
			}
		case inv.When == proto.EveryStep, inv.When == proto.Quiet && s.inFlight == 0:
			if err := inv.Check(s); err != nil {
				s.incFull = true
				s.fail("%v", err)
				return
			}
		}
	}
}

// crossCheck, if not nil, is called after every incremental step check
// with the checker's verdict (nil, proto.ErrFull or a violation) and
// Check's on the same system (tests set it).
var crossCheck func(inv proto.Invariant, step int64, incremental, whole error)

// afterStep, if not nil, is called with the node that stepped, after its
// step and before the simulator reads what it did (tests set it to break
// the node's state).
var afterStep func(n proto.Node)

// incremental makes the incremental checkers of the run's invariants
// (proto.Incremental) when the run checks them after every step and every
// change of its nodes and links is a step of one of them, or a change that
// sets incFull. A run with a legitimacy predicate (whose faults scramble
// nodes and whose checks wait for stabilization), a part of a split run
// or its mirror checks every invariant whole.
func (s *Sim) incremental() {
	if s.cfg.Check < CheckFull || s.cfg.Legitimate != nil || s.cfg.Owned != nil || s.cfg.Mirrored {
		return
	}
	for i, inv := range s.cfg.Invariants {
		if inv.When == proto.AtEnd || inv.Incremental == nil {
			continue
		}
		if s.incs == nil {
			s.incs = make([]proto.Incremental, len(s.cfg.Invariants))
		}
		s.incs[i] = inv.Incremental()
	}
	s.incFull = true
}

// stepCheck checks inv after a step of node id with its incremental
// checker c: the whole system if full (or if c cannot tell from the
// step), and the violation in the words of inv.Check.
func (s *Sim) stepCheck(c proto.Incremental, inv proto.Invariant, id proto.NodeID, full bool) error {
	var err error
	if !full {
		err = c.Step(s, id, s.stepIn, s.out.Msgs)
		if crossCheck != nil {
			crossCheck(inv, s.Stats.Steps, err, inv.Check(s))
		}
		if err == nil {
			return nil
		}
	}
	if err = c.Full(s); err == nil {
		return nil
	}
	if err = inv.Check(s); err == nil {
		s.incFull = true // c saw what Check does not: c starts again
	}
	return err
}

// twoInCS is the simulator's account of a step of node id after which
// several nodes are in the critical section (safety.Mutex). It reports
// whether the run goes on: with KeepGoing, such an entry is counted and
// the first noted, and the run goes on.
func (s *Sim) twoInCS(id proto.NodeID) bool {
	rule := safety.Mutex{}
	if !s.cfg.KeepGoing {
		s.fail("%s (after node %d's step)", rule.What(s.inCS), id)
		return false
	}
	if s.out.Enter {
		s.Stats.OverlappingCS++
		s.breach("%s", rule.Entered(id, s.inCS-1))
	}
	return true
}

// overUnits fails the run after a step of node id after which more than
// ℓ units are in use (safety.KExclusion).
func (s *Sim) overUnits(id proto.NodeID) {
	s.fail("%s (after node %d's step)", safety.KExclusion{Ell: s.cfg.Units}.What(s.units), id)
}

// checkTokens checks the token of a token-based algorithm after a step of
// node id (safety.Token): exactly one (at most one live token with
// crashes). It reports whether the run goes on: with KeepGoing, a step
// that adds a token beyond the first is counted and the first noted, and
// the run goes on.
func (s *Sim) checkTokens(id proto.NodeID) bool {
	rule := safety.Token{Type: s.token, Crashes: s.cfg.Crashes}
	t := rule.Count(s.tokenHolders, s.tokensInFlight, s.liveInFlight)
	switch {
	case t > 1 && s.cfg.KeepGoing:
		if t > s.lastTokens {
			s.Stats.DuplicateTokens++
			s.breach("%s after node %d's step", rule.What(t, s.tokenHolders, s.tokensInFlight), id)
		}
	case rule.Broken(t):
		s.fail("%s after node %d's step", rule.What(t, s.tokenHolders, s.tokensInFlight), id)
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

// liveInFlight counts the live tokens in flight (safety.Token.Live).
func (s *Sim) liveInFlight() int {
	rule, t := safety.Token{Type: s.token}, 0
	s.ForEachInFlight(func(m *proto.Message) {
		if rule.Carries(m) && rule.Live(m, !s.slotOf(m.To).down, s.nodes[m.To].View().Gen) {
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
