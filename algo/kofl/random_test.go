package kofl

import (
	"fmt"
	"math/rand/v2"
	"testing"
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
