package bench

import (
	"flag"
	"fmt"
	"strings"
	"testing"
)

var shapeSeeds = flag.Int("shape-seeds", 0, "seeds per configuration in TestShapeSweep (0: skip it)")

// TestShapeReplays replays crash-sweep runs that ended, after the repair
// pass, with a father relation that was not an open-cube (docs/failures.md):
//
//   - "two sons of the same power" when a suspicion or an anomaly started
//     search_father at phase power+1; searches start at phase 1 now (the
//     first seeds of each configuration below);
//   - the runs that `make shape-seeds` still counted after that (285 seeds
//     per configuration: 2, 5, 2, 0, 5, 7 and 3 broken): the concurrent-search
//     optimisation's two sons of the same power (N=8 seed 99), and the other
//     second sons and orphans that fathers now check (the later seeds).
//
// With Repair, a broken shape at the end is a violation.
func TestShapeReplays(t *testing.T) {
	cases := []struct {
		config int // index in crashConfigs
		seeds  []uint64
	}{
		{0, []uint64{38, 170, 176, 196, 260, 266, 99, 240}},     // N=8, random
		{1, []uint64{26, 27, 42, 31, 35, 117, 197, 261}},        // N=16, random
		{2, []uint64{36, 83}},                                   // N=16, overlapping failures
		{4, []uint64{1, 4, 6, 21, 46, 119, 206, 278}},           // N=16, crashes of the token holder
		{5, []uint64{1, 9, 10, 23, 39, 91, 112, 163, 243, 244}}, // N=16, crashes of the root
		{6, []uint64{1, 10, 16, 54, 211, 233}},                  // N=16, crashes on a request path
	}
	for _, c := range cases {
		cfg := crashConfigs[c.config]
		for _, seed := range c.seeds {
			t.Run(fmt.Sprintf("N=%d/%s/seed=%d", cfg.nodes, cfg.target, seed), func(t *testing.T) {
				spec := cfg.spec(seed)
				spec.Repair = true
				r, err := Run(spec)
				if err != nil {
					t.Fatal(err)
				}
				if r.SafetyViolations+r.LivenessViolations > 0 || !r.OpenCubeAtEnd {
					t.Fatalf("open-cube at end: %v; %s", r.OpenCubeAtEnd, r.Violation)
				}
			})
		}
	}
}

// TestShapeSweep counts the runs of the crash sweep that end with a broken
// open-cube shape after the repair pass (go test ./bench -run TestShapeSweep
// -v -shape-seeds 285, or make shape-seeds), per configuration, with the
// first seeds of each; TestCrashSweep requires none. It fails on any
// violation.
func TestShapeSweep(t *testing.T) {
	if *shapeSeeds == 0 {
		t.Skip("-shape-seeds 0")
	}
	for _, c := range crashConfigs {
		broken := 0
		var first []uint64
		for seed := uint64(1); seed <= uint64(*shapeSeeds); seed++ {
			spec := c.spec(seed)
			spec.Repair = true
			r, err := Run(spec)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case r.SafetyViolations+r.LivenessViolations == 0:
			case strings.Contains(r.Violation, "open-cube"):
				broken++
				if len(first) < 8 {
					first = append(first, seed)
				}
			default:
				t.Errorf("N=%d %s seed %d: %s", c.nodes, c.target, seed, r.Violation)
			}
		}
		if broken > 0 {
			t.Errorf("N=%d %s: %d broken shapes (seeds %v)", c.nodes, c.target, broken, first)
		}
		t.Logf("N=%d think=%g crashes=%d every=%g down=%g perm=%g %s: %d of %d runs end with a broken shape (seeds %v)",
			c.nodes, c.think, c.crashes, c.every, c.down, c.perm, c.target, broken, *shapeSeeds, first)
	}
}
