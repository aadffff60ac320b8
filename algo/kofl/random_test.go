package kofl

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ocbench/ocbench/proto"
)

var shapes = []struct{ ell, k int }{{1, 1}, {2, 2}, {3, 2}, {5, 3}, {4, 4}}

// run drives s with random requests and deliveries until limit requests
// were issued and served and every node is outside again, checking check
// after every step; it fails after maxSteps.
func (s *sys) run(rng *rand.Rand, limit, maxSteps int, check func() error) error {
	for s.issued < limit || s.served < s.issued || s.anyInCS() {
		if s.steps > maxSteps {
			return fmt.Errorf("no end after %d steps: %d of %d requests issued, %d served", s.steps, s.issued, limit, s.served)
		}
		if err := s.act(rng, limit); err != nil {
			return err
		}
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (s *sys) anyInCS() bool {
	for _, nd := range s.nodes {
		if nd.View().InCS {
			return true
		}
	}
	return false
}

// TestRandomFromLegitimate: from the initial state, random requests (each
// for 1..K units) and random delivery order across links (FIFO on each
// link, as the paper assumes), for n = 2 … 16 and several (ℓ, K). After
// every step the configuration is legitimate and safe (closure); every
// request is served; no token is ever created or disabled after the first
// traversal.
func TestRandomFromLegitimate(t *testing.T) {
	for _, n := range []int{2, 4, 8, 16} {
		for _, sh := range shapes {
			for seed := range uint64(6) {
				c := Config{Ell: sh.ell, K: sh.k, Seed: seed}
				s := newSys(c, n)
				rng := rand.New(rand.NewPCG(seed, uint64(n)))
				check := func() error {
					if err := Legitimate(s); err != nil {
						return err
					}
					return Safety(s)
				}
				err := s.start()
				if err == nil {
					err = check()
				}
				if err == nil {
					err = s.run(rng, 25*n/2+20, 400000, check)
				}
				if err != nil {
					t.Fatalf("n=%d ℓ=%d K=%d seed=%d, step %d: %v", n, sh.ell, sh.k, seed, s.steps, err)
				}
				if s.events[EvCreated] != sh.ell || s.events[EvDisable] != 0 || s.events[EvTimeout] != 0 {
					t.Fatalf("n=%d ℓ=%d K=%d seed=%d: %d tokens created, %d disables, %d timeouts", n, sh.ell, sh.k, seed,
						s.events[EvCreated], s.events[EvDisable], s.events[EvTimeout])
				}
			}
		}
	}
}

// TestNeedsFIFO: the paper's links are FIFO and Root's count needs it.
// Delivering any message of a link (not the oldest) from the initial state
// breaks the count (an <Enabled_Token> or a token overtaken by the
// CToken is counted in the wrong traversal) and then safety: more than ℓ
// tokens exist.
func TestNeedsFIFO(t *testing.T) {
	broken := 0
	for seed := range uint64(5) {
		s := newSys(Config{Ell: 3, K: 2, Seed: seed}, 4)
		s.fifo = false
		rng := rand.New(rand.NewPCG(seed, 4))
		if err := s.start(); err != nil {
			t.Fatal(err)
		}
		if err := s.run(rng, 40, 20000, func() error { return Safety(s) }); err != nil {
			t.Logf("seed %d, non-FIFO: %v", seed, err)
			broken++
		}
	}
	if broken == 0 {
		t.Fatal("every non-FIFO run stayed safe: FIFO links would not be needed")
	}
	if !(Algorithm{}).NeedsFIFO() {
		t.Fatal("NeedsFIFO is false")
	}
}

// TestPaperLockLivelocks: with LOCK read literally from the extraction
// (0 < T_h < NEED), a requester that got a token after its tokens were
// collected has T_h = NEED and T_d > 0: it is not LOCKed, its enabled
// token is never collected, and a privileged requester upstream that needs
// that token absorbs every allocation without ever having enough. The run
// (n = 8, ℓ = 2, K = 2, seed 1) stops serving requests; with LOCK on the
// enabled tokens it ends.
func TestPaperLockLivelocks(t *testing.T) {
	for _, paper := range []bool{true, false} {
		s := newSys(Config{Ell: 2, K: 2, Seed: 1, PaperLock: paper}, 8)
		rng := rand.New(rand.NewPCG(1, 8))
		if err := s.start(); err != nil {
			t.Fatal(err)
		}
		err := s.run(rng, 80, 100000, func() error { return Legitimate(s) })
		if paper && err == nil {
			t.Fatal("with the paper's LOCK the run ended")
		}
		if !paper && err != nil {
			t.Fatal(err)
		}
		t.Logf("paper's LOCK %v: %v", paper, err)
	}
}

// TestLargeRings: one run from the initial state at n = 64 and 256, the
// predicate and safety checked after every step.
func TestLargeRings(t *testing.T) {
	for _, n := range []int{64, 256} {
		s := newSys(Config{Ell: 5, K: 3, Seed: 3}, n)
		rng := rand.New(rand.NewPCG(3, uint64(n)))
		check := func() error {
			if err := Legitimate(s); err != nil {
				return err
			}
			return Safety(s)
		}
		if err := s.start(); err != nil {
			t.Fatal(err)
		}
		if err := s.run(rng, 40, 2000000, check); err != nil {
			t.Fatalf("n=%d, step %d: %v", n, s.steps, err)
		}
	}
}

// TestPredicateCatches: faults on a legitimate configuration that the
// legitimacy predicate (and where it applies, safety) must reject.
func TestPredicateCatches(t *testing.T) {
	for _, c := range []struct {
		name   string
		fault  func(s *sys)
		unsafe bool
	}{
		{"a token more", func(s *sys) { s.links[3] = append(s.links[3], s.nodes[3].junkOf(Token)) }, true},
		{"a token less", func(s *sys) { s.nodes[0].st.Cf++; dropFirst(s, Token) }, false},
		{"two CTokens", func(s *sys) { s.links[2] = append(s.links[2], s.nodes[2].junkOf(CToken)) }, false},
		{"an Enabled_Token behind the CToken", func(s *sys) { s.links[0] = append(s.links[0], s.nodes[0].junkOf(EnabledToken)) }, false},
		{"a Disable", func(s *sys) { s.links[2] = append([]proto.Message{s.nodes[2].junkOf(Disable)}, s.links[2]...) }, false},
		{"C_f one too many", func(s *sys) { s.nodes[0].st.Cf++ }, false},
		{"a visited node with an old MySeq", func(s *sys) { s.nodes[1].st.MySeq-- }, false},
		{"a node in its CS without its tokens", func(s *sys) {
			s.nodes[2].st = Local{Mode: In, Need: 2, MySeq: s.nodes[2].st.MySeq}
		}, true},
	} {
		// n = 4 (ring 0 → 1 → 3 → 2), ℓ = 3: Root's start, then the CToken
		// moves to the link out of node 1.
		s := newSys(Config{Ell: 3, K: 2}, 4)
		if err := s.start(); err != nil {
			t.Fatal(err)
		}
		for len(s.links[0]) > 0 {
			if err := s.deliver(0, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := Legitimate(s); err != nil {
			t.Fatalf("%s: before the fault: %v", c.name, err)
		}
		c.fault(s)
		if err := Legitimate(s); err == nil {
			t.Errorf("%s: still legitimate", c.name)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
		if err := Safety(s); (err != nil) != c.unsafe {
			t.Errorf("%s: safety says %v", c.name, err)
		}
	}
}

func (nd *Node) junkOf(ty proto.MsgType) proto.Message {
	m := proto.Message{Type: ty, Cause: proto.Normal, From: nd.id, To: nd.next}
	if ty == CToken {
		m.Stamp = nd.st.MySeq
	}
	return m
}

func dropFirst(s *sys, ty proto.MsgType) {
	for i, l := range s.links {
		for k, m := range l {
			if m.Type == ty {
				s.links[i] = append(l[:k:k], l[k+1:]...)
				return
			}
		}
	}
}

// TestPrematureTimeouts: Root's timeout fires at random moments, while
// the CToken is still out (a timeout shorter than a traversal). Each
// firing makes a second CToken with Root's Seq, behind the first; it never
// makes a node report twice and dies at Root. So the count stays exact (no
// token created after the first traversal, none disabled), every step is
// safe, every request is served, and once the extra CTokens are gone the
// configuration is legitimate again.
func TestPrematureTimeouts(t *testing.T) {
	for _, n := range []int{2, 4, 8} {
		for seed := range uint64(6) {
			s := newSys(Config{Ell: 3, K: 2, Seed: seed}, n)
			rng := rand.New(rand.NewPCG(seed, uint64(n)))
			if err := s.start(); err != nil {
				t.Fatal(err)
			}
			fired := 0
			for s.issued < 10*n || s.served < s.issued || s.anyInCS() {
				var err error
				if rng.IntN(30) == 0 {
					s.armed = true // the live timer fires early
					err = s.fire()
					fired++
				} else {
					err = s.act(rng, 10*n)
				}
				if err == nil {
					err = Safety(s)
				}
				if err == nil && s.ctokens() == 1 {
					err = Legitimate(s)
				}
				if err == nil && s.steps > 200000 {
					err = fmt.Errorf("no end")
				}
				if err != nil {
					t.Fatalf("n=%d seed=%d step %d (%d early timeouts): %v", n, seed, s.steps, fired, err)
				}
			}
			if s.events[EvCreated] != 3 || s.events[EvDisable] != 0 || fired == 0 {
				t.Fatalf("n=%d seed=%d: %d created, %d disables, %d early timeouts", n, seed, s.events[EvCreated], s.events[EvDisable], fired)
			}
		}
	}
}
