package naimitrehelft

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/sim"
)

// TestRandomOrder: the failure-free nodes, random requests, messages
// delivered in any order; saturated runs too.
func TestRandomOrder(t *testing.T) {
	for _, c := range []struct {
		n, seeds, requests int
		saturate           bool
	}{{2, 200, 60, false}, {4, 200, 100, false}, {8, 100, 150, false}, {16, 60, 200, false}, {256, 1, 200, false},
		{8, 50, 200, true}, {64, 3, 400, true}} {
		t.Run(fmt.Sprintf("n=%d,saturate=%v", c.n, c.saturate), func(t *testing.T) {
			for seed := range c.seeds {
				reorder.Run(t, reorder.Config{Alg: Algorithm{}, N: c.n, Seed: uint64(seed), Requests: c.requests,
					Saturate: c.saturate, Checks: []func(proto.System) error{reorder.Serving(reorder.Carried(Token))}})
			}
		})
	}
}

// crashRun is a randomized run of the nodes with the failure protocol on
// the simulator (δ = 1, delays uniform in [0, δ], non-FIFO), with the
// simulator's checks (at most one node in the critical section, at most
// one live token) and the algorithm's invariants after every step.
type crashRun struct {
	n        int
	seed     uint64
	until    float64 // requests are issued until then
	think    float64 // mean think time, in δ
	crashes  int
	every    float64 // mean gap between crashes
	down     float64 // mean downtime; 0: no recovery
	overlaps bool    // a crash may come while another node is down
	holder   bool    // every other crash hits the token's holder, if there is one
}

type crashResult struct {
	issued, served, abandoned, crashes, regenerated int
}

func (c crashRun) run(t *testing.T) crashResult {
	t.Helper()
	alg := Algorithm{FT: &Config{CSEstimate: 1}}
	nodes := alg.NewNodes(c.n)
	rng := rand.New(rand.NewPCG(c.seed, 99))
	var s *sim.Sim
	var res crashResult
	pending := make([]uint32, c.n) // the serial of node i's request not yet served (0: none)
	serial := uint32(0)
	downs := 0
	var ask func(i proto.NodeID)
	think := func(i proto.NodeID) {
		s.After(rng.ExpFloat64()*c.think, func() { ask(i) })
	}
	ask = func(i proto.NodeID) {
		if s.Down(i) || pending[i] != 0 || s.Now() > c.until {
			return
		}
		serial++
		pending[i] = serial
		res.issued++
		s.Input(0, i, proto.EnterCS, serial)
	}
	s = sim.New(sim.Config{Delta: 1, Seed: c.seed, Check: sim.CheckFull, Family: proto.TokenBased,
		Types: messageTypes, Invariants: alg.Invariants(true), Crashes: true}, nodes, sim.Hooks{
		Enter: func(id proto.NodeID, tag uint32) {
			if tag != pending[id] {
				t.Errorf("seed %d: node %d entered with serial %d, its request is %d", c.seed, id, tag, pending[id])
			}
			pending[id] = 0
			res.served++
			s.Input(1, id, proto.ExitCS, 0)
			s.After(1, func() { think(id) })
		},
	})
	for i := range c.n {
		think(proto.NodeID(i))
	}
	at := 0.0
	for range c.crashes {
		at += rng.ExpFloat64() * c.every
		s.After(at, func() {
			v := proto.NodeID(rng.IntN(c.n))
			if c.holder && res.crashes%2 == 0 {
				for i, nd := range nodes {
					if nd.View().TokenHere {
						v = proto.NodeID(i)
					}
				}
			}
			if s.Down(v) || (downs > 0 && !c.overlaps) || c.n-downs <= 2 {
				return
			}
			downs++
			res.crashes++
			s.Input(0, v, proto.Crash, 0)
			if pending[v] != 0 {
				pending[v] = 0
				res.abandoned++
			}
			if c.down > 0 {
				s.After(rng.ExpFloat64()*c.down, func() {
					downs--
					s.Input(0, v, proto.Recover, 0)
					s.After(0, func() { think(v) })
				})
			}
		})
	}
	s.After(c.until+100*float64(c.n)*(c.think+3), s.Stop) // a livelock ends here, with requests unserved
	if err := s.Run(); err != nil {
		t.Fatalf("%+v: %v", c, err)
	}
	res.regenerated = int(s.Stats.Events[EvRegenerated])
	for i, p := range pending {
		if p != 0 && !s.Down(proto.NodeID(i)) {
			t.Fatalf("%+v: node %d's request %d (up) was never served; %+v", c, i, p, res)
		}
	}
	return res
}

// TestRandomCrashes: random requests and crashes on the simulator, inside
// the fault model (no recovery, several nodes down at once) and outside it
// (recoveries, one at a time or overlapping): no safety violation, and
// every request of a node that is up at the end is served.
func TestRandomCrashes(t *testing.T) {
	for _, c := range []struct {
		name  string
		n     int
		seeds int
		run   crashRun
	}{
		{"no recovery", 8, 40, crashRun{think: 20, until: 3000, crashes: 5, every: 500, overlaps: true, holder: true}},
		{"no recovery, n=32", 32, 6, crashRun{think: 40, until: 3000, crashes: 28, every: 100, overlaps: true, holder: true}},
		{"recovery, one at a time", 8, 40, crashRun{think: 20, until: 3000, crashes: 20, every: 150, down: 20, holder: true}},
		{"recovery, overlaps", 16, 20, crashRun{think: 30, until: 3000, crashes: 40, every: 60, down: 20, overlaps: true}},
		{"recovery, heavy load", 4, 60, crashRun{think: 2, until: 2000, crashes: 20, every: 100, down: 10, overlaps: true, holder: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sum := crashResult{}
			for seed := range c.seeds {
				r := c.run
				r.n, r.seed = c.n, uint64(seed)+1
				res := r.run(t)
				sum.issued += res.issued
				sum.served += res.served
				sum.abandoned += res.abandoned
				sum.crashes += res.crashes
				sum.regenerated += res.regenerated
			}
			if sum.regenerated == 0 || sum.crashes == 0 || sum.served < sum.issued/2 {
				t.Errorf("the runs tested little: %+v", sum)
			}
			t.Logf("%+v", sum)
		})
	}
}
