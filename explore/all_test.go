package explore

import (
	"testing"
	"time"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/proto"
)

// requestersN4 bounds the requesters of the algorithms whose whole state
// space at N = 4 with one request per node is too large for the test (for
// these: more than 1.5 million states; docs/explore.md): nodes 0 to K−1
// request, every interleaving of their requests explored. The others run
// with every node requesting.
var requestersN4 = map[string]int{
	"lamport": 2, "ricart-agrawala": 3, "carvalho-roucairol": 3, "maekawa": 3, "agrawal-el-abbadi": 3,
	"mishra-srimani": 3, "raymond-kex": 3, "srimani-reddy": 3, "maekawa-grid": 3, "sanders": 3, "sanders-broadcast": 3,
	"mizuno-neilsen-rao-tree": 3, "mizuno-neilsen-rao-plane": 3, "helary-plouzeau-raynal-ring": 3, "raynal": 2,
}

// timedN4 are the algorithms without a failure protocol that set timers
// (raynal waits δ between its rounds): explored in discrete time, δ = 2
// ticks.
var timedN4 = map[string]bool{"raynal": true}

// TestExploreAllN4 explores every registered algorithm at N = 4,
// failure-free, and requires each to be clean and complete (kofl, whose
// space is not finite as the explorer sees it, is explored to a bound
// and must show no violation).
func TestExploreAllN4(t *testing.T) {
	if testing.Short() {
		t.Skip("explores every algorithm at N = 4")
	}
	start := time.Now()
	for _, name := range algo.Names() {
		t.Run(name, func(t *testing.T) {
			a := benchAlgorithm(t, name, 4)
			cfg := Config{Algorithm: a, Nodes: 4, Requests: 1, MaxStates: 3_000_000}
			cfg.Requesters = requestersN4[name]
			if timedN4[name] {
				cfg.Ticks, cfg.MinTicks, cfg.CSTicks = 2, 1, 2
			}
			_, stab := a.(proto.SelfStabilizingAlgorithm)
			if stab {
				cfg.Ticks, cfg.MinTicks, cfg.CSTicks, cfg.MaxStates = 2, 1, 2, 200_000
			}
			res := explored(t, cfg)
			t.Logf("%d states, depth %d, %v", res.States, res.Depth, res.Elapsed)
			if res.Violation != nil {
				t.Fatalf("violation: %s (after %d steps)", res.Violation.What, len(res.Violation.Path))
			}
			if res.Limit != "" && !stab {
				t.Fatalf("incomplete: %s", res.Limit)
			}
		})
	}
	t.Logf("every algorithm in %v", time.Since(start))
}
