package opencube

import (
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
	"github.com/ocbench/ocbench/sim"
)

// crashCase is one scripted failure of TestCrashScenarios, times in δ.
type crashCase struct {
	name   string
	n      int
	before []proto.NodeID // ask at 0, 0.1, 0.2, … (before the crash)
	// victim picks the node to crash at time 1: the token's holder
	// (holder), the first node to enter the critical section, crashed
	// inside it (inCS), or a fixed node.
	victim  string
	fixed   []proto.NodeID
	after   []proto.NodeID // ask from 3δ on, 0.5δ apart
	recover bool           // the victims recover at 40δ
	regen   int64          // tokens regenerated, exactly
}

// TestCrashScenarios runs the open-cube with the project's failure protocol
// on the simulator (delays uniform in [0, δ], FIFO for odd seeds) through
// scripted crashes, every check after every step (at most one node in the
// critical section, at most one live token, IdleRoots). It asserts how
// many tokens were regenerated — exactly one when the token dies with its
// holder, none when it survives the crash — that every request of a node
// that never crashed was served, and that after a repair pass (every live
// node asks once more, alone) no node asks or searches, the father relation
// is an open-cube (Shape) and exactly one token exists.
func TestCrashScenarios(t *testing.T) {
	cases := []crashCase{
		{name: "idle root holding the token crashes for good", n: 16, victim: "holder",
			after: []proto.NodeID{3, 9, 14, 5}, regen: 1},
		{name: "holder crashes in the CS, requests queued behind it", n: 16, victim: "inCS",
			before: []proto.NodeID{5, 12, 6, 10}, after: []proto.NodeID{1, 15}, regen: 1},
		{name: "holder crashes and recovers", n: 8, victim: "holder",
			before: []proto.NodeID{7}, after: []proto.NodeID{2, 4, 6}, recover: true, regen: 1},
		{name: "transit node crashes, the token survives", n: 16, victim: "fixed", fixed: []proto.NodeID{8},
			before: []proto.NodeID{3}, after: []proto.NodeID{9, 12, 15, 10}, regen: 0},
		{name: "transit node crashes and recovers", n: 16, victim: "fixed", fixed: []proto.NodeID{4},
			after: []proto.NodeID{5, 6, 7, 1}, recover: true, regen: 0},
		{name: "a leaf and the idle root crash together", n: 32, victim: "fixed", fixed: []proto.NodeID{0, 1},
			after: []proto.NodeID{17, 3, 30, 8}, regen: 1},
	}
	seeds := 300
	if testing.Short() {
		seeds = 40
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for seed := uint64(1); seed <= uint64(seeds); seed++ {
				if err := c.run(seed); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
			}
		})
	}
}

// run runs the case with one seed and returns the first thing wrong.
func (c crashCase) run(seed uint64) error {
	alg := Algorithm{}.WithFailures(proto.Failures{CSEstimate: 1})
	nodes := alg.NewNodes(c.n)
	var (
		s       *sim.Sim
		serial  uint32
		asked   = make([]int, c.n)
		served  = make([]int, c.n)
		crashed = make([]bool, c.n)
		victims []proto.NodeID
	)
	ask := func(id proto.NodeID) func() {
		return func() {
			if !s.Down(id) && !nodes[id].View().Asked {
				serial++
				asked[id]++
				s.Input(0, id, proto.EnterCS, serial)
			}
		}
	}
	crash := func(id proto.NodeID) {
		if !crashed[id] {
			crashed[id] = true
			victims = append(victims, id)
			s.Input(0, id, proto.Crash, 0)
		}
	}
	hooks := sim.Hooks{Enter: func(id proto.NodeID, _ uint32) {
		served[id]++
		if c.victim == "inCS" && len(victims) == 0 {
			crash(id)
			return
		}
		s.After(1, func() {
			if !s.Down(id) {
				s.Input(0, id, proto.ExitCS, 0)
			}
		})
	}}
	s = sim.New(sim.Config{Delta: 1, Seed: seed, FIFO: seed%2 == 1, Check: sim.CheckFull, Crashes: true,
		Types: alg.MessageTypes(), Invariants: alg.Invariants(true)}, nodes, hooks)
	for k, id := range c.before {
		s.After(0.1*float64(k), ask(id))
	}
	var pick func()
	pick = func() {
		switch c.victim {
		case "fixed":
			for _, id := range c.fixed {
				crash(id)
			}
		case "holder":
			for i, nd := range nodes {
				if nd.View().TokenHere {
					crash(proto.NodeID(i))
					return
				}
			}
			s.After(0.1, pick) // the token is in flight
		}
	}
	s.After(1, pick)
	for k, id := range c.after {
		s.After(3+0.5*float64(k), ask(id))
	}
	if c.recover {
		s.After(40, func() {
			for _, id := range victims {
				s.Input(0, id, proto.Recover, 0)
			}
		})
	}
	// The repair pass: every live node asks once more, alone.
	const repairAt, gap = 100.0, 40.0
	for i := range c.n {
		s.After(repairAt+gap*float64(i), ask(proto.NodeID(i)))
	}
	s.After(repairAt+gap*float64(c.n+1), s.Stop)
	if err := s.Run(); err != nil {
		return err
	}
	if len(victims) == 0 {
		return fmt.Errorf("no node crashed")
	}
	if got := s.Stats.Events[EvTokenRegenerated]; got != c.regen {
		return fmt.Errorf("%d tokens regenerated after crashing %v, want %d", got, victims, c.regen)
	}
	for i := range c.n {
		if !crashed[i] && served[i] != asked[i] {
			return fmt.Errorf("node %d never crashed and asked %d times, was served %d times", i, asked[i], served[i])
		}
	}
	tokens := 0
	for i, nd := range nodes {
		v := viewOf(nd)
		if v.Up && (v.Asked || v.Searching || v.InCS) {
			return fmt.Errorf("after the repair pass, node %d still asks, searches or is in the CS: %+v", i, v)
		}
		if v.Up && v.TokenHere {
			tokens++
		}
		if c.recover && !v.Up {
			return fmt.Errorf("node %d did not recover", i)
		}
	}
	s.ForEachInFlight(func(m *proto.Message) {
		if m.Type == scheme.Token && !s.Down(m.To) {
			tokens++
		}
	})
	if tokens != 1 {
		return fmt.Errorf("after the repair pass, %d tokens held by live nodes or in flight to them", tokens)
	}
	if err := Shape(s); err != nil {
		return fmt.Errorf("after the repair pass (crashed %v): %v", victims, err)
	}
	return nil
}

