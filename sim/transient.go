package sim

import (
	"fmt"
	"slices"

	"github.com/ocbench/ocbench/internal/eventq"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/trace"
)

// Stab is the stabilization of a run with a legitimacy predicate
// (Config.Legitimate): when the last fault struck, and when the predicate
// began to hold after it, with the counters at both points so that a
// runtime can count the rounds in between.
type Stab struct {
	// Legit reports whether the predicate holds now (always true without
	// one).
	Legit bool
	// Faults counts the faults (Fault calls); LastFault and
	// LastFaultStep say when the last one struck (0 before any).
	Faults        int
	LastFault     float64
	LastFaultStep int64
	// At and AtStep say when the predicate began to hold after the last
	// fault (valid when Legit).
	At     float64
	AtStep int64
	// EventsAtFault and EventsAt are the algorithm's event counts, and
	// SentAtFault and SentAt the messages sent by type, at the last fault
	// and when the predicate began to hold.
	EventsAtFault, EventsAt [proto.MaxEvents]int64
	SentAtFault, SentAt     [proto.MaxMsgTypes]int64
	// RoundsAtFault and RoundsAt are the asynchronous rounds begun (see
	// Rounds) at the last fault and when the predicate began to hold.
	RoundsAtFault, RoundsAt int64
	// Why says why the predicate did not hold at the last step it failed.
	Why string
}

// Rounds returns the asynchronous rounds from the last fault until the
// predicate began to hold (valid when Legit): the unit in which
// self-stabilization papers state stabilization times (see rounds).
func (st Stab) Rounds() int64 { return st.RoundsAt - st.RoundsAtFault }

// rounds counts a run's asynchronous rounds, the unit of time of
// self-stabilization in message passing. Round 1 begins at the first step;
// a round that begins at time T ends at the latest delivery time of the
// messages in flight at T (those sent at T included), or, if none is in
// flight then, at the next step after T; the next round begins where it
// ends. With every delay at most δ a round lasts at most δ; a timer's wait
// with nothing in flight is one round, however long.
type rounds struct {
	begun int64   // the rounds begun so far: the current round's number
	start float64 // when the current round began
	end   float64 // when it ends (valid when known)
	known bool    // its end is known: a step after its start has come
	due   float64 // the latest delivery time of the messages posted so far
}

// step is called at every step at time now, before the step's messages
// are posted; steps come in time order.
func (r *rounds) step(now float64) {
	if r.begun == 0 {
		r.begun, r.start = 1, now
		return
	}
	for {
		if !r.known {
			if now <= r.start {
				return // messages sent now are in flight at the start
			}
			// The first step after the start: every message sent by
			// then was sent at the start or before.
			r.end, r.known = r.due, true
			if r.due <= r.start {
				r.end = now // nothing was in flight: the round ends here
			}
		}
		if now <= r.end {
			return
		}
		r.begun++
		r.start, r.known = r.end, false
	}
}

// Rounds counts asynchronous rounds as the simulator does (Stab.Rounds),
// for a runtime that replays a run's steps in their order: Step at every
// step, before Post for each message the step sends.
type Rounds struct{ r rounds }

// Step notes a step at time now (steps come in time order).
func (c *Rounds) Step(now float64) { c.r.step(now) }

// Post notes a message posted now, delivered at time at.
func (c *Rounds) Post(at float64) { c.r.due = max(c.r.due, at) }

// Begun returns the rounds begun so far.
func (c *Rounds) Begun() int64 { return c.r.begun }

// Stab returns the run's stabilization so far.
func (s *Sim) Stab() Stab { return s.stab }

// Units returns the units in use now (KExclusion): the sum of View.Units
// over the nodes in the critical section.
func (s *Sim) Units() int { return s.units }

// NodeUnits returns the units node id uses (View.Units) if its view after
// its last step has it in the critical section, else 0. A hook called
// after the node's step (Hooks.Enter) reads it without reading the node.
func (s *Sim) NodeUnits(id proto.NodeID) int {
	if sl := s.slotOf(id); sl.inCS {
		return int(sl.units)
	}
	return 0
}

func (s *Sim) sentByType() (out [proto.MaxMsgTypes]int64) {
	for k, byCause := range s.Stats.Sent {
		for _, c := range byCause {
			out[k] += c
		}
	}
	return out
}

