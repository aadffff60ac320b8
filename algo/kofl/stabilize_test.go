package kofl

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// point is where a predicate began to hold for good: Root's STARTs so far
// (CToken traversals ended), CToken receipts (hops, of all CTokens), steps,
// and why it did not hold just before.
type point struct {
	traversals, hops, steps int
	why                     string
}

// watch follows one predicate along a run: the first step from which it
// holds, and a closure check (once it holds it must keep holding).
type watch struct {
	name  string
	pred  func(*sys) error
	holds bool
	at    point
	why   string
}

func (w *watch) see(s *sys) error {
	err := w.pred(s)
	switch {
	case err == nil && !w.holds:
		w.holds = true
		w.at = point{traversals: s.events[EvTraversal], hops: s.hops, steps: s.steps, why: w.why}
	case err != nil && w.holds:
		return fmt.Errorf("%s from step %d, not at step %d: %w", w.name, w.at.steps, s.steps, err)
	case err != nil:
		w.why = err.Error()
	}
	return nil
}

// stabResult is one run's stabilization: when the token count converged
// and when the configuration became legitimate.
type stabResult struct {
	conv, legit        point
	disables, timeouts int
}

// stabilize runs one ring from an arbitrary configuration (seed, links
// filled with 0..linkCap junk messages each) with random requests, until
// it has been legitimate for hold traversals and served every request it
// issued. Converged and Legitimate must each hold at every step after they
// first hold (closure), and safety once legitimate.
func stabilize(c Config, n int, seed uint64, linkCap, requests, hold, maxTraversals int, fastExit bool) (stabResult, error) {
	s := newSys(c, n)
	s.fastExit = fastExit
	rng := rand.New(rand.NewPCG(seed, 0x6b6f666c))
	for _, m := range Arbitrary(s.nodes, rng, linkCap) {
		s.links[m.From] = append(s.links[m.From], m)
	}
	if err := s.start(); err != nil {
		return stabResult{}, err
	}
	conv := &watch{name: "converged", pred: func(s *sys) error { return Converged(s) }}
	legit := &watch{name: "legitimate", pred: func(s *sys) error { return Legitimate(s) }}
	if err := conv.see(s); err != nil {
		return stabResult{}, err
	}
	if err := legit.see(s); err != nil {
		return stabResult{}, err
	}
	for {
		res := stabResult{conv: conv.at, legit: legit.at, disables: s.events[EvDisable], timeouts: s.events[EvTimeout]}
		if err := s.act(rng, requests); err != nil {
			return res, err
		}
		if err := conv.see(s); err != nil {
			return res, err
		}
		if err := legit.see(s); err != nil {
			return res, err
		}
		if legit.holds {
			if err := Safety(s); err != nil {
				return res, fmt.Errorf("step %d, after stabilization: %w", s.steps, err)
			}
			if s.events[EvTraversal]-legit.at.traversals >= hold && s.issued == requests && s.served == s.issued {
				return res, nil
			}
		}
		if s.events[EvTraversal] > maxTraversals {
			return res, fmt.Errorf("not legitimate after %d traversals (%d steps): %v", maxTraversals, s.steps, legit.why)
		}
	}
}

var seedsFlag = flag.Int("kofl.seeds", 12, "seeds per case of TestStabilization")

type stabCase struct {
	n, ell, k int
	maxSeq    uint64
}

func stabCases() []stabCase {
	var cs []stabCase
	for _, n := range []int{2, 4, 8, 16} {
		for _, sh := range shapes {
			cs = append(cs, stabCase{n, sh.ell, sh.k, 0})
		}
		// Few sequence numbers: junk CTokens often carry Root's next one.
		cs = append(cs, stabCase{n, 5, 3, uint64(4*n + 3)})
	}
	return cs
}

