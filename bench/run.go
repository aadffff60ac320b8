package bench

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/sim"
)

// Spec is one experiment.
type Spec struct {
	Algorithm string
	Nodes     int
	Requests  int64
	Workload  string
	Seed      uint64
	// Delta is δ in seconds (virtual time in the simulator).
	Delta float64
	// CSTime is how long a node stays in the critical section, in δ
	// (DefaultCSTime is the command's default; zero is allowed).
	CSTime float64
	// Think is the mean think time of the poisson workload, in δ.
	Think float64
	// MinDelay is the smallest message delay, in δ; delays are uniform in
	// [MinDelay·δ, δ].
	MinDelay float64
	FIFO     bool
	// Check selects the invariants checked after every step.
	Check sim.Check
	// Trace, if not nil, receives the event trace.
	Trace io.Writer
}

// Defaults for Spec fields left zero.
const (
	DefaultDelta  = 1e-3
	DefaultCSTime = 1.0
	DefaultThink  = 0 // 0 means: N·CSTime, a load at which requests overlap but the system is not saturated
)

// FullCheckMaxNodes is the largest N for which the automatic check level
// runs the O(N) structural invariants after every step.
const FullCheckMaxNodes = 256

// Validate returns an error naming the first bad field of s.
func (s *Spec) Validate() error {
	if _, err := Algorithm(s.Algorithm); err != nil {
		return fmt.Errorf("--algo: %w", err)
	}
	if err := hypercube.Validate(s.Nodes, 2); err != nil {
		return fmt.Errorf("--nodes: %w", err)
	}
	if s.Nodes > 1<<26 {
		return fmt.Errorf("--nodes: %d is more than the supported 2^26", s.Nodes)
	}
	if s.Requests <= 0 || s.Requests >= 1<<32 {
		return fmt.Errorf("--requests: %d is not in 1..2^32-1", s.Requests)
	}
	if err := ValidWorkload(s.Workload); err != nil {
		return fmt.Errorf("--workload: %w", err)
	}
	if s.Workload == "each" && s.Nodes > EachMaxNodes {
		return fmt.Errorf("--nodes: the each workload costs N² and stops at %d nodes, got %d", EachMaxNodes, s.Nodes)
	}
	if !(s.Delta > 0) {
		return fmt.Errorf("--delta: %g is not a positive number of seconds", s.Delta)
	}
	if !(s.CSTime >= 0) {
		return fmt.Errorf("--cs-time: %g is not a non-negative number of δ", s.CSTime)
	}
	if !(s.Think >= 0) {
		return fmt.Errorf("--think: %g is not a non-negative number of δ", s.Think)
	}
	if !(s.MinDelay >= 0 && s.MinDelay <= 1) {
		return fmt.Errorf("--min-delay: %g is not in [0, 1] (a fraction of δ)", s.MinDelay)
	}
	return nil
}

func (s *Spec) fill() {
	if s.Delta == 0 {
		s.Delta = DefaultDelta
	}
	if s.Think == 0 {
		s.Think = float64(s.Nodes) * s.CSTime
	}
}

// Streams of the seeded generators: each part of a run draws from its own
// stream, so that adding crashes to a run does not change its workload.
const (
	streamWorkload = 1
	streamDelays   = 2
)

