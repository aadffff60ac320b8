package bench

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/sim"
)

// Outcome is what a runtime observed of one run, whatever the runtime:
// Record, the one record builder, makes the run's record of it. A runtime
// then adds only what it alone measures (the simulator: virtual time,
// victim powers, stabilization; the MPI runtime: placement, real delays,
// frames, CPU time).
type Outcome struct {
	// Runtime names the runtime ("sim", "mpi"), on Ranks processes;
	// Checks names what was checked during the run.
	Runtime string
	Ranks   int
	Checks  string
	// Issued and Served count the run's critical-section requests.
	Issued, Served int64
	// Counts are what the run counted (the ranks' sum under MPI).
	// Counts.Suspicions are the failure detector's as the runtime judges
	// them, read only for a run with a failure protocol.
	Counts sim.Counts
	// PerRequest is the normal messages of each issued request, in serial
	// order.
	PerRequest []float64
	// FalseSuspicions and FirstFalseSuspicion are the failure detector's,
	// as the runtime judges them (FalseSuspicions -1: not judged); read
	// only for a run with a failure protocol.
	FalseSuspicions     int64
	FirstFalseSuspicion string
	// Safety lists the safety violations found, in the order found.
	Safety []Finding
	// Stopped: the run ended at its first safety violation (the
	// simulator's invariant checks), so what it had not served was cut
	// short, not lost.
	Stopped bool
	// Stuck describes a run that stalled (the watchdog) or spent its
	// budget: a liveness violation.
	Stuck string
	// Breach describes the first consequence of messages delayed beyond δ
	// on purpose (--delay-violations); it heads the description.
	Breach string
}

// Finding is one kind of safety violation found in a run: Count of them,
// the first described by Why ("" if another finding describes it).
type Finding struct {
	Count int
	Why   string
}

// Record returns the record of a run of spec (filled: Normalized) from what
// the runtime observed. The verdict, the same in every runtime: every safety
// finding counts, and the first described heads the violation; unless the
// run stopped at a safety violation, a stall is one liveness violation and
// so are requests of nodes that stayed up and were never served (the
// requests lost), described if nothing else is.
func Record(plan *Plan, o *Outcome) *results.Run { return recordOf(plan, o) }

// recordOf is Record of a run of plan.
func recordOf(plan *Plan, o *Outcome) *results.Run {
	spec := plan.Spec
	r := newRecord(plan, o.Runtime, o.Ranks, o.Checks, o.Issued, o.Served)
	if spec.FT {
		r.FalseSuspicions, r.FirstFalseSuspicion = o.FalseSuspicions, o.FirstFalseSuspicion
	}
	fill(&o.Counts, r, plan, o.PerRequest)
	for _, f := range o.Safety {
		r.SafetyViolations += f.Count
		if r.Violation == "" {
			r.Violation = f.Why
		}
	}
	lost := o.Issued - o.Served - o.Counts.Abandoned
	if !o.Stopped {
		switch {
		case o.Stuck != "":
			r.LivenessViolations++
			r.RequestsLost = lost
			if r.Violation == "" {
				r.Violation = o.Stuck
			}
		case lost > 0:
			r.LivenessViolations++
			r.RequestsLost = lost
			if r.Violation == "" {
				r.Violation = fmt.Sprintf("%d of %d requests of nodes that stayed up were never served (seed %d)", lost, o.Issued, spec.Seed)
			}
		}
	}
	if o.Breach != "" && (r.Violation == "" || r.LivenessViolations > 0) {
		why := o.Breach
		if r.Violation != "" {
			why += "; " + r.Violation
		}
		r.Violation = why
	}
	return r
}

// newRecord is NewRecord of a run of plan.
func newRecord(plan *Plan, runtime string, ranks int, checks string, issued, served int64) *results.Run {
	s := plan.Spec
	r := newRun(plan, checks, issued, served)
	r.Runtime, r.Ranks = runtime, ranks
	r.DeltaSeconds, r.CSTime, r.MinDelay, r.FIFO, r.FaultTolerant = s.Delta, s.CSTime, s.MinDelay, s.FIFO, s.FT
	if s.FT {
		r.Protocol = string(s.Protocol) // filled: ProtocolOCBench unless paper
	}
	if s.Workload == "poisson" {
		r.ThinkTime = s.Think
	}
	return r
}