// At calls fn at time t (seconds, not before now), between steps, as After
// does: a plan drawn ahead schedules its events one at a time at their
// times, without the rounding of t − now.
func (s *Sim) At(t float64, fn func()) { s.call(max(t, s.now), fn) }

// Fault records that a transient fault struck now: the legitimacy
// predicate no longer holds until a step makes it hold again, and the
// stabilization time counts from here.
func (s *Sim) Fault() {
	s.stab.Faults++
	s.stab.Legit = s.cfg.Legitimate == nil
	s.stab.LastFault, s.stab.LastFaultStep = s.now, s.Stats.Steps
	s.flushEvents()
	s.stab.EventsAtFault = s.Stats.Events
	s.stab.SentAtFault = s.sentByType()
	s.stab.RoundsAtFault = s.rounds.begun
	if !s.cfg.Mirrored {
		s.traceEv(trace.Fault, proto.Nil)
	}
}

// Corrupt runs f, which changes node id's state outside any step (a
// transient fault: Scramble), and brings the runtime's counts of the
// node's view up to date. It is not a step; call Fault too. On a part
// that does not host the node it only runs f.
func (s *Sim) Corrupt(id proto.NodeID, f func()) {
	if !s.hosts(id) {
		f() // another part's node: its copy here only follows the draws
		return
	}
	sl := s.slotOf(id)
	f()
	v := sl.node.View()
	s.cache(sl, v)
	if !s.cfg.Mirrored {
		s.traceEv(trace.Corrupt, id)
	}
}

// InFlightRemotes returns the messages in flight that this part holds
// (queued for its nodes, and in Outbox), with their delivery times, keys
// and sending times.
func (s *Sim) InFlightRemotes() []Remote {
	out := append([]Remote(nil), s.Outbox...)
	for _, it := range s.heap {
		if p := &s.slab[it.Idx]; p.kind == evDeliver {
			out = append(out, Remote{T: it.T, Sent: p.sent, Key: it.Key, Msg: p.in.Msg})
		}
	}
	return out
}

// DestroyKey takes the message in flight of key out of its link, as
// Destroy does (a part of a run, which holds the message: InFlightRemotes),
// and reports whether it found it.
func (s *Sim) DestroyKey(key uint64) bool {
	for _, it := range s.heap {
		if p := &s.slab[it.Idx]; p.kind == evDeliver && it.Key == key {
			p.kind = evDestroyed
			s.incFull = true // a message left without a step
			s.inFlight--
			if p.in.Msg.Type == s.token {
				s.tokensInFlight--
			}
			s.Stats.Destroyed++
			return true
		}
	}
	return false
}

// Inject puts m in the link from m.From to m.To now, as a transient fault
// does (junk, or a duplicate): it is delivered like a message sent now,
// behind the link's messages with FIFO, and counted in Stats.Injected,
// not as sent.
func (s *Sim) Inject(m proto.Message) { s.post(&m, true) }

// InFlightAt returns the k-th message in flight (0 ≤ k < InFlight()) in
// delivery order, to duplicate or destroy it.
func (s *Sim) InFlightAt(k int) proto.Message {
	it := s.orderedInFlight()[k]
	return s.slab[it.Idx].in.Msg
}

// Destroy takes the k-th message in flight (in delivery order) out of its
// link, as a transient fault does: it is never delivered.
func (s *Sim) Destroy(k int) {
	it := s.orderedInFlight()[k]
	p := &s.slab[it.Idx]
	p.kind = evDestroyed
	s.incFull = true // a message left without a step
	s.inFlight--
	if p.in.Msg.Type == s.token {
		s.tokensInFlight--
	}
	s.Stats.Destroyed++
	s.traceMsg(trace.Destroy, p.in.Msg.To, &p.in.Msg, it.Key)
}

// inFlightKey changes whenever the set of messages in flight does: a
// message posted, popped (delivered or dropped) or destroyed.
func (s *Sim) inFlightKey() [4]uint64 {
	return [4]uint64{s.posted, uint64(s.Stats.Delivered), uint64(s.Stats.Dropped), uint64(s.Stats.Destroyed)}
}

