package bench

import (
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/internal/field"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/sim"
	"github.com/ocbench/ocbench/workload"
)

// Plan is a run resolved once (Spec.Resolve): the spec with its defaults
// filled in and validated, and the algorithm it runs, configured — ℓ and
// K, its time-out, its failure protocol — with what the algorithm is. What
// runs the spec reads the plan and never looks the algorithm up by its
// name again (database/sql's Connector is the model: a driver in a fixed
// configuration).
type Plan struct {
	// Spec is the spec, filled and valid.
	Spec Spec
	// Registered is the algorithm as its package registered it (package
	// algo): what the spec names.
	Registered proto.Algorithm
	// Algorithm is the algorithm as the run runs it: the run's ℓ and K,
	// its time-out, its failure protocol when the spec runs one. The run's
	// nodes are built from it.
	Algorithm proto.Algorithm
	// KExclusion is Algorithm's k-exclusion view, nil for an algorithm of
	// another family.
	KExclusion proto.KExclusionAlgorithm
	// SelfStabilizing is Algorithm's self-stabilizing view, nil for an
	// algorithm that is not.
	SelfStabilizing proto.SelfStabilizingAlgorithm

	// Settle is how long the run goes on after its workload (Settle),
	// WatchPeriod the watchdog's period (WatchPeriod) and Width the width
	// of its windows (Width), in seconds.
	Settle, WatchPeriod, Width float64
	// check is the simulator's check level, and invariants the
	// algorithm's invariants for the run (with or without crashes);
	// atEnd says whether some are checked at the end of the run.
	check      sim.Check
	invariants []proto.Invariant
	atEnd      bool
	// budgetOf gives the run's budget (budgetFor; tests give smaller
	// ones).
	budgetOf budgeter
	// sched is what the run draws from its seed before it starts,
	// computed once, when first needed (schedule).
	sched *lazySchedule
}

// derive fills in what the plan derives from its spec and algorithm.
func (p *Plan) derive() {
	s := &p.Spec
	p.Settle, p.WatchPeriod, p.Width = Settle(*s), WatchPeriod(*s), Width(*s)
	p.check = simCheck(s.Check)
	p.budgetOf = budgetFor
	p.invariants, p.atEnd = invariants(p.Algorithm, s.Faults.Crashes > 0)
	p.sched = &lazySchedule{}
}

// invariants returns a's invariants for a run with or without crashes,
// and whether some are checked at the end of the run.
func invariants(a proto.Algorithm, crashes bool) ([]proto.Invariant, bool) {
	inv := a.Invariants(crashes)
	atEnd := false
	for _, x := range inv {
		atEnd = atEnd || x.When == proto.AtEnd
	}
	return inv, atEnd
}

// Resolve fills in the defaults of s, validates it and resolves its
// algorithm, once: the plan everything after it reads, or the *field.Error
// naming the first bad field.
func (s Spec) Resolve() (*Plan, error) {
	reg, err := registered(s.Algorithm)
	if err != nil {
		return nil, err
	}
	s.fillWith(reg)
	if err := s.validateWith(reg); err != nil {
		return nil, err
	}
	return newPlan(s, reg)
}

// newPlan returns the plan of s (filled) and the algorithm reg it names.
func newPlan(s Spec, reg proto.Algorithm) (*Plan, error) {
	a, err := configure(s, reg)
	if err != nil {
		return nil, err
	}
	p := &Plan{Spec: s, Registered: reg, Algorithm: a}
	p.KExclusion, _ = a.(proto.KExclusionAlgorithm)
	p.SelfStabilizing, _ = a.(proto.SelfStabilizingAlgorithm)
	p.derive()
	return p, nil
}

// MustResolve returns the plan of s, a spec a runtime holds: one that
// Resolve accepted, or the crash-free baseline of one (Baseline), which
// Validate may refuse (a repair pass without crashes). It fills s in but
// does not validate it again, and panics if s names no registered
// algorithm or one that refuses its configuration.
func MustResolve(s Spec) *Plan {
	reg, err := registered(s.Algorithm)
	if err != nil {
		panic("bench: " + err.Error())
	}
	s.fillWith(reg)
	p, err := newPlan(s, reg)
	if err != nil {
		panic("bench: " + err.Error())
	}
	return p
}