// newRun returns the record of a simulated run of spec, with the fields
// every run has.
func newRun(plan *Plan, checks string, issued, served int64) *results.Run {
	spec := plan.Spec
	r := &results.Run{
		Algorithm: spec.Algorithm, Nodes: spec.Nodes, Ranks: 1, Runtime: "sim", Seed: spec.Seed,
		Workload: string(spec.Workload), Checks: checks,
		Requests: results.Requests{RequestsIssued: issued, RequestsServed: served,
			MessagesByType: map[string]int64{}, MessagesByCause: map[string]int64{}},
	}
	algo := plan.Algorithm // with the run's ℓ and K: a k-exclusion algorithm's quorums and cost depend on them
	if q, ok := algo.(proto.QuorumAlgorithm); ok {
		r.QuorumSize = q.QuorumSize(spec.Nodes)
	}
	if c, ok := algo.(proto.CostAlgorithm); ok {
		cost := c.StatedCost(spec.Nodes)
		r.StatedCost, r.StatedCostLow, r.StatedCostHigh = cost.Text, cost.Low, cost.High
		r.StatedCostSource, r.StatedCostKind = cost.Source, cost.Kind.String()
	}
	if ft, ok := algo.(proto.FaultTolerantAlgorithm); ok && spec.FT {
		planned := plan.schedule().faults
		m := ft.FaultModel()
		r.FaultModel = m.Text
		r.FaultModelBroken = faults.Outside(m, planned)
	}
	return r
}

// assemble returns the record of the run o of spec and its baseline bo (nil:
// none run).
func assemble(plan *Plan, o, bo *outcome) (*results.Run, error) {
	spec := plan.Spec
	var v *sim.Violation
	if o.err != nil && !errors.As(o.err, &v) {
		return nil, fmt.Errorf("simulating seed %d: %w", spec.Seed, o.err)
	}
	r := record(plan, o)
	if bo != nil && spec.Faults.Crashes > 0 && !spec.NoBaseline && o.stats.Crashes > 0 {
		if bo.err != nil && !errors.As(bo.err, &v) {
			return nil, fmt.Errorf("simulating the crash-free baseline of seed %d: %w", spec.Seed, bo.err)
		}
		baseline(o, bo, r)
	}
	if r.Violation != "" {
		r.Violation += "; replay: " + replay(spec, plan.Registered)
	}
	return r, nil
}

// record turns an outcome of the simulator into the run's record (Record,
// and what only the simulator measures).
func record(plan *Plan, o *outcome) *results.Run {
	spec := plan.Spec
	st := &o.stats
	t := st.Counts
	tags := slices.Sorted(slices.Values(o.tags))
	perReq := make([]float64, 0, len(tags))
	for _, tag := range tags {
		var c uint32
		if int(tag) < len(st.PerTag) {
			c = st.PerTag[tag]
		}
		perReq = append(perReq, float64(c))
	}
	out := &Outcome{Runtime: "sim", Ranks: 1, Checks: spec.Check.String(), Issued: o.issued, Served: o.served,
		Counts: t, PerRequest: perReq, FalseSuspicions: o.falses, FirstFalseSuspicion: o.firstFalse, Stuck: o.stuck}
	if spec.LateFraction > 0 {
		out.Safety = append(out.Safety, Finding{Count: int(st.OverlappingCS + st.DuplicateTokens)})
	}
	var v *sim.Violation
	if errors.As(o.err, &v) {
		out.Safety = append(out.Safety, Finding{Count: 1, Why: v.Error()})
		out.Stopped = true
	}
	if o.shape != nil {
		out.Safety = append(out.Safety, Finding{Count: 1, Why: "at the end of the run: " + o.shape.Error()})
	}
	if st.FirstBreach != "" {
		out.Breach = fmt.Sprintf("with %d messages delayed beyond δ on purpose, %s (seed %d)", st.Late, st.FirstBreach, spec.Seed)
	}
	r := recordOf(plan, out)
	r.VirtualSeconds = o.now
	recordK(r, plan, o)
	if spec.Faults.Crashes > 0 {
		r.VictimPowers = o.victimPower
		r.OverheadByVictimPower, r.OverheadStratified = results.ByPower(t.PerFailure, o.victimPower, spec.Nodes)
		r.OpenCubeAtEnd = o.openCubeAtEnd || (spec.Repair && o.shape == nil)
	}
	if spec.LateFraction > 0 {
		r.LateMessages = st.Late
		r.OverlappingCS = st.OverlappingCS
		r.DuplicateTokens = st.DuplicateTokens
	}
	return r
}

