package sim_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/sim"
)

// unitNode is a k-exclusion node for the simulator's tests: EnterCS
// enters at once using Tag units (View.Units), ExitCS leaves; Start (a
// proto.Starter) sends one message of type 1 to node 1; a received message
// is logged.
type unitNode struct {
	id      proto.NodeID
	in      bool
	k       int
	got     []proto.Message
	started int
}

func (u *unitNode) Step(in proto.Input, out *proto.Output) {
	switch in.Kind {
	case proto.EnterCS:
		u.in, u.k = true, int(in.Tag)
		out.Enter = true
	case proto.ExitCS:
		u.in = false
	case proto.Receive:
		u.got = append(u.got, in.Msg)
	}
}

func (u *unitNode) Start(out *proto.Output) {
	u.started++
	out.Msgs = append(out.Msgs, proto.Message{Type: 1, From: u.id, To: 1, Stamp: 100 + uint64(u.id)})
}

func (u *unitNode) View() proto.View {
	v := proto.View{Bits: proto.Bits{Up: true, InCS: u.in}}
	if u.in {
		v.Units = u.k
	}
	return v
}

func (u *unitNode) Waiting(func(proto.NodeID)) {}

func unitNodes(n int) ([]*unitNode, []proto.Node) {
	us := make([]*unitNode, n)
	ps := make([]proto.Node, n)
	for i := range us {
		us[i] = &unitNode{id: proto.NodeID(i)}
		ps[i] = us[i]
	}
	return us, ps
}

var unitTypes = []proto.MessageType{{Name: "zero"}, {Name: "one"}}

// TestKExclusionUnits: with the KExclusion family, several nodes may be in
// the critical section together; the units they use must add up to ℓ at
// most. Before the legitimacy predicate holds nothing is checked; once it
// holds it must keep holding (closure).
func TestKExclusionUnits(t *testing.T) {
	type in struct {
		t    float64
		node proto.NodeID
		kind proto.InputKind
		k    uint32
	}
	cases := []struct {
		name   string
		inputs []in
		legit  float64 // the predicate holds from this time on (-1: never; 0: always)
		broken float64 // and fails again from this time on (0: never)
		want   string
	}{
		{name: "3 nodes, 1+2 of 3 units", inputs: []in{{1, 0, proto.EnterCS, 1}, {2, 1, proto.EnterCS, 2}}},
		{name: "2+2 of 3 units", inputs: []in{{1, 0, proto.EnterCS, 2}, {2, 1, proto.EnterCS, 2}},
			want: "4 units in use by the nodes in the critical section, ℓ = 3 (after node 1's step)"},
		{name: "units freed by an exit", inputs: []in{{1, 0, proto.EnterCS, 2}, {2, 0, proto.ExitCS, 0}, {3, 1, proto.EnterCS, 3}}},
		{name: "over ℓ before legitimacy is not checked", legit: -1,
			inputs: []in{{1, 0, proto.EnterCS, 3}, {2, 1, proto.EnterCS, 3}}},
		{name: "over ℓ after legitimacy", legit: 1.5,
			inputs: []in{{1, 0, proto.EnterCS, 3}, {2, 1, proto.EnterCS, 3}},
			want:   "6 units in use"},
		{name: "closure", legit: 0.5, broken: 2.5,
			inputs: []in{{1, 0, proto.EnterCS, 1}, {2, 0, proto.ExitCS, 0}, {3, 1, proto.EnterCS, 1}},
			want:   "closure: legitimate since step"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ps := unitNodes(3)
			cfg := sim.Config{Types: unitTypes, Delta: 1, Family: proto.KExclusion, Units: 3}
			var s *sim.Sim
			if c.legit != 0 {
				cfg.Legitimate = func(proto.System) error {
					if c.legit < 0 || s.Now() < c.legit || (c.broken > 0 && s.Now() >= c.broken) {
						return errors.New("not yet")
					}
					return nil
				}
			}
			s = sim.New(cfg, ps, sim.Hooks{})
			for _, x := range c.inputs {
				s.Input(x.t, x.node, x.kind, x.k)
			}
			err := s.Run()
			var v *sim.Violation
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("want no violation, got %v", err)
			case c.want != "" && (!errors.As(err, &v) || !strings.HasPrefix(v.What, c.want)):
				t.Fatalf("got %v, want a violation starting %q", err, c.want)
			}
		})
	}
}

