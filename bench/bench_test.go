package bench

import (
	"bytes"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/sim"
)

var seeds = flag.Int("seeds", 1000, "seeds per configuration in TestSeedSweep")

// TestSeedSweep runs every rule on poisson and saturated workloads over many
// seeds, with every invariant checked after every step.
func TestSeedSweep(t *testing.T) {
	for _, algo := range AlgorithmNames() {
		for _, wl := range []string{"poisson", "saturated"} {
			for _, n := range []int{2, 4, 8, 32, 64} {
				t.Run(fmt.Sprintf("%s/%s/N=%d", algo, wl, n), func(t *testing.T) {
					t.Parallel()
					for seed := uint64(1); seed <= uint64(*seeds); seed++ {
						spec := Spec{Algorithm: algo, Nodes: n, Requests: int64(2 * n), Workload: wl, Seed: seed,
							CSTime: 0.5, Think: float64(n) / 4, FIFO: seed%5 == 0, Check: sim.CheckFull}
						r, err := Run(spec)
						if err != nil {
							t.Fatal(err)
						}
						if r.Violation != "" {
							t.Fatalf("replay with: ocbench --algo %s --nodes %d --workload %s --requests %d --seed %d --cs-time 0.5 --think %g --fifo=%v --check full\n%s",
								algo, n, wl, spec.Requests, seed, spec.Think, spec.FIFO, r.Violation)
						}
						if r.RequestsServed != spec.Requests {
							t.Fatalf("seed %d: served %d of %d", seed, r.RequestsServed, spec.Requests)
						}
						if r.MessagesByType["anomaly"] != 0 {
							t.Fatalf("seed %d: %d anomalies without failures", seed, r.MessagesByType["anomaly"])
						}
					}
				})
			}
		}
	}
}

// TestSequentialAttribution checks that, in the sequential workload, every
// message is attributed to a request: the per-request counts add up to the
// total, and the open-cube stays within its bound.
func TestSequentialAttribution(t *testing.T) {
	for _, algo := range AlgorithmNames() {
		for _, n := range []int{2, 16, 64} {
			r, err := Run(Spec{Algorithm: algo, Nodes: n, Requests: 2000, Workload: "sequential", Seed: 3, CSTime: 1, Check: sim.CheckFull})
			if err != nil {
				t.Fatal(err)
			}
			if r.Violation != "" {
				t.Fatalf("%s N=%d: %s", algo, n, r.Violation)
			}
			sum := r.MsgsPerRequest.Mean * float64(r.MsgsPerRequest.Count)
			if r.MsgsPerRequest.Count != 2000 || int64(sum+0.5) != r.MessagesTotal {
				t.Errorf("%s N=%d: %d requests carry %.0f messages, the run sent %d", algo, n, r.MsgsPerRequest.Count, sum, r.MessagesTotal)
			}
		}
	}
}

// TestDeterministic checks that the same seed replays the same run, byte
// for byte, and that another seed does not.
func TestDeterministic(t *testing.T) {
	trace := func(seed uint64) string {
		var buf bytes.Buffer
		_, err := Run(Spec{Algorithm: "opencube", Nodes: 16, Requests: 200, Workload: "poisson", Seed: seed, CSTime: 1, Trace: &buf})
		if err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	a, b, c := trace(7), trace(7), trace(8)
	if a != b {
		t.Error("seed 7 gave two different traces")
	}
	if a == c {
		t.Error("seeds 7 and 8 gave the same trace")
	}
	for _, ev := range []string{`"ev":"request"`, `"ev":"enter"`, `"ev":"exit"`, `"ev":"send"`, `"ev":"recv"`, `"type":"token"`} {
		if !strings.Contains(a, ev) {
			t.Errorf("trace has no %s", ev)
		}
	}
}

func TestSpecValidate(t *testing.T) {
	good := Spec{Algorithm: "opencube", Nodes: 8, Requests: 1, Workload: "poisson", Delta: 1}
	cases := []struct {
		name string
		edit func(*Spec)
		flag string
	}{
		{"algo", func(s *Spec) { s.Algorithm = "lamport" }, "--algo"},
		{"not pow2", func(s *Spec) { s.Nodes = 12 }, "--nodes"},
		{"one node", func(s *Spec) { s.Nodes = 1 }, "--nodes"},
		{"negative", func(s *Spec) { s.Nodes = -8 }, "--nodes"},
		{"requests", func(s *Spec) { s.Requests = 0 }, "--requests"},
		{"workload", func(s *Spec) { s.Workload = "bursty" }, "--workload"},
		{"delta", func(s *Spec) { s.Delta = -1 }, "--delta"},
		{"min delay", func(s *Spec) { s.MinDelay = 2 }, "--min-delay"},
	}
	if err := good.Validate(); err != nil {
		t.Fatalf("good spec rejected: %v", err)
	}
	for _, c := range cases {
		s := good
		c.edit(&s)
		err := s.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), c.flag) {
			t.Errorf("%s: got %v, want an error naming %s", c.name, err, c.flag)
		}
	}
}
