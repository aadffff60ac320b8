package explore

import (
	"errors"
	"fmt"
	"time"
)

// StabResult is the exact worst case of a self-stabilizing algorithm's
// stabilization over every initial configuration given (Config.Initial)
// and every run from it: the most rounds and the most round events
// (kofl: Root's STARTs, CToken traversals) before the first legitimate
// state.
type StabResult struct {
	// Configurations is the number of distinct initial states; States
	// the states before legitimacy explored (rounds' marks included).
	Configurations int
	States         int64
	// Rounds (begun from the initial configuration up to and including the
	// one in which the predicate first holds, as sim.Stab.Rounds counts
	// them) and Events are the worst cases, each over every run (the two
	// may come from different runs); RoundsFrom and EventsFrom the index
	// in Config.Initial's list of an initial configuration that reaches
	// each.
	Rounds, Events         int
	RoundsFrom, EventsFrom int
	// Unbounded, if not "", says why no bound exists: a run that never
	// reaches a legitimate state (a cycle of states before legitimacy, or
	// a state from which nothing can happen).
	Unbounded     string
	UnboundedFrom int    // the index of its initial configuration
	Limit         string // the state limit or the memory budget stopped the search
	Elapsed       time.Duration
}

// A round, on the state graph: a round begins with the messages in flight
// marked old; it ends at the first transition other than a tick after
// which no old message is in flight (each was received, or lost); the
// messages then in flight are marked old and the next round begins. A
// round that begins with nothing in flight ends at the next transition
// other than a tick. docs/explore.md argues the definition.

type stabValue struct{ rounds, events int32 }

// stabStateBytes is what Stabilization keeps for a state before
// legitimacy: its memo entry (a map from fingerprint to stabValue) with the
// map's overhead, and its share of the stack (measured: 50–60 B a state).
const stabStateBytes = 64

type stabFrame struct {
	enc    []byte
	h      uint64
	as     []action
	next   int
	best   stabValue
	w      stabValue // the weights of the edge that led here
	config int       // the initial configuration it was reached from
}

// Stabilization computes the exact worst-case stabilization: a longest
// path, in rounds and in round events, from an initial configuration to
// the first legitimate state, over every run (the scheduler as an
// adversary: every order, every delay within its bounds). It needs the
// states before legitimacy to form no cycle; a cycle (or a state without
// a transition) means a run that never stabilizes, reported in
// Unbounded.
func (e *Explorer) Stabilization() (*StabResult, error) {
	if e.stab == nil {
		return nil, errors.New("explore: the algorithm is not self-stabilizing")
	}
	t0 := time.Now()
	res := &StabResult{}
	inits, err := e.initial()
	if err != nil {
		return nil, err
	}
	memo := map[uint64]stabValue{}
	onStack := map[uint64]bool{}
	var stack []*stabFrame
	var s, c sys
	var buf []byte
	looks := 0 // steps taken, for the looks at Config.Stop
	seenInit := map[uint64]bool{}
	for ci, init := range inits {
		e.legitimate(init)
		for k := range init.msgs {
			init.msgs[k].old = true
		}
		buf = appendState(buf[:0], init)
		h := hash64(buf)
		if seenInit[h] {
			continue
		}
		seenInit[h] = true
		res.Configurations++
		if init.legit {
			continue
		}
		if _, ok := memo[h]; ok {
			continue
		}
		push := func(enc []byte, h uint64, w stabValue, from int) error {
			if !e.readState(enc, &s) {
				return errCorrupt
			}
			if err := e.decodeNodes(&s); err != nil {
				return err
			}
			f := &stabFrame{enc: enc, h: h, w: w, config: from}
			f.as = e.actions(&s, nil)
			if len(f.as) == 0 {
				return fmt.Errorf("a state before legitimacy from which nothing can happen")
			}
			onStack[h] = true
			stack = append(stack, f)
			res.States++
			return nil
		}
		if err := push(append([]byte(nil), buf...), h, stabValue{}, ci); err != nil {
			res.Unbounded = fmt.Sprintf("from initial configuration %d: %v", ci, err)
			res.UnboundedFrom = ci
			break
		}
		for len(stack) > 0 && res.Unbounded == "" && res.Limit == "" {
			if looks++; looks%1024 == 1 && e.cfg.stopped() {
				res.Limit = StopLimit
				break
			}
			f := stack[len(stack)-1]
			if f.next == len(f.as) {
				memo[f.h] = f.best
				delete(onStack, f.h)
				stack = stack[:len(stack)-1]
				v := stabValue{f.best.rounds + f.w.rounds, f.best.events + f.w.events}
				if len(stack) > 0 {
					p := stack[len(stack)-1]
					p.best.rounds = max(p.best.rounds, v.rounds)
					p.best.events = max(p.best.events, v.events)
				} else {
					if int(v.rounds)+1 > res.Rounds {
						res.Rounds, res.RoundsFrom = int(v.rounds)+1, f.config
					}
					if int(v.events) > res.Events {
						res.Events, res.EventsFrom = int(v.events), f.config
					}
				}
				continue
			}
			a := f.as[f.next]
			f.next++
			if !e.readState(f.enc, &s) {
				return nil, errCorrupt
			}
			if err := e.decodeNodes(&s); err != nil {
				return nil, err
			}
			if err := e.apply(&s, a, &c, nil); err != nil {
				return nil, err
			}
			e.legitimate(&c)
			w := stabValue{events: c.rounds}
			if a.kind != Tick {
				old := false
				for k := range c.msgs {
					old = old || c.msgs[k].old
				}
				if !old {
					w.rounds = 1
					for k := range c.msgs {
						c.msgs[k].old = true
					}
					sortFlights(c.msgs, e.cfg.FIFO)
				}
			}
			if c.legit {
				// The round this step ends is the one it is in: it was
				// begun already (the rounds are counted as begun).
				f.best.events = max(f.best.events, w.events)
				continue
			}
			buf = appendState(buf[:0], &c)
			h := hash64(buf)
			if v, ok := memo[h]; ok {
				f.best.rounds = max(f.best.rounds, v.rounds+w.rounds)
				f.best.events = max(f.best.events, v.events+w.events)
				continue
			}
			if onStack[h] {
				res.Unbounded = fmt.Sprintf("from initial configuration %d, a run returns to a state before legitimacy (a cycle, %d steps deep): it may never stabilize", f.config, len(stack))
				res.UnboundedFrom = f.config
				break
			}
			if res.States >= e.cfg.MaxStates {
				res.Limit = fmt.Sprintf("the state limit (%d states) was reached", e.cfg.MaxStates)
				break
			}
			if res.States*stabStateBytes >= e.cfg.MaxBytes {
				res.Limit = fmt.Sprintf("the memory budget was reached (%d states before legitimacy, about %d B each)", res.States, stabStateBytes)
				break
			}
			if res.States&(1<<20-1) == 0 && e.cfg.StabProgress != nil {
				e.cfg.StabProgress(res.States)
			}
			if err := push(append([]byte(nil), buf...), h, w, f.config); err != nil {
				res.Unbounded = fmt.Sprintf("from initial configuration %d: %v", f.config, err)
				res.UnboundedFrom = f.config
			}
		}
		if res.Unbounded != "" || res.Limit != "" {
			break
		}
	}
	res.Elapsed = time.Since(t0)
	return res, nil
}