// baseline puts into r, the record of the crash run o, the differential
// overhead against its crash-free baseline bo, run with the same workload
// until the same time. A baseline that
// ends with a violation (safety, liveness, or a budget spent) fails the
// run: r gets the violation, prefixed "baseline: ", and no differential
// (dividing by a partial baseline would give a wrong figure, silently).
func baseline(o, bo *outcome, r *results.Run) {
	br := record(bo.plan, bo)
	if br.Violation != "" {
		r.SafetyViolations += br.SafetyViolations
		r.LivenessViolations += br.LivenessViolations
		if br.SafetyViolations+br.LivenessViolations == 0 {
			r.LivenessViolations++ // a violation always counts
		}
		why := "baseline: " + br.Violation
		if r.Violation != "" {
			why = r.Violation + "; " + why
		}
		r.Violation = why
		return
	}
	diff := float64(r.MessagesTotal-br.MessagesTotal) / float64(o.stats.Crashes)
	r.OverheadDifferential = results.Estimated([]float64{diff})
	r.BaselineMessages = br.MessagesTotal
}

// fill writes the counts t into r, the record of a run of plan made by
// newRecord (requests issued and served set): messages by type and cause,
// messages per request (perRequest: the normal messages of each issued
// request, in serial order), steps, drops, the longest delay, waits, and
// with the failure protocol its events, suspicions and detection traffic,
// and with crashes the overhead per failure and the time to recovery.
// Message types are named by the plan's algorithm.
func fill(t *sim.Counts, r *results.Run, plan *Plan, perRequest []float64) {
	spec, algo := plan.Spec, plan.Algorithm
	types := algo.MessageTypes()
	name := func(k int) string {
		if k < len(types) {
			return types[k].Name
		}
		return fmt.Sprintf("msgtype(%d)", k)
	}
	r.Steps, r.MessagesDropped = t.Steps, t.Dropped
	r.MaxDelayDelta = t.MaxDelay / spec.Delta
	if spec.FT {
		r.Suspicions = t.Suspicions
	}
	for k, row := range t.Sent {
		for c, v := range row {
			if v > 0 {
				r.MessagesByType[name(k)] += v
				r.MessagesByCause[proto.Cause(c).String()] += v
				r.MessagesTotal += v
			}
		}
	}
	r.MsgsPerRequest = results.Summarize(perRequest)
	r.WaitDelta = results.Summarize(t.Waits)
	r.ResponseDelta = r.WaitDelta // the same samples: summarized once
	if r.ResponseDelta.Count > 0 {
		r.ResponseDelta.Mean += spec.CSTime
		r.ResponseDelta.Median += spec.CSTime
		r.ResponseDelta.P99 += spec.CSTime
		r.ResponseDelta.Max += spec.CSTime
	}
	r.SyncDelayDelta = results.Summarize(t.Sync)
	if spec.FT {
		r.Events = map[string]int64{}
		events := algo.Events()
		for e, name := range events {
			r.Events[name] = t.Events[e]
		}
		r.TokensRegenerated = t.Event(events, "tokens_regenerated")
		r.StaleTokensDiscarded = t.Event(events, "stale_tokens_discarded")
		r.SearchesStarted = t.Event(events, "searches_started")
		if r.SearchesStarted > 0 {
			r.SearchPhasesMean = float64(t.Event(events, "search_phases")) / float64(r.SearchesStarted)
		}
		r.SetDetectionPerRequest()
	}
	if spec.Faults.Crashes > 0 {
		r.FaultPlan = spec.Faults.String()
		r.Failures = t.Crashes
		r.Recoveries = t.Recoveries
		r.OverheadPerFailure = results.Estimated(t.PerFailure)
		r.OverheadSamples = t.PerFailure
		r.OverheadByType = map[string]int64{}
		for k, v := range t.ByType {
			if v > 0 {
				r.OverheadByType[name(k)] = v
			}
		}
		r.FailureMessagesBeforeFirstCrash = t.PreCrash
		var rec []float64
		for _, x := range t.FirstEntry {
			if x >= 0 {
				rec = append(rec, x/spec.Delta)
			}
		}
		r.RecoveryDelta = results.Summarize(rec)
		r.RecoverySamples = rec
		r.RequestsAbandoned = t.Abandoned
	}
}