// Run runs the experiment in the simulator.
func Run(spec Spec) (*results.Run, error) {
	spec.fill()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if spec.Workload == "each" {
		return runEach(spec)
	}
	algo, _ := Algorithm(spec.Algorithm)
	p, _ := hypercube.Log2(spec.Nodes)
	start := time.Now()
	nodes := algo.NewNodes(spec.Nodes)
	var drv *driver
	s := sim.New(sim.Config{
		Delta:    spec.Delta,
		MinDelay: spec.MinDelay,
		FIFO:     spec.FIFO,
		Seed:     spec.Seed,
		Check:    spec.Check,
		OpenCube: algo.OpenCube(),
		PMax:     p,
		Trace:    spec.Trace,
	}, nodes, sim.Hooks{
		Enter: func(id proto.NodeID, tag uint32) { drv.entered(id, tag) },
		Quiet: func() { drv.quiet() },
	})
	rng := rand.New(rand.NewPCG(spec.Seed, streamWorkload))
	drv = newDriver(spec.Workload, s, rng, spec.Nodes, spec.Requests, spec.CSTime*spec.Delta, spec.Think*spec.Delta)
	drv.start()
	err := s.Run()

	r := &results.Run{
		Algorithm: spec.Algorithm, Nodes: spec.Nodes, Ranks: 1, Runtime: "sim", Seed: spec.Seed,
		Workload: spec.Workload, DeltaSeconds: spec.Delta, CSTime: spec.CSTime, MinDelay: spec.MinDelay,
		FIFO: spec.FIFO, Checks: checkName(spec.Check),
		RequestsIssued: drv.issued, RequestsServed: drv.served,
		MessagesByType:  map[string]int64{},
		MessagesByCause: map[string]int64{},
		VirtualSeconds:  s.Now(),
		Steps:           s.Stats.Steps,
	}
	if spec.Workload == "poisson" {
		r.ThinkTime = spec.Think
	}
	st := &s.Stats
	r.MessagesTotal = st.MessagesTotal()
	for t := proto.MsgType(0); t < proto.NumMsgTypes; t++ {
		for c := proto.Cause(0); c < proto.NumCauses; c++ {
			if v := st.Sent[t][c]; v > 0 {
				r.MessagesByType[t.String()] += v
				r.MessagesByCause[c.String()] += v
			}
		}
	}
	perReq := make([]float64, 0, drv.served)
	for tag := 1; tag <= int(drv.issued); tag++ {
		var c uint32
		if tag < len(st.PerTag) {
			c = st.PerTag[tag]
		}
		perReq = append(perReq, float64(c))
	}
	r.MsgsPerRequest = results.Summarize(perReq)
	waits := make([]float64, len(drv.waits))
	for k, w := range drv.waits {
		waits[k] = w / spec.Delta
	}
	r.WaitDelta = results.Summarize(waits)
	var v *sim.Violation
	if errors.As(err, &v) {
		r.SafetyViolations = 1
		r.Violation = v.Error()
	} else if err != nil {
		return nil, err
	} else if drv.served < drv.issued {
		r.LivenessViolations = int(drv.issued - drv.served)
		r.Violation = fmt.Sprintf("%d of %d requests were never served and the run stopped (seed %d)", drv.issued-drv.served, drv.issued, spec.Seed)
	}
	r.WallSeconds = time.Since(start).Seconds()
	return r, nil
}

// runEach runs the "each" workload: one lone request from every node, each
// from the initial configuration.
func runEach(spec Spec) (*results.Run, error) {
	start := time.Now()
	costs, err := InitialCosts(spec.Algorithm, spec.Nodes)
	if err != nil {
		return nil, err
	}
	r := &results.Run{
		Algorithm: spec.Algorithm, Nodes: spec.Nodes, Ranks: 1, Runtime: "sim", Seed: spec.Seed,
		Workload: spec.Workload, Checks: "none", MessagesByType: map[string]int64{}, MessagesByCause: map[string]int64{},
		RequestsIssued: int64(spec.Nodes), RequestsServed: int64(spec.Nodes),
	}
	xs := make([]float64, len(costs))
	for i, c := range costs {
		xs[i] = float64(c)
		r.MessagesTotal += int64(c)
	}
	r.MessagesByCause["normal"] = r.MessagesTotal
	r.MsgsPerRequest = results.Summarize(xs)
	r.WallSeconds = time.Since(start).Seconds()
	return r, nil
}

func checkName(c sim.Check) string {
	if c == sim.CheckFull {
		return "full"
	}
	return "counts"
}