// TestStabilization: from arbitrary configurations (every variable drawn
// from its domain, up to 3 junk messages on each link), many seeds, the
// ring converges and becomes legitimate, stays so (and safe) for 10 more
// traversals, and serves every request issued. It logs the distributions
// of both times in CToken traversals and in CToken hops per n, beside the
// paper's bound of 5 traversals (5n). Run with -v to see them.
func TestStabilization(t *testing.T) {
	seeds := uint64(*seedsFlag)
	if testing.Short() {
		seeds = 5
	}
	for _, fast := range []bool{false, true} {
		stabilizeCases(t, seeds, fast)
	}
}

func stabilizeCases(t *testing.T, seeds uint64, fast bool) {
	cs := "critical sections of random length"
	if fast {
		cs = "critical sections left at the next move"
	}
	t.Logf("%s:", cs)
	for _, c := range stabCases() {
		var conv, legit, hopsN []float64
		worstConv, worstLegit := uint64(0), uint64(0)
		unbacked := 0 // runs legitimate after 5 traversals, waiting for an unbacked critical section
		for seed := range seeds {
			cfg := Config{Ell: c.ell, K: c.k, MaxSeq: c.maxSeq, Seed: seed}
			res, err := stabilize(cfg, c.n, seed, 3, 4*c.n, 10, 300, fast)
			if err != nil {
				t.Fatalf("fast exit %v, n=%d ℓ=%d K=%d MaxSeq=%d seed=%d: %v", fast, c.n, c.ell, c.k, c.maxSeq, seed, err)
			}
			if len(conv) == 0 || float64(res.conv.traversals) > slices.Max(conv) {
				worstConv = seed
			}
			if len(legit) == 0 || float64(res.legit.traversals) > slices.Max(legit) {
				worstLegit = seed
			}
			if res.legit.traversals > 5 && strings.Contains(res.legit.why, "enabled tokens") && strings.Contains(res.legit.why, "uses") {
				unbacked++
			}
			conv = append(conv, float64(res.conv.traversals))
			legit = append(legit, float64(res.legit.traversals))
			hopsN = append(hopsN, float64(res.conv.hops)/float64(c.n))
		}
		t.Logf("n=%2d ℓ=%d K=%d MaxSeq=%-5d converged: traversals mean %.2f max %.0f (seed %d), %d above 5, hops/n mean %.2f max %.2f; legitimate: mean %.2f p99 %.0f max %.0f (seed %d), %d above 5 (%d waiting for a critical section on disabled units)",
			c.n, c.ell, c.k, c.maxSeq, mean(conv), slices.Max(conv), worstConv, above(conv, 5), mean(hopsN), slices.Max(hopsN),
			mean(legit), quantile(legit, 0.99), slices.Max(legit), worstLegit, above(legit, 5), unbacked)
	}
}

func above(x []float64, b float64) int {
	k := 0
	for _, v := range x {
		if v > b {
			k++
		}
	}
	return k
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func quantile(x []float64, q float64) float64 {
	y := slices.Clone(x)
	sort.Float64s(y)
	return y[int(q*float64(len(y)-1))]
}

// TestWorstSeedReplay keeps the worst run of the measurement (n = 16, ℓ = K
// = 1, seed 111: legitimate only after 15 traversals): the count converges
// by the second traversal, and what holds legitimacy back until then is a
// node in its critical section on a unit whose token no longer exists.
func TestWorstSeedReplay(t *testing.T) {
	res, err := stabilize(Config{Ell: 1, K: 1, Seed: 111}, 16, 111, 3, 64, 10, 300, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.conv.traversals > 2 || res.legit.traversals != 15 || !strings.Contains(res.legit.why, "uses 1 units and holds 0 enabled tokens") {
		t.Fatalf("converged at %d, legitimate at %d traversals, before that: %s", res.conv.traversals, res.legit.traversals, res.legit.why)
	}
	t.Logf("converged at traversal %d, legitimate at %d; before that: %s", res.conv.traversals, res.legit.traversals, res.legit.why)
}