// Event returns the count in c of the event that the plan's algorithm
// calls name (0 if it has none of that name): the record's fields that are
// events of the failure protocol read them by name.
func Event(c *sim.Counts, plan *Plan, name string) int64 {
	return c.Event(plan.Algorithm.Events(), name)
}

// kDistribution counts the requests of the given tags by their k.
func kDistribution(a proto.KExclusionAlgorithm, tags []uint32) map[string]int64 {
	d := map[string]int64{}
	for _, tag := range tags {
		d[strconv.Itoa(a.NeedOf(tag))]++
	}
	return d
}

// recordK writes what a k-exclusion run and a self-stabilizing one
// measured into r: ℓ, K and the k distribution, the messages per entry
// after stabilization, and the stabilization time.
func recordK(r *results.Run, plan *Plan, o *outcome) {
	spec, algo := plan.Spec, plan.Algorithm
	st := o.stab
	if k := plan.KExclusion; k != nil {
		r.Ell, r.KMax = k.Units()
		r.KDistribution = kDistribution(k, o.tags)
		total := r.MessagesTotal
		// Messages serve no one request: count them per entry.
		r.MsgsPerRequest = results.Summary{}
		if r.RequestsServed > 0 {
			r.MsgsPerRequest = results.Summary{Count: int(r.RequestsServed), Mean: float64(total) / float64(r.RequestsServed)}
		}
		if st.Legit {
			var before int64
			for _, c := range st.SentAt {
				before += c
			}
			r.EntriesStable, r.MessagesStable = o.entriesStable, total-before
			if r.EntriesStable > 0 {
				r.MsgsPerEntry = float64(r.MessagesStable) / float64(r.EntriesStable)
			}
		}
	}
	ss := plan.SelfStabilizing
	if ss == nil || !spec.Transient.On() {
		return
	}
	r.Transient = spec.Transient.String()
	if t, ok := algo.(proto.TimeoutAlgorithm); ok {
		r.Timeout, r.TimeoutUnit = t.Timeout()
	}
	round, hopType := ss.Round()
	var bound float64
	if b, ok := plan.Registered.(proto.BoundedStabilization); ok {
		bound, _ = b.StabilizationBound()
	}
	stab := &results.Stabilization{Round: round, Bound: bound}
	stab.AsyncBound = stab.Bound * float64(spec.Nodes)
	run := results.StabRun{Seed: spec.Seed, Faults: st.Faults, Stabilized: st.Legit}
	if st.Legit {
		for e, name := range algo.Events() {
			if name == round {
				run.Rounds = float64(st.EventsAt[e] - st.EventsAtFault[e])
			}
		}
		run.HopRounds = float64(st.SentAt[hopType]-st.SentAtFault[hopType]) / float64(spec.Nodes)
		run.Delta = (st.At - st.LastFault) / spec.Delta
		run.AsyncRounds = float64(st.Rounds())
		if stab.Bound > 0 && run.Rounds > stab.Bound {
			run.Replay = replay(spec, plan.Registered)
		}
	}
	stab.InventedCS = o.invented
	stab.Injected, stab.Destroyed = o.stats.Injected, o.stats.Destroyed
	stab.Runs = []results.StabRun{run}
	stab.Summarize()
	r.Stabilization = stab
}

