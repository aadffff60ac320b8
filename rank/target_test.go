package rank

import (
	"fmt"
	"testing"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/proto"
)

// TestTargetedCrashes: token, path and root crashes on goroutine ranks: the
// planned crashes happen (or are counted as skipped), and no two nodes are
// ever in the critical section.
func TestTargetedCrashes(t *testing.T) {
	for _, target := range []faults.Target{"token", "path", "root"} {
		t.Run(string(target), func(t *testing.T) {
			spec := bench.Spec{Algorithm: "opencube", Nodes: 16, Requests: 1, Workload: "poisson", Seed: 3,
				Delta: 4e-3, CSTime: 1, Think: 80,
				Faults: faults.FaultPlan{Crashes: 6, Spacing: "exp", Every: 40, Down: 10, DownDist: "exp", Target: target}}
			r := runTimely(t, 4, spec, nil)
			if r.Failures < 5 || r.Failures > 6 || r.OverheadPerFailure.N != r.Failures {
				t.Errorf("failures %d (overhead samples %d), want 6 (5 if one was skipped)", r.Failures, r.OverheadPerFailure.N)
			}
			if r.SafetyViolations != 0 || r.MalformedFrames != 0 {
				t.Errorf("safety: %d %s; malformed %d %s", r.SafetyViolations, r.Violation, r.MalformedFrames, r.MalformedExample)
			}
			t.Logf("failures %d, recoveries %d, overhead %.2f, served %d/%d", r.Failures, r.Recoveries, r.OverheadPerFailure.Mean, r.RequestsServed, r.RequestsIssued)
		})
	}
}

// TestChooseTarget: rank 0's choice from the ranks' reports.
func TestChooseTarget(t *testing.T) {
	const n, p = 8, 2
	pl, err := hypercube.NewPlacement("block", n, p)
	if err != nil {
		t.Fatal(err)
	}
	// states by node id; the round holds them per rank, in placement order.
	round := func(states string, tokenTo proto.NodeID) *targetRound {
		r := &targetRound{states: make([][]byte, p), tokenTo: tokenTo}
		for rk := range p {
			for _, i := range pl.Nodes(rk) {
				r.states[rk] = append(r.states[rk], states[i]-'0')
			}
		}
		return r
	}
	for _, c := range []struct {
		target  faults.Target
		states  string
		tokenTo proto.NodeID
		want    []proto.NodeID // the victims allowed; none: skipped
	}{
		{"token", "11121111", proto.Nil, []proto.NodeID{3}},
		{"token", "11111111", 6, []proto.NodeID{6}},
		{"token", "11111101", 6, []proto.NodeID{0, 1, 2, 3, 4, 5, 7}}, // in flight to a node down
		{"path", "12000021", proto.Nil, []proto.NodeID{1, 6}},
		{"root", "00000111", proto.Nil, []proto.NodeID{5, 6, 7}},
		{"root", "00000011", proto.Nil, nil}, // MinUp nodes up: skipped
	} {
		t.Run(fmt.Sprintf("%s/%s", c.target, c.states), func(t *testing.T) {
			const crashes = 20
			spec, err := bench.Spec{Algorithm: "opencube", Nodes: n, Requests: 1, Workload: "poisson", Seed: 1, FT: true,
				Faults: faults.FaultPlan{Crashes: crashes, Spacing: "fixed", Every: 10, Down: 1, DownDist: "fixed", Target: c.target}}.Normalized()
			if err != nil {
				t.Fatal(err)
			}
			j := newJob(Local(1)[0], 0, p)
			in := &instance{j: j, n: n, place: pl, spec: spec, tgt: &targeting{},
				ctl: bench.NewController(bench.MustResolve(spec), bench.ControlOptions{WallClock: true})}
			for k := range crashes {
				v := in.chooseTarget(uint32(k), round(c.states, c.tokenTo))
				ok := v == proto.Nil && c.want == nil
				for _, w := range c.want {
					ok = ok || v == w
				}
				if !ok {
					t.Fatalf("chose %d, want one of %v", v, c.want)
				}
			}
		})
	}
}