// TestHostCrash: the host crashes and restarts an open-cube node, through
// proto.Step and through the NodeArray alike. Node 6 of 8 asks, its son 7
// asks through it, 6 crashes (7's queued request counts as lost), drops
// what reaches it while down, ignores a second crash, and recovers into a
// new incarnation that searches its father (test messages of phase 1 that
// carry the incarnation) and arms its quiet window; both hosts give the
// same outputs.
func TestHostCrash(t *testing.T) {
	const id = 6
	script := []struct {
		in           proto.Input
		up           bool
		msgs, timers int // sent in this step (-1: some)
		lost         int32
	}{
		{proto.Input{Kind: proto.EnterCS, Tag: 1}, true, -1, -1, 0},
		{proto.Input{Kind: proto.Receive, Msg: proto.Message{Type: scheme.Request, From: 7, To: id, J: proto.RefTo(7), Src: proto.RefTo(7), Tag: 1}}, true, 0, 1, 0}, // queued, with a heartbeat timer
		{proto.Input{Kind: proto.Crash}, false, 0, 0, 1},
		{proto.Input{Kind: proto.EnterCS, Tag: 2}, false, 0, 0, 0},
		{proto.Input{Kind: proto.Receive, Msg: proto.Message{Type: scheme.Request, From: 7, To: id, J: proto.RefTo(7), Src: proto.RefTo(7), Tag: 2}}, false, 0, 0, 0},
		{proto.Input{Kind: proto.Fire, Timer: proto.Timer{Kind: timerSuspect, Seq: 1}}, false, 0, 0, 0},
		{proto.Input{Kind: proto.Crash}, false, 0, 0, 0},
		{proto.Input{Kind: proto.Recover}, true, -1, -1, 0},
	}
	algo := Algorithm{}.WithFailures(proto.Failures{CSEstimate: 1}).(Algorithm)
	hosts := []struct {
		name string
		step func(in proto.Input, out *proto.Output) (proto.View, *Node)
	}{
		{"Step", func() func(proto.Input, *proto.Output) (proto.View, *Node) {
			n := algo.NewNodes(8)[id].(*Node)
			return func(in proto.Input, out *proto.Output) (proto.View, *Node) {
				proto.Step(n, in, out)
				return n.View(), n
			}
		}()},
		{"NodeArray", func() func(proto.Input, *proto.Output) (proto.View, *Node) {
			nodes, arr := algo.NewArray(8)
			return func(in proto.Input, out *proto.Output) (proto.View, *Node) {
				return arr.StepView(id, &in, out), nodes[id].(*Node)
			}
		}()},
	}
	var outs [2][]proto.Output
	for h, host := range hosts {
		for k, s := range script {
			var out proto.Output
			v, n := host.step(s.in, &out)
			if v.Up != s.up {
				t.Errorf("%s, input %d (%v): up %v, want %v", host.name, k, s.in.Kind, v.Up, s.up)
			}
			if s.msgs >= 0 && len(out.Msgs) != s.msgs || s.msgs < 0 && len(out.Msgs) == 0 {
				t.Errorf("%s, input %d (%v): %d messages, want %d", host.name, k, s.in.Kind, len(out.Msgs), s.msgs)
			}
			if s.timers >= 0 && len(out.Timers) != s.timers || s.timers < 0 && len(out.Timers) == 0 {
				t.Errorf("%s, input %d (%v): %d timers, want %d", host.name, k, s.in.Kind, len(out.Timers), s.timers)
			}
			if out.Events[EvRequestLost] != s.lost {
				t.Errorf("%s, input %d (%v): %d requests lost, want %d", host.name, k, s.in.Kind, out.Events[EvRequestLost], s.lost)
			}
			outs[h] = append(outs[h], out)
			if k < len(script)-1 {
				continue
			}
			if n.inc != 1 || !n.searching || n.phase != 1 || n.quietSeq == 0 {
				t.Errorf("%s: recovered in incarnation %d, searching %v in phase %d, quiet timer %d; want 1, true, 1, armed",
					host.name, n.inc, n.searching, n.phase, n.quietSeq)
			}
			for _, m := range out.Msgs {
				if m.Type != Test || m.Phase != 1 || m.Stamp != 1 {
					t.Errorf("%s: recovery sent %+v, want tests of phase 1 from incarnation 1", host.name, m)
				}
			}
		}
	}
	if fmt.Sprint(outs[0]) != fmt.Sprint(outs[1]) {
		t.Errorf("the hosts' outputs differ:\n%v\n%v", outs[0], outs[1])
	}
}