// orderedInFlight returns the heap's deliveries sorted in delivery order
// (the order they will be popped in), in a scratch slice that stays valid
// until the messages in flight change: the legitimacy predicate and the
// invariants evaluated after the same step share one sort.
func (s *Sim) orderedInFlight() []eventq.Item {
	k := s.inFlightKey()
	if s.orderedOK && s.orderedKey == k {
		return s.ordered
	}
	s.orderedKey, s.orderedOK = k, true
	s.ordered = s.ordered[:0]
	for _, it := range s.heap {
		if s.slab[it.Idx].kind == evDeliver {
			s.ordered = append(s.ordered, it)
		}
	}
	slices.SortFunc(s.ordered, func(a, b eventq.Item) int {
		switch {
		case a.T < b.T:
			return -1
		case a.T > b.T:
			return 1
		case a.Key < b.Key: // a.less(b) and b.less(a) in one comparison
			return -1
		case a.Key > b.Key:
			return 1
		}
		return 0
	})
	return s.ordered
}

// ClosureSmall bounds the systems whose closure check runs after every
// step. Once the legitimacy predicate holds, it (and the algorithm's
// EveryStep invariants) is evaluated after every step while the nodes and
// the messages in flight number fewer than ClosureSmall, and otherwise
// only when the steps since its last evaluation reach N + m (m: messages in
// flight). An evaluation reads every node and every message in flight in
// delivery order, O(N + m log m), so the check costs O(log m) per step,
// amortized, where evaluating after every step cost O(N + m log m): kofl
// keeps about ℓ tokens in flight (ℓ = 16384: 20 s with a stride of m/64,
// 0.9 s with this one). Before the predicate holds (after a fault, or from
// the start) it is evaluated after every step, so the stabilization time
// stays exact; the O(1) checks (units in use ≤ ℓ, critical sections) run
// after every step. Closure checking stays sound: a configuration that
// stops being legitimate without a fault is reported when the next
// evaluation finds it so, at the latest when the run stops (Run evaluates
// the predicate then if the last step's turn was skipped); only a lapse
// that mends itself within the stride goes unseen.
const ClosureSmall = 256

// closureDue reports whether the closure check (and the EveryStep
// invariants) runs after this step of a legitimate run (ClosureSmall).
func (s *Sim) closureDue() bool {
	k := len(s.nodes) + s.inFlight
	return k < ClosureSmall || s.Stats.Steps-s.lastClosure >= int64(k)
}

// lastClosureCheck evaluates the legitimacy predicate when a run stops
// (its events are over, or Stop) if the last step's turn was skipped
// (ClosureSmall), so that a lapse lasting to the end is reported.
func (s *Sim) lastClosureCheck() {
	if !s.skipped || s.err != nil || !s.stab.Legit {
		return
	}
	s.skipped = false
	s.lastClosure = s.Stats.Steps
	if err := s.cfg.Legitimate(s); err != nil {
		s.fail("closure: legitimate since step %d (t=%.6fs) and no fault since, not at the end of the run: %v", s.stab.AtStep, s.stab.At, err)
	}
}

// checkStab evaluates the legitimacy predicate after a step and reports
// whether the run's safety checks apply (the predicate holds). Once it
// holds it must hold until the next fault: else the run fails (closure);
// the predicate is then evaluated as ClosureSmall says, and s.skipped is
// set after the steps it is not.
func (s *Sim) checkStab() bool {
	s.skipped = false
	if s.cfg.Legitimate == nil {
		return true
	}
	if s.stab.Legit && !s.closureDue() {
		s.skipped = true
		return true
	}
	s.lastClosure = s.Stats.Steps
	err := s.cfg.Legitimate(s)
	switch {
	case err == nil && !s.stab.Legit:
		s.stab.Legit = true
		s.stab.At, s.stab.AtStep = s.now, s.Stats.Steps
		s.flushEvents()
		s.stab.EventsAt = s.Stats.Events
		s.stab.SentAt = s.sentByType()
		s.stab.RoundsAt = s.rounds.begun
		s.traceEv(trace.Legitimate, proto.Nil)
	case err != nil && s.stab.Legit:
		s.fail("closure: legitimate since step %d (t=%.6fs) and no fault since, not now: %v", s.stab.AtStep, s.stab.At, err)
		return false
	case err != nil:
		s.stab.Why = err.Error()
	}
	return s.stab.Legit
}

// String describes the stabilization for a message.
func (st Stab) String() string {
	if !st.Legit {
		return fmt.Sprintf("not legitimate since the fault at t=%.6fs: %s", st.LastFault, st.Why)
	}
	return fmt.Sprintf("legitimate from t=%.6fs (step %d), the last fault at t=%.6fs", st.At, st.AtStep, st.LastFault)
}
