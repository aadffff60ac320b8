package rank

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/workload"
)

// runtimeFields are the record's fields that say which runtime ran it and
// what it cost, which differ between runtimes (scripts/recordeq's list).
var runtimeFields = []string{"runtime", "ranks", "placement", "clock", "sync_cost", "wall_seconds",
	"cpu_seconds_per_rank", "messages_intra_rank", "messages_inter_rank", "hops_per_message"}

// comparable returns r as JSON without runtimeFields.
func comparable(t *testing.T, r *results.Run) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range runtimeFields {
		delete(m, f)
	}
	b, err = json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runVirtual runs specs at once on p goroutine ranks in virtual time and
// returns rank 0's records.
func runVirtual(t *testing.T, p int, placement string, specs []bench.Spec) []*results.Run {
	t.Helper()
	recs := make([][]*results.Run, p)
	onLocalRanks(t, p, func(r int, c Comm) (err error) {
		recs[r], err = Virtual{Comm: c, Placement: placement}.Run(specs)
		return err
	})
	for r := 1; r < p; r++ {
		if recs[r] != nil {
			t.Fatalf("rank %d returned records", r)
		}
	}
	return recs[0]
}

// virtualCases are specs for every registered algorithm, failure-free, and
// for every fault-tolerant one with crashes (every target for the
// open-cube), in every workload.
func virtualCases() map[string]bench.Spec {
	base := func(algo string, n int, wl workload.Kind, req int64) bench.Spec {
		return bench.Spec{Algorithm: algo, Nodes: n, Workload: wl, Requests: req, Seed: 5, CSTime: 1, MinDelay: bench.DefaultMinDelay}
	}
	out := map[string]bench.Spec{}
	for _, a := range algo.Ordered() {
		if algo.IsSelfStabilizing(a) {
			continue // below
		}
		out[a+"/poisson"] = base(a, 16, "poisson", 48)
		out[a+"/sequential"] = base(a, 8, "sequential", 20)
	}
	for _, a := range algo.FaultTolerant() {
		s := base(a, 16, "poisson", 40)
		s.Faults = faults.FaultPlan{Crashes: 4, Spacing: "exp", Every: 100, Start: 20, Down: 50, DownDist: "exp", Target: "random"}
		out[a+"/crashes"] = s
		q := base(a, 8, "sequential", 30)
		q.Faults = s.Faults
		out[a+"/sequential-crashes"] = q
	}
	// kofl: its legitimacy predicate, evaluated by the mirror of the
	// rank that hosts node 0 (bench.RunParts carries its log there), from every initial
	// configuration the virtual runtime runs, with Root's time-out too.
	for _, c := range []struct {
		name string
		wl   workload.Kind
		n    int
		tr   faults.TransientPlan
		to   float64
	}{
		{"kofl/none-poisson", "poisson", 16, faults.TransientPlan{Mode: "none"}, 0},
		{"kofl/initial-sequential", "sequential", 8, faults.TransientPlan{Mode: "initial"}, 0},
		{"kofl/initial-poisson", "poisson", 16, faults.TransientPlan{Mode: "initial"}, 0},
		{"kofl/adversarial-saturated", "saturated", 16, faults.TransientPlan{Mode: "adversarial"}, 0},
		{"kofl/initial-timeout", "poisson", 8, faults.TransientPlan{Mode: "initial"}, 3},
		{"kofl/during-poisson", "poisson", 16, faults.TransientPlan{Mode: "during", Events: 12, Every: 8}, 0},
		{"kofl/during-sequential", "sequential", 8, faults.TransientPlan{Mode: "during", Events: 8, Every: 10}, 0},
	} {
		s := base("kofl", c.n, c.wl, 40)
		s.Ell, s.KMax, s.FIFO, s.Transient, s.Timeout = 3, 2, true, c.tr, c.to
		out[c.name] = s
	}
	for _, target := range faults.Targets {
		s := base("opencube", 32, "saturated", 64)
		s.Faults = faults.FaultPlan{Crashes: 5, Spacing: "exp", Every: 60, Start: 10, Down: 30, DownDist: "exp", Target: target}
		out["opencube/saturated-crash-"+string(target)] = s
	}
	return out
}