// namesWhere returns the names of the registered algorithms for which
// keep is true, comma-separated.
func namesWhere(keep func(proto.Algorithm) bool) string {
	var out []string
	for _, n := range algo.Ordered() {
		if keep(lookup(n)) {
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}

// registered returns the algorithm registered as name, or the *field.Error
// of the spec's Algorithm.
func registered(name string) (proto.Algorithm, error) {
	a, ok := algo.Lookup(name)
	if !ok {
		return nil, field.Errorf("Algorithm", "unknown algorithm %q (allowed: %s)", name, strings.Join(algo.Ordered(), ", "))
	}
	return a, nil
}

// configure returns the algorithm a run of s (filled, valid) runs: reg
// with the run's ℓ and K, its time-out, and its failure protocol when the
// spec runs one.
func configure(s Spec, reg proto.Algorithm) (proto.Algorithm, error) {
	a := reg
	if k, ok := a.(proto.KExclusionAlgorithm); ok {
		ell, kmax := s.unitsWith(reg)
		c, err := k.WithUnits(ell, kmax, s.Seed)
		if err != nil {
			return nil, field.Errorf("KMax", "ℓ = %d, K = %d: %w", ell, kmax, err)
		}
		a = c
	}
	if t, ok := a.(proto.TimeoutAlgorithm); ok && s.Timeout != 0 {
		c, err := t.WithTimeout(s.Timeout)
		if err != nil {
			return nil, field.Errorf("Timeout", "%w", err)
		}
		a = c
	}
	if ft, ok := a.(proto.FaultTolerantAlgorithm); ok && s.FT {
		protocol := s.Protocol
		if protocol == ProtocolOCBench {
			protocol = ""
		}
		a = ft.WithFailures(proto.Failures{CSEstimate: s.CSEstimate, Protocol: string(protocol)})
	}
	return a, nil
}

// fill fills in the defaults of the zero fields of s.
func (s *Spec) fill() { s.fillWith(lookup(s.Algorithm)) }

// Validate returns an error naming the first bad field of s (a *field.Error).
func (s *Spec) Validate() error {
	reg, err := registered(s.Algorithm)
	if err != nil {
		return err
	}
	return s.validateWith(reg)
}

// validateWith is Validate with the algorithm s names, reg.
func (s *Spec) validateWith(reg proto.Algorithm) error {
	if a, ok := reg.(proto.AnySizeAlgorithm); ok && a.AnySize() {
		if s.Nodes < 2 {
			return field.Errorf("Nodes", "%d is not ≥ 2", s.Nodes)
		}
	} else if err := hypercube.Validate(s.Nodes, 2); err != nil {
		return field.Errorf("Nodes", "%w", err)
	}
	if s.Nodes > hypercube.MaxNodes {
		return field.Errorf("Nodes", "%d is more than the supported 2^26", s.Nodes)
	}
	if s.Requests <= 0 || s.Requests >= 1<<32-1 {
		return field.Errorf("Requests", "%d is not in 1..2^32-2", s.Requests)
	}
	if err := workload.Valid(s.Workload); err != nil {
		return field.Errorf("Workload", "%w", err)
	}
	if err := s.validateTimeout(reg); err != nil {
		return err
	}
	if err := s.validateUnits(reg); err != nil {
		return err
	}
	if err := s.Transient.Validate(reg); err != nil {
		return err
	}
	for _, e := range s.Transient.Edits {
		if e.Node >= s.Nodes {
			return field.Errorf("Transient.Edits", "edit %s: node %d is not in 0..N−1 = %d", e, e.Node, s.Nodes-1)
		}
	}
	if _, ok := reg.(proto.KExclusionAlgorithm); ok && s.Workload == "each" {
		return field.Errorf("Workload", "each counts the messages of lone requests by attribution, and %s's messages serve no one request (its tokens are anonymous); use sequential, poisson or saturated", s.Algorithm)
	}
	if s.Workload == "each" && s.Nodes > EachMaxNodes {
		return field.Errorf("Nodes", "the each workload costs N² and stops at %d nodes, got %d", EachMaxNodes, s.Nodes)
	}
	if err := field.InRange("Delta", s.Delta, MinDelta, MaxDelta, false, "seconds"); err != nil {
		return err
	}
	if err := field.InRange("CSTime", s.CSTime, 0, field.MaxTime, false, "δ"); err != nil {
		return err
	}
	if err := field.InRange("Think", s.Think, MinThink, MaxThink(s.Nodes, s.CSTime), false, "δ; 0: N × cs-time"); err != nil && s.Think != 0 && s.Workload == "poisson" {
		return err // only the poisson workload thinks
	}
	if !(s.MinDelay >= 0 && s.MinDelay <= 1) {
		return field.Errorf("MinDelay", "%g is not in [0, 1] (a fraction of δ)", s.MinDelay)
	}
	if err := field.InRange("CSEstimate", s.CSEstimate, 0, field.MaxTime, false, "δ; 0: cs-time"); err != nil {
		return err
	}
	if !(s.LateFraction >= 0 && s.LateFraction <= 1) {
		return field.Errorf("LateFraction", "%g is not a fraction in [0, 1]", s.LateFraction)
	}
	if s.LateFraction > 0 && s.LateFactor != 0 {
		if err := field.InRange("LateFactor", s.LateFactor, 1, field.MaxTime, true, "a multiple of δ"); err != nil {
			return err
		}
	}
	if err := s.Faults.Validate(s.Nodes); err != nil {
		return err
	}
	if s.Faults.Crashes > 0 && s.Workload == "saturated" && s.CSTime < MinThink {
		// It issues requests until the fault plan is over; with a CS time
		// of 0 the node holding the token enters again at the same instant.
		return field.Errorf("CSTime", "%s is not in [%s, %s] (δ), which the saturated workload with crashes needs", field.Num(s.CSTime), field.Num(MinThink), field.Num(field.MaxTime))
	}
	if _, ok := reg.(proto.FaultTolerantAlgorithm); (s.Faults.Crashes > 0 || s.FT) && !ok {
		return field.Errorf("Faults.Crashes", "%s has no failure protocol and would lose the token or a permission for good (fault-tolerant: %s)", s.Algorithm, strings.Join(algo.FaultTolerant(), ", "))
	}
	if s.Repair && s.Faults.Crashes == 0 {
		return field.Errorf("Repair", "the repair pass follows a run with crashes")
	}
	if s.Faults.Crashes > 0 && s.Workload == "each" {
		return field.Errorf("Workload", "each runs lone requests from the initial configuration and takes no crashes")
	}
	if s.Protocol != "" && s.Protocol != ProtocolOCBench {
		if !slices.Contains(Protocols, s.Protocol) {
			return field.Errorf("Protocol", "unknown protocol %q (allowed: %s, %s, %s)", s.Protocol, ProtocolOCBench, ProtocolPaper, ProtocolPaperMechanism)
		}
		offers := func(a proto.Algorithm) bool { // the protocol beside its own (algo.ProtocolAlgorithm)
			v, ok := a.(algo.ProtocolAlgorithm)
			return ok && slices.Contains(v.Protocols(), string(s.Protocol))
		}
		if !offers(reg) {
			return field.Errorf("Protocol", "only %s has a failure protocol", namesWhere(offers))
		}
	}
	return nil
}

// fillWith fills in the defaults of the zero fields of s, whose algorithm
// is reg (nil if none is registered under its name).
func (s *Spec) fillWith(reg proto.Algorithm) {
	if f, ok := reg.(proto.FIFOAlgorithm); ok && f.NeedsFIFO() {
		s.FIFO = true
	}
	if s.Delta == 0 {
		s.Delta = DefaultDelta
	}
	if s.Think == 0 {
		s.Think = float64(s.Nodes) * s.CSTime
	}
	if s.CSEstimate == 0 {
		s.CSEstimate = s.CSTime
	}
	if s.LateFraction > 0 && s.LateFactor == 0 {
		s.LateFactor = 10
	}
	if s.Faults.Crashes > 0 {
		s.FT = true
	}
	if _, ok := reg.(proto.KExclusionAlgorithm); ok {
		s.Ell, s.KMax = s.unitsWith(reg)
	}
	if _, ok := reg.(proto.SelfStabilizingAlgorithm); ok {
		s.Transient = s.Transient.Filled()
	}
	if s.FT && s.Protocol == "" {
		s.Protocol = ProtocolOCBench
	}
}

// unitsWith returns the ℓ and K of a spec of the k-exclusion algorithm
// reg, defaults filled in.
func (s *Spec) unitsWith(reg proto.Algorithm) (int, int) {
	ell, k := s.Ell, s.KMax
	if ell == 0 {
		ell = DefaultEll
		if k > ell {
			ell = k
		}
	}
	if k == 0 {
		k = ell
		if m, ok := reg.(interface{ MaxK() int }); ok {
			k = min(k, m.MaxK()) // an ℓ-exclusion algorithm: requests of one unit
		}
	}
	return ell, k
}

// validateUnits checks --ell and --k-max against the algorithm reg.
func (s *Spec) validateUnits(reg proto.Algorithm) error {
	a, ok := reg.(proto.KExclusionAlgorithm)
	if !ok {
		switch {
		case s.Ell != 0:
			return field.Errorf("Ell", "only k-exclusion algorithms (%s) have units; %s has none", algo.KExclusionNames(), s.Algorithm)
		case s.KMax != 0:
			return field.Errorf("KMax", "only k-exclusion algorithms (%s) take requests of k units; %s has none", algo.KExclusionNames(), s.Algorithm)
		}
		return nil
	}
	if s.Ell < 0 || s.Ell > MaxEll {
		return field.Errorf("Ell", "%d is not in 1..%d", s.Ell, MaxEll)
	}
	ell, k := s.unitsWith(reg)
	if k < 1 || k > ell {
		return field.Errorf("KMax", "%d is not in 1..ℓ = %d", s.KMax, ell)
	}
	if _, err := a.WithUnits(ell, k, s.Seed); err != nil {
		return field.Errorf("KMax", "ℓ = %d, K = %d: %w", ell, k, err)
	}
	return nil
}

// validateTimeout checks Timeout against the algorithm reg.
func (s *Spec) validateTimeout(reg proto.Algorithm) error {
	if s.Timeout == 0 {
		return nil
	}
	t, ok := reg.(proto.TimeoutAlgorithm)
	if !ok {
		return field.Errorf("Timeout", "%s has no time-out to set (algorithms with one: %s)", s.Algorithm, namesWhere(func(a proto.Algorithm) bool {
			_, ok := a.(proto.TimeoutAlgorithm)
			return ok
		}))
	}
	if _, err := t.WithTimeout(s.Timeout); err != nil {
		return field.Errorf("Timeout", "%w", err)
	}
	return nil
}

// Baseline returns the plan of the crash-free baseline of a run of p: the
// same algorithm, without the fault plan (baselineOf), its workload
// issuing requests until p's does.
func (p *Plan) Baseline() *Plan {
	b := *p
	b.Spec = baselineOf(p.Spec)
	b.invariants, b.atEnd = invariants(b.Algorithm, false)
	b.sched = &lazySchedule{run: p.schedule()}
	return &b
}

// Settle is how long a run goes on after its workload is over, in seconds:
// time for the last messages to land (a lent token going back).
func Settle(s Spec) float64 {
	p := ceilLog2(s.Nodes)
	return float64(4*p+10) * s.Delta
}

// ceilLog2 returns ⌈log2 n⌉ (log2 n for a power of two; 0 for n ≤ 1).
func ceilLog2(n int) int { return bits.Len(uint(max(n, 1) - 1)) }

// WatchPeriod is the watchdog's period (Controller.Tick), in seconds: a run in
// which no request was served for a period while one waited for a whole
// period is stuck (a liveness violation).
func WatchPeriod(s Spec) float64 {
	return math.Max(200, 4*float64(s.Nodes)*(s.CSTime+1)) * s.Delta
}

// Width returns the width of the windows of a run of spec, in seconds: the
// delay floor (Spec.MinDelay) when it is at least WindowWidth, else
// WindowWidth (a run that only the simulator can host).
func Width(spec Spec) float64 { return max(spec.MinDelay, WindowWidth) * spec.Delta }

// simCheck returns the simulator's check level for c.
func simCheck(c Check) sim.Check {
	if c == CheckFull {
		return sim.CheckFull
	}
	return sim.CheckCounts
}

// baselineOf returns the spec of the crash-free baseline of a run of spec.
func baselineOf(spec Spec) Spec {
	base := spec
	base.Faults = faults.FaultPlan{}
	base.Trace = nil
	base.Progress = nil
	return base
}

// NeedsBaseline reports whether a run of spec (filled) has a crash-free
// baseline to run beside it.
func NeedsBaseline(spec Spec) bool { return spec.Faults.Crashes > 0 && !spec.NoBaseline }

// Baseline returns the spec of the crash-free baseline of a run of spec
// (NeedsBaseline): its workload issues requests until the run's does.
func Baseline(spec Spec) Spec { return baselineOf(spec) }