// TestStartAndFaults: Start runs once per node at time 0; Inject, Destroy
// and InFlightAt act on the links in delivery order (FIFO), injected
// messages are not counted as sent; Fault restarts the stabilization
// clock, and Stab records the counters at the fault and at legitimacy.
func TestStartAndFaults(t *testing.T) {
	us, ps := unitNodes(4)
	legit := false
	s := sim.New(sim.Config{Types: unitTypes, Delta: 1, FIFO: true, Family: proto.KExclusion, Units: 1, OrderedInFlight: true,
		Legitimate: func(proto.System) error {
			if !legit {
				return errors.New("not yet")
			}
			return nil
		}}, ps, sim.Hooks{})
	junk := proto.Message{Type: 0, From: 2, To: 1, Stamp: 7}
	s.Inject(junk) // before the start: ahead of node 2's start message on link 2→1
	s.After(0, func() {
		var gens []uint64
		s.ForEachInFlight(func(m *proto.Message) {
			if m.From == 2 {
				gens = append(gens, m.Stamp)
			}
		})
		if !slices.Equal(gens, []uint64{7, 102}) {
			t.Errorf("link 2→1 in flight: %v, want [7 102] (FIFO order)", gens)
		}
		if s.InFlight() != 5 {
			t.Errorf("%d in flight, want 5", s.InFlight())
		}
		// Destroy node 3's start message.
		for k := range s.InFlight() {
			if s.InFlightAt(k).From == 3 {
				s.Destroy(k)
				break
			}
		}
		s.Fault()
		legit = true
	})
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	var from []proto.NodeID
	for _, m := range us[1].got {
		from = append(from, m.From)
	}
	slices.Sort(from)
	if !slices.Equal(from, []proto.NodeID{0, 1, 2, 2}) {
		t.Errorf("node 1 received from %v, want [0 1 2 2] (node 3's start destroyed)", from)
	}
	for _, u := range us {
		if u.started != 1 {
			t.Errorf("node %d started %d times", u.id, u.started)
		}
	}
	st := s.Stab()
	switch {
	case s.Stats.Injected != 1 || s.Stats.Destroyed != 1 || s.Stats.MessagesTotal() != 4:
		t.Errorf("injected %d, destroyed %d, sent %d; want 1, 1, 4", s.Stats.Injected, s.Stats.Destroyed, s.Stats.MessagesTotal())
	case !st.Legit || st.Faults != 1 || st.SentAtFault[1] != 4 || st.AtStep <= st.LastFaultStep:
		t.Errorf("stabilization %+v", st)
	}
}

// TestClosureStride: once legitimate, the predicate is evaluated after
// every step in a small system (fewer than ClosureSmall nodes and messages
// in flight), and in a large one only when the steps since its last
// evaluation reach N + messages in flight; a lasting lapse is still
// reported.
func TestClosureStride(t *testing.T) {
	for _, c := range []struct {
		n           int
		breakAt     float64 // 0: never
		everyStep   bool
		wantClosure bool
	}{
		{n: 16, everyStep: true},
		{n: 16, breakAt: 5, everyStep: true, wantClosure: true},
		{n: 1024},
		{n: 1024, breakAt: 5, wantClosure: true},
	} {
		_, ps := unitNodes(c.n)
		calls := 0
		var s *sim.Sim
		s = sim.New(sim.Config{Types: unitTypes, Delta: 1, Family: proto.KExclusion, Units: 1, FIFO: true, OrderedInFlight: true,
			Legitimate: func(proto.System) error {
				calls++
				if c.breakAt > 0 && s.Now() >= c.breakAt {
					return errors.New("broken")
				}
				return nil
			}}, ps, sim.Hooks{})
		for k := range 20 {
			s.Input(1+float64(k)/2, 0, []proto.InputKind{proto.EnterCS, proto.ExitCS}[k%2], 1)
		}
		err := s.Run()
		steps := int(s.Stats.Steps)
		var v *sim.Violation
		switch {
		case c.wantClosure != (errors.As(err, &v) && strings.HasPrefix(v.What, "closure:")):
			t.Errorf("N=%d: got %v, want a closure violation: %v", c.n, err, c.wantClosure)
		case c.everyStep && calls != steps:
			t.Errorf("N=%d: %d evaluations after %d steps, want one per step", c.n, calls, steps)
		case !c.everyStep && calls > 2+steps/c.n:
			t.Errorf("N=%d: %d evaluations after %d steps, want at most one per N steps", c.n, calls, steps)
		}
	}
}