// TestVirtualEqualsSimulator runs every case on 1, 2 and 4 goroutine ranks
// (8 too without -short), in both placements, and requires each record to
// equal the simulator's field for field but the runtime's own, and the
// merged trace of the first case of a job to equal the simulator's byte
// for byte.
func TestVirtualEqualsSimulator(t *testing.T) {
	ps := []int{1, 2, 4, 8}
	if testing.Short() {
		ps = []int{2, 4}
	}
	cases := virtualCases()
	for name, spec := range cases {
		var simTrace bytes.Buffer
		s := spec
		s.Trace = &simTrace
		want, err := bench.Run(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want.Violation != "" {
			t.Fatalf("%s: the simulator's run fails: %s", name, want.Violation)
		}
		for _, p := range ps {
			for _, pl := range []string{"block", "cyclic"} {
				t.Run(fmt.Sprintf("%s/%d-%s", name, p, pl), func(t *testing.T) {
					var tr bytes.Buffer
					s := spec
					s.Trace = &tr
					got := runVirtual(t, p, pl, []bench.Spec{s})[0]
					if g, w := comparable(t, got), comparable(t, want); g != w {
						t.Errorf("record differs from the simulator's:\n got %s\nwant %s", g, w)
					}
					if !bytes.Equal(tr.Bytes(), simTrace.Bytes()) {
						t.Errorf("merged trace differs from the simulator's (%d bytes, not %d)", tr.Len(), simTrace.Len())
					}
					if got.Runtime != "mpi" || got.Clock != "virtual" || got.Ranks != p || got.Sync == nil {
						t.Fatalf("runtime %q clock %q ranks %d sync %+v", got.Runtime, got.Clock, got.Ranks, got.Sync)
					}
					// One rank runs the simulator (no window collective); more
					// synchronize every window, and give each other bytes.
					sc := got.Sync
					if split := p > 1; split != (sc.Windows > 0) || split != (sc.Collectives >= sc.Windows && sc.Collectives > 0) || len(sc.BytesPerRank) != p || split != (slices.Min(sc.BytesPerRank) > 0) {
						t.Errorf("%d ranks: sync %+v", p, sc)
					}
				})
			}
		}
	}
}

// TestVirtualBatch runs several specs in one job and requires each record
// to equal the simulator's.
func TestVirtualBatch(t *testing.T) {
	var specs []bench.Spec
	for seed := uint64(1); seed <= 3; seed++ {
		for _, n := range []int{16, 32} {
			s := bench.Spec{Algorithm: "opencube", Nodes: n, Workload: "poisson", Requests: 1, Seed: seed, CSTime: 1, Think: 10 * float64(n),
				MinDelay: bench.DefaultMinDelay, Faults: faults.FaultPlan{Crashes: 10 + n/4, Spacing: "exp", Every: 50, Down: 20, DownDist: "exp", Target: "random"}}
			specs = append(specs, s)
		}
	}
	got := runVirtual(t, 4, "block", specs)
	for k, s := range specs {
		want, err := bench.Run(s)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := comparable(t, got[k]), comparable(t, want); g != w {
			t.Errorf("spec %d: record differs:\n got %s\nwant %s", k, g, w)
		}
	}
}

// TestVirtualProgress: rank 0's progress calls follow the whole job in
// virtual time: the failures injected and the requests served never go
// back when a run ends before the others, and the last call says the job
// is over with its runs' totals (its crash-free baselines aside).
func TestVirtualProgress(t *testing.T) {
	for _, ranks := range []int{1, 2} { // one rank runs the simulator (runAlone)
		t.Run(fmt.Sprint(ranks), func(t *testing.T) { testVirtualProgress(t, ranks) })
	}
}

func testVirtualProgress(t *testing.T, ranks int) {
	var calls []bench.Progress
	specs := []bench.Spec{
		{Algorithm: "opencube", Nodes: 8, Requests: 1, Workload: "poisson", Think: 80, MinDelay: 0.5, Seed: 1,
			Faults: faults.FaultPlan{Crashes: 5, Every: 100, Down: 20, Spacing: "exp", DownDist: "exp", Target: "random"}},
		{Algorithm: "opencube", Nodes: 8, Requests: 1, Workload: "poisson", Think: 80, MinDelay: 0.5, Seed: 2,
			Faults: faults.FaultPlan{Crashes: 20, Every: 100, Down: 20, Spacing: "exp", DownDist: "exp", Target: "random"}},
	}
	specs[0].Progress = func(p bench.Progress) { calls = append(calls, p) }
	recs := runVirtual(t, ranks, "block", specs)
	if len(calls) == 0 {
		t.Fatal("no progress call")
	}
	for i := 1; i < len(calls); i++ {
		if calls[i].Failures < calls[i-1].Failures || calls[i].Served < calls[i-1].Served {
			t.Errorf("progress went back: %+v after %+v", calls[i], calls[i-1])
		}
	}
	last := calls[len(calls)-1]
	served := recs[0].RequestsServed + recs[1].RequestsServed
	if !last.Done || last.Runs != 2 || last.Failures != 25 || last.FailuresPlanned != 25 || last.Served != int64(served) {
		t.Errorf("last call %+v, want done, 2 runs, 25 of 25 failures, %d served", last, served)
	}
	for _, c := range calls[:len(calls)-1] {
		if c.Done {
			t.Errorf("a call before the last says done: %+v", c)
		}
	}
}

// TestVirtualKoflStart: kofl's Start steps run at time 0, before any
// event of the queue; with a node per rank, the first window must begin at
// 0 (sim.Sim.Next) even when no event is queued before 0.5δ, or Root's
// first messages reach the other ranks in their past.
func TestVirtualKoflStart(t *testing.T) {
	spec := virtualCases()["kofl/during-poisson"]
	spec.Nodes = 32
	var simTrace, tr bytes.Buffer
	s := spec
	s.Trace = &simTrace
	want, err := bench.Run(s)
	if err != nil {
		t.Fatal(err)
	}
	s.Trace = &tr
	got := runVirtual(t, 32, "block", []bench.Spec{s})[0]
	if g, w := comparable(t, got), comparable(t, want); g != w {
		t.Errorf("record differs from the simulator's:\n got %s\nwant %s", g, w)
	}
	if !bytes.Equal(tr.Bytes(), simTrace.Bytes()) {
		t.Errorf("merged trace differs from the simulator's (%d bytes, not %d)", tr.Len(), simTrace.Len())
	}
}