// FillKExclusion writes into r, the record of a run of plan on a runtime
// other than the simulator, what it says of a k-exclusion algorithm: ℓ, K,
// the k distribution of the requests of serials tags, the messages per
// served request (they serve no one request; msgs_per_entry is the same,
// over the whole run), and the transient plan.
// The stabilization time is the simulator's alone (the legitimacy
// predicate reads the whole system).
func FillKExclusion(r *results.Run, plan *Plan, tags []uint32) {
	k := plan.KExclusion
	if k == nil {
		return
	}
	s := plan.Spec
	r.Ell, r.KMax = k.Units()
	r.KDistribution = map[string]int64{}
	for _, tag := range tags {
		r.KDistribution[strconv.Itoa(k.NeedOf(tag))]++
	}
	r.MsgsPerRequest = results.Summary{}
	if r.RequestsServed > 0 {
		r.MsgsPerRequest = results.Summary{Count: int(r.RequestsServed), Mean: float64(r.MessagesTotal) / float64(r.RequestsServed)}
		r.EntriesStable, r.MessagesStable, r.MsgsPerEntry = r.RequestsServed, r.MessagesTotal, r.MsgsPerRequest.Mean
	}
	if s.Transient.On() {
		r.Transient = s.Transient.String()
	}
}

// Replay returns the ocbench command that replays the simulated run of s
// (one seed, --repeat 1): every flag that sets a field of s, with the
// values the run used (defaults filled in, the think time explicit), so
// that the command does not depend on the defaults or on a preset. The
// crash-free baseline of a crash run is replayed by the crash run's command.
func Replay(s Spec) string {
	p := MustResolve(s)
	return replay(p.Spec, p.Registered)
}

// replay is Replay of s (filled), whose algorithm is reg.
func replay(s Spec, reg proto.Algorithm) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	args := []string{"ocbench", "--algo", s.Algorithm, "--nodes", strconv.Itoa(s.Nodes),
		"--workload", string(s.Workload), "--requests", strconv.FormatInt(s.Requests, 10), "--seed", strconv.FormatUint(s.Seed, 10)}
	if s.Delta != DefaultDelta {
		args = append(args, "--delta", f(s.Delta))
	}
	args = append(args, "--cs-time", f(s.CSTime))
	if s.Workload == "poisson" {
		args = append(args, "--think", f(s.Think))
	}
	if s.MinDelay != DefaultMinDelay {
		args = append(args, "--min-delay", f(s.MinDelay))
	}
	if s.FIFO {
		args = append(args, "--fifo")
	}
	args = append(args, "--check", s.Check.String())
	if c := s.Faults; c.Crashes > 0 {
		args = append(args, "--crashes", strconv.Itoa(c.Crashes), "--crash-spacing", string(c.Spacing), "--crash-every", f(c.Every),
			"--crash-start", f(c.Start), "--downtime", f(c.Down), "--downtime-dist", string(c.DownDist),
			"--permanent", f(c.Permanent), "--crash-target", string(c.Target))
	} else if s.FT {
		args = append(args, "--ft")
	}
	if s.CSEstimate != s.CSTime {
		args = append(args, "--cs-estimate", f(s.CSEstimate))
	}
	if s.LateFraction > 0 {
		args = append(args, "--delay-violations", f(s.LateFraction), "--late-factor", f(s.LateFactor))
	}
	if _, ok := reg.(proto.KExclusionAlgorithm); ok {
		args = append(args, "--ell", strconv.Itoa(s.Ell), "--k-max", strconv.Itoa(s.KMax))
	}
	if t := s.Transient; t.On() {
		args = append(args, "--transient", string(t.Mode))
		switch t.Mode {
		case "initial":
			args = append(args, "--link-cap", strconv.Itoa(t.LinkCap))
		case "adversarial":
			args = append(args, "--adversary", t.AdversaryOf(reg, s.Seed), "--link-cap", strconv.Itoa(t.LinkCap))
		case "during":
			args = append(args, "--corruptions", strconv.Itoa(t.Events), "--corrupt-every", f(t.Every))
		}
		if len(t.Edits) > 0 {
			args = append(args, "--edits", faults.FormatEdits(t.Edits))
		}
	}
	if s.Timeout != 0 {
		args = append(args, "--timeout", f(s.Timeout))
	}
	if s.NoBaseline {
		args = append(args, "--no-baseline")
	}
	if s.Repair {
		args = append(args, "--repair")
	}
	if s.FT && s.Protocol != "" && s.Protocol != ProtocolOCBench {
		args = append(args, "--protocol", string(s.Protocol))
	}
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$`\\") {
			args[i] = fmt.Sprintf("%q", a)
		}
	}
	return strings.Join(args, " ")
}
