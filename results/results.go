// Package results holds what a run reports: the JSON record of a run, the
// statistics over its samples (through github.com/montanaflynn/stats), the
// readable table, and the reference figures of the papers.
//
// Adding a metric to the record of a run is adding one field to Run's
// group of fields it belongs to (Crash, MPI, …), with its JSON name and its
// merge rule in a `merge` struct tag: how Merge combines the field over the
// seeds of one configuration (same, sum, max, min, first, all, any, append,
// or custom for a field Merge computes by hand; Merge's doc lists them). A
// field without a valid tag makes the package panic when it is
// initialized, and TestMergeRules checks every field's rule, so no metric
// is taken from the first seed alone by mistake. The runtimes' counters
// are merged by the same rules (AddCounts, SumCounts): docs/design.md,
// "Adding a metric".
package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"

	"github.com/montanaflynn/stats"
)

// Summary describes a sample: its size, mean, median, 99th percentile and
// maximum. An empty sample has Count 0 and zeros elsewhere.
type Summary struct {
	Count  int     `json:"count"`
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	P99    float64 `json:"p99"`
	Max    float64 `json:"max"`
}

// Summarize returns the summary of xs: the statistics of package stats
// (stats.Median, stats.Percentile(99), stats.Max). For a large sample with
// no NaN, the median and the 99th percentile are found by selection
// (summarizeSelect) rather than by sorting: the same order statistics, in
// linear time.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	if len(xs) >= selectMin && !slices.ContainsFunc(xs, math.IsNaN) {
		return summarizeSelect(xs)
	}
	return summarizeSort(xs)
}

// selectMin is the smallest sample that summarizeSelect takes: at that
// size the median's ranks lie below the 99th percentile's.
const selectMin = 64

// summarizeSort is Summarize by sorting a copy of xs.
func summarizeSort(xs []float64) Summary {
	mean, _ := stats.Float64Data(xs).Mean() // summed in the order of xs
	// Median and Percentile each sort a copy of their input: sorted once
	// here, those sorts cost a pass each.
	d := stats.Float64Data(slices.Clone(xs))
	slices.Sort(d)
	med, _ := d.Median()
	p99, _ := d.Percentile(99)
	mx, _ := d.Max()
	return Summary{Count: len(xs), Mean: mean, Median: med, P99: p99, Max: mx}
}

// Run is the record of one run: the JSON contract of `ocbench --json`.
// Its fields are grouped by what they describe in embedded structs
// (Stated, Params, Requests, Verdict, Crash, Delays, MPI, KExclusion,
// SelfStab, Timing), whose fields are Run's own in JSON (encoding/json
// flattens embedded structs without a JSON name) and in Go (promoted:
// r.Failures is r.Crash.Failures); Merge merges a group by its fields'
// tags.
type Run struct {
	Algorithm string `json:"algorithm" merge:"same"`
	Nodes     int    `json:"nodes" merge:"same"`
	Ranks     int    `json:"ranks" merge:"same"`
	Runtime   string `json:"runtime" merge:"same"`
	Seed      uint64 `json:"seed" merge:"custom"`
	// Seeds lists the seeds of a record merged over repetitions.
	Seeds    []uint64 `json:"seeds,omitempty" merge:"custom"`
	Workload string   `json:"workload" merge:"same"`
	// QuorumSize is the size K of a node's quorum (quorum algorithms).
	QuorumSize int `json:"quorum_size,omitempty" merge:"same"`
	Stated
	Params
	Checks string `json:"checks" merge:"same"`
	Requests
	Verdict
	Crash
	Delays
	MPI
	KExclusion
	SelfStab
	Timing
}

// Stated is the message cost the papers state, beside the measured one.
type Stated struct {
	// StatedCost is the message cost per critical section that the
	// algorithm's authors or the survey state ("2(N−1)"), and its value
	// at this N, from StatedCostLow to StatedCostHigh (both 0 for an
	// order of growth). StatedCostSource names where it is stated ("survey
	// T2": Velazquez 1993, Table 2; "survey §4": its text), or what a
	// derived figure comes from. StatedCostKind is proto.CostKind's name:
	// "exact" or "range" (a paper's formula: mean/stated divides by
	// StatedCostHigh), "order" (an order of growth) or "derived" (the
	// project's figure, no paper's): never divided into a measurement.
	StatedCost       string  `json:"stated_cost,omitempty" merge:"same"`
	StatedCostLow    float64 `json:"stated_cost_low,omitempty" merge:"same"`
	StatedCostHigh   float64 `json:"stated_cost_high,omitempty" merge:"same"`
	StatedCostSource string  `json:"stated_cost_source,omitempty" merge:"same"`
	StatedCostKind   string  `json:"stated_cost_kind,omitempty" merge:"same"`
}

// Params are the run's timing parameters.
type Params struct {
	// Timing parameters, in units of δ.
	DeltaSeconds float64 `json:"delta_seconds" merge:"same"`
	CSTime       float64 `json:"cs_time_delta" merge:"same"`
	ThinkTime    float64 `json:"think_time_delta,omitempty" merge:"same"`
	MinDelay     float64 `json:"min_delay_delta" merge:"same"`
	FIFO         bool    `json:"fifo" merge:"same"`
}

// Requests is what the critical-section requests got and what they cost.
type Requests struct {
	RequestsIssued int64            `json:"requests_issued" merge:"sum"`
	RequestsServed int64            `json:"requests_served" merge:"sum"`
	MessagesTotal  int64            `json:"messages_total" merge:"sum"`
	MessagesByType map[string]int64 `json:"messages_by_type" merge:"sum"`
	// MessagesByCause splits messages into "normal" and "failure".
	MessagesByCause map[string]int64 `json:"messages_by_cause" merge:"sum"`
	// MsgsPerRequest is over the served requests: every message of the
	// failure-free protocol carries the serial of the request it serves,
	// including the return of a lent token.
	MsgsPerRequest Summary `json:"msgs_per_request" merge:"custom"`
	// WaitDelta is the time from enter_cs to entering the CS, in δ.
	WaitDelta Summary `json:"wait_delta" merge:"custom"`
	// ResponseDelta is the response time, from enter_cs to the exit from
	// the critical section (the wait plus the CS time), in δ.
	ResponseDelta Summary `json:"response_delta" merge:"custom"`
	// SyncDelayDelta is the synchronization delay, in δ: from an exit from
	// the critical section while another request waits to the next entry
	// (exits with no request waiting, and crashes, give no sample).
	SyncDelayDelta Summary `json:"sync_delay_delta" merge:"custom"`
}

// Verdict is the safety and liveness violations found.
type Verdict struct {
	SafetyViolations   int    `json:"safety_violations" merge:"sum"`
	LivenessViolations int    `json:"liveness_violations" merge:"sum"`
	Violation          string `json:"violation,omitempty" merge:"first"`
}

// Crash is what crashes did and cost, and the failure protocol's work (suspicions, searches, tokens).
type Crash struct {
	// Crashes (open-cube failure protocol).
	FaultTolerant bool `json:"fault_tolerant" merge:"same"`
	// Protocol names the failure protocol of a fault-tolerant run:
	// "ocbench" (the project's) or "paper" (§5 as written).
	Protocol  string `json:"protocol,omitempty" merge:"same"`
	FaultPlan string `json:"fault_plan,omitempty" merge:"same"`
	// FaultModel is the failures the algorithm is built for, in words;
	// FaultModelBroken says how the fault plan went outside it (a finding,
	// not an error: the run's violations and lost requests say what
	// happened).
	FaultModel       string `json:"fault_model,omitempty" merge:"same"`
	FaultModelBroken string `json:"fault_model_broken,omitempty" merge:"custom"`
	Failures         int    `json:"failures" merge:"sum"`
	Recoveries       int    `json:"recoveries" merge:"sum"`
	// OverheadPerFailure is the classified overhead: messages whose cause
	// is a failure, attributed to the latest crash before they were sent;
	// the estimate is over failures.
	OverheadPerFailure Estimate `json:"overhead_per_failure" merge:"custom"`
	// OverheadSamples are the per-failure counts behind OverheadPerFailure.
	OverheadSamples []float64 `json:"overhead_samples,omitempty" merge:"append"`
	// VictimPowers are the powers of the crashes' victims when they crashed
	// (simulator only), in the order of OverheadSamples.
	VictimPowers []int `json:"victim_powers,omitempty" merge:"append"`
	// OverheadByVictimPower splits the overhead per failure by the power of
	// the victim; OverheadStratified weighs those means by each power's
	// share of the nodes of an open-cube (2^−(p+1), and 1/N for the root)
	// over the powers sampled: with --crash-target power every power is
	// sampled as often, and this is the estimate for a random victim.
	OverheadByVictimPower []PowerStratum `json:"overhead_by_victim_power,omitempty" merge:"custom"`
	OverheadStratified    float64        `json:"overhead_stratified,omitempty" merge:"custom"`
	// OverheadDifferential is (messages of the run − messages of the same
	// seed's run without crashes) / failures; over seeds when repeated. It
	// is negative when the crashes remove more traffic than their handling
	// adds: a down node neither asks nor answers, and requests are lost
	// (broadcast algorithms, whose every request costs N messages, show it
	// most).
	OverheadDifferential Estimate `json:"overhead_differential" merge:"custom"`
	// Paper is the paper's figure for this N, when it reports one.
	Paper                           *PaperComparison `json:"paper,omitempty" merge:"same"`
	BaselineMessages                int64            `json:"baseline_messages,omitempty" merge:"sum"`
	OverheadByType                  map[string]int64 `json:"overhead_by_type,omitempty" merge:"sum"`
	FailureMessagesBeforeFirstCrash int64            `json:"failure_messages_before_first_crash" merge:"sum"`
	TokensRegenerated               int64            `json:"tokens_regenerated" merge:"sum"`
	// OpenCubeAtEnd: the father relation was an open-cube when the run ended.
	OpenCubeAtEnd        bool  `json:"open_cube_at_end" merge:"all"`
	StaleTokensDiscarded int64 `json:"stale_tokens_discarded" merge:"sum"`
	SearchesStarted      int64 `json:"searches_started" merge:"sum"`
	// Suspicions counts the failures nodes suspected (each starts a
	// search); FalseSuspicions those that no failure explains. What a
	// suspicion is differs per algorithm: the open-cube's failure detector
	// suspecting a node it watches (target 0: a false one is the
	// detector's error); for mishra-srimani, naimi-trehel-ft and nishio, a
	// request's time-out expiring without the token (their papers'
	// presumption of failure, which then runs their recovery protocol):
	// under load or long critical sections such time-outs expire with no
	// failure by design, so a positive count is their time-outs' cost, not
	// an error. A suspicion is false when
	// the suspected node, if one is named, was up and had not crashed since
	// it was last heard from, and no node was down, crashed, recovered or
	// received a failure-protocol message during the silence waited
	// (sim.Judge). In the simulator it is exact without crashes and a lower
	// bound with them (a suspicion that overlaps a failure or its handling
	// is not counted as false); under MPI it is exact without crashes and
	// -1 (not judged) with them.
	Suspicions      int64 `json:"suspicions" merge:"sum"`
	FalseSuspicions int64 `json:"false_suspicions" merge:"custom"`
	// FirstFalseSuspicion describes the first false suspicion, to replay;
	// in a merged record, the first over the seeds, after its seed.
	FirstFalseSuspicion string `json:"first_false_suspicion,omitempty" merge:"custom"`
	// DetectionPerRequest is the failure detector's traffic (heartbeats of
	// the holders of requests, cause "liveness") per served request. It is
	// never part of the overhead per failure.
	DetectionPerRequest float64 `json:"detection_msgs_per_request" merge:"custom"`
	SearchPhasesMean    float64 `json:"search_phases_mean" merge:"custom"`
	RequestsLost        int64   `json:"requests_lost" merge:"sum"`
	RequestsAbandoned   int64   `json:"requests_abandoned_by_crash" merge:"sum"`
	// RecoveryDelta is, per crash, the time to the next CS entry, in δ.
	RecoveryDelta Summary `json:"recovery_delta" merge:"custom"`
	// RecoverySamples are the per-crash times behind RecoveryDelta, in δ.
	RecoverySamples []float64        `json:"recovery_samples,omitempty" merge:"append"`
	Events          map[string]int64 `json:"events,omitempty" merge:"sum"`
}

// Delays is the delivery of the messages: dropped at down nodes, the delays, and delays beyond δ on purpose.
type Delays struct {
	MessagesDropped int64   `json:"messages_dropped" merge:"sum"`
	MaxDelayDelta   float64 `json:"max_delay_delta" merge:"max"`
	// MeasuredMinDelayDelta is the smallest delivery delay measured under MPI, in
	// δ; below 0, the ranks' clocks disagree by at least as much.
	MeasuredMinDelayDelta *float64 `json:"measured_min_delay_delta,omitempty" merge:"min"`
	// Delay violations on purpose (--delay-violations).
	LateMessages    int64 `json:"late_messages,omitempty" merge:"sum"`
	OverlappingCS   int64 `json:"overlapping_cs,omitempty" merge:"sum"`
	DuplicateTokens int64 `json:"duplicate_tokens,omitempty" merge:"sum"`
}

// MPI is what only the MPI runtime measures.
type MPI struct {
	// MPI runtime: the placement of nodes on ranks, where messages went,
	// the hypercube hops between the ranks of sender and receiver (0 inside
	// a rank) per message, real delivery delays beyond δ, frames dropped as
	// malformed, the CPU time of every rank and the hosts of the job.
	Placement string `json:"placement,omitempty" merge:"same"`
	// Clock is the MPI runtime's clock: "virtual" (the ranks replay the
	// simulator's run) or "wall" (real time and real delays).
	Clock string `json:"clock,omitempty" merge:"same"`
	// Sync is what synchronizing the ranks cost a job in virtual time (in
	// the first record of the job: its runs shared the windows).
	Sync *SyncCost `json:"sync_cost,omitempty" merge:"first"`
	// IdenticalToSimulator counts the runs of the record that rank 0
	// replayed in the simulator and found identical, field for field but
	// RuntimeFields (MPI in virtual time, --verify).
	IdenticalToSimulator int     `json:"identical_to_simulator,omitempty" merge:"sum"`
	MessagesIntraRank    int64   `json:"messages_intra_rank,omitempty" merge:"sum"`
	MessagesInterRank    int64   `json:"messages_inter_rank,omitempty" merge:"sum"`
	HopsPerMessage       float64 `json:"hops_per_message,omitempty" merge:"custom"`
	DelaysOverDelta      int64   `json:"delays_over_delta" merge:"sum"`
	// StartSkewDelta is how late the last rank started, in δ (0: every
	// rank was waiting for the common start).
	StartSkewDelta float64 `json:"start_skew_delta,omitempty" merge:"max"`
	// DeltaAuto: δ was measured before the run (--delta auto, MPI in
	// wall-clock time); DeltaMeasured is that measurement and the δ chosen.
	DeltaAuto     bool              `json:"delta_auto,omitempty" merge:"same"`
	DeltaMeasured *DelayMeasurement `json:"delta_measured,omitempty" merge:"same"`
	// Parity compares the overhead per failure of this MPI run with the
	// simulator's runs of the same seeds.
	Parity            *Parity   `json:"parity,omitempty" merge:"same"`
	MalformedFrames   int64     `json:"malformed_frames,omitempty" merge:"sum"`
	MalformedExample  string    `json:"malformed_example,omitempty" merge:"first"`
	CPUSecondsPerRank []float64 `json:"cpu_seconds_per_rank,omitempty" merge:"custom"`
	Hosts             []string  `json:"hosts,omitempty" merge:"same"`
}

// KExclusion is the record of a k-exclusion algorithm's run.
type KExclusion struct {
	// K-exclusion (proto.KExclusionAlgorithm): ℓ units, requests of k ≤
	// K units, and the requests issued by k. Their messages serve no one
	// request (anonymous tokens): MsgsPerEntry is the messages sent after
	// stabilization (after the start, without transient faults) per entry
	// into the critical section after it; EntriesStable and MessagesStable
	// are its terms.
	Ell  int `json:"ell,omitempty" merge:"same"`
	KMax int `json:"k_max,omitempty" merge:"same"`
	// Timeout and TimeoutUnit are the time-out of an algorithm that takes
	// one as a parameter (kofl's Root: δ per ring node), in a run with
	// transient faults.
	Timeout        float64          `json:"timeout,omitempty" merge:"same"`
	TimeoutUnit    string           `json:"timeout_unit,omitempty" merge:"same"`
	KDistribution  map[string]int64 `json:"k_distribution,omitempty" merge:"sum"`
	MsgsPerEntry   float64          `json:"msgs_per_entry,omitempty" merge:"custom"`
	EntriesStable  int64            `json:"entries_after_stabilization,omitempty" merge:"sum"`
	MessagesStable int64            `json:"messages_after_stabilization,omitempty" merge:"sum"`
}

// SelfStab is the record of a self-stabilizing algorithm's run with transient faults.
type SelfStab struct {
	// Transient describes the transient-fault plan of a self-stabilizing
	// algorithm's run, and Stabilization what it measured.
	Transient     string         `json:"transient,omitempty" merge:"same"`
	Stabilization *Stabilization `json:"stabilization,omitempty" merge:"custom"`
}

// Timing is what the run took: virtual and wall-clock time, and steps.
type Timing struct {
	VirtualSeconds float64 `json:"virtual_seconds,omitempty" merge:"sum"`
	WallSeconds    float64 `json:"wall_seconds" merge:"sum"`
	Steps          int64   `json:"steps" merge:"sum"`
}

// SetDetectionPerRequest sets DetectionPerRequest from the messages of
// cause "liveness" and the requests served (0 if none was served).
func (r *Run) SetDetectionPerRequest() {
	r.DetectionPerRequest = 0
	if r.RequestsServed > 0 {
		r.DetectionPerRequest = float64(r.MessagesByCause["liveness"]) / float64(r.RequestsServed)
	}
}

// PaperComparison sets a measured overhead per failure beside the paper's.
type PaperComparison struct {
	PerFailure float64 `json:"overhead_per_failure"`
	// Ratio is measured (classified) / paper.
	Ratio float64 `json:"ratio"`
}

// Report is the JSON document ocbench prints with --json: the records,
// then the verdict on them.
type Report struct {
	Runs       []*Run      `json:"runs"`
	Validation *Validation `json:"validation,omitempty"`
}

// WriteJSON writes the report as one indented JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// DelayMeasurement is the distribution of one-way delivery delays that the
// MPI ranks measured before a run (--delta auto), in seconds, and the δ
// chosen from it.
type DelayMeasurement struct {
	Count   int     `json:"count"`
	Median  float64 `json:"median_seconds"`
	P99     float64 `json:"p99_seconds"`
	P999    float64 `json:"p999_seconds"`
	Max     float64 `json:"max_seconds"`
	Seconds float64 `json:"measured_for_seconds"`
	// Delta is the δ chosen, by Rule.
	Delta float64 `json:"delta_seconds"`
	Rule  string  `json:"rule"`
}

// SyncCost is what the window collectives cost a job of the MPI runtime in
// virtual time: the windows (one collective each), the collectives in all
// (the windows', and those a boundary adds), the wall-clock seconds each
// rank spent in them, the events each rank ran per window, and the bytes
// each rank gave the others (frames, and its share of the reductions).
type SyncCost struct {
	Windows                  int64     `json:"windows"`
	Collectives              int64     `json:"collectives"`
	CollectiveSecondsPerRank []float64 `json:"collective_seconds_per_rank"`
	EventsPerWindowPerRank   []float64 `json:"events_per_window_per_rank"`
	BytesPerRank             []int64   `json:"bytes_per_rank"`
}

// Parity is a two-sample test of the per-failure overhead of an MPI run
// against the simulator's runs of the same seeds.
type Parity struct {
	// Test names the test: "mann-whitney" (two-sided, normal
	// approximation with the tie correction).
	Test string `json:"test"`
	// PValue is the test's p-value: the probability of a difference at
	// least as large if both samples came from one distribution.
	PValue float64 `json:"p_value"`
	// The simulator's runs: their seeds, failures and mean overhead.
	SimSeeds   []uint64 `json:"sim_seeds"`
	SimSamples int      `json:"sim_samples"`
	SimMean    float64  `json:"sim_mean"`
	MPISamples int      `json:"mpi_samples"`
	MPIMean    float64  `json:"mpi_mean"`
}

// summarizeSelect is Summarize of a sample of at least selectMin values
// with no NaN, which takes from a copy of xs, by selection, the values
// whose ranks stats.Median and stats.Percentile(99) read in the sorted
// sample, and computes from them what those do.
func summarizeSelect(xs []float64) Summary {
	l := len(xs)
	mean, _ := stats.Float64Data(xs).Mean() // summed in the order of xs
	mx, _ := stats.Float64Data(xs).Max()
	d := slices.Clone(xs)
	// stats.Percentile: rank (percent/100)·(n−1), interpolated between
	// the values of ranks k and k+1.
	rank := (float64(99) / 100) * float64(l-1)
	k := int(rank)
	f := rank - float64(k)
	selectRank(d, k)
	ck := d[k]
	p99 := ck
	if k+1 < l && f != 0 {
		if ck1 := slices.Min(d[k+1:]); ck1 != ck {
			delta := ck1 - ck
			if math.IsInf(delta, 1) {
				p99 = (1-f)*ck + f*ck1
			} else {
				p99 = ck + f*delta
			}
		}
	}
	// stats.Median: the middle value, or the mean of the two middle ones.
	m := l / 2 // < k, as l ≥ selectMin
	selectRank(d[:k], m)
	med := d[m]
	if l%2 == 0 {
		med, _ = stats.Float64Data{slices.Max(d[:m]), d[m]}.Mean()
	}
	return Summary{Count: l, Mean: mean, Median: med, P99: p99, Max: mx}
}

// selectRank reorders d, which holds no NaN, so that d[k] is the value of
// rank k of the sorted d, with no larger value before it and no smaller
// one after it (a quickselect: Hoare's partition around a median of
// three, and a sort of what is left if it takes too many rounds).
func selectRank(d []float64, k int) {
	lo, hi := 0, len(d)-1
	for rounds := 2*bits.Len(uint(len(d))) + 8; hi > lo; rounds-- {
		if rounds == 0 || hi-lo < 16 {
			slices.Sort(d[lo : hi+1])
			return
		}
		a, b, c := d[lo], d[lo+(hi-lo)/2], d[hi]
		p := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for d[i] < p {
				i++
			}
			for d[j] > p {
				j--
			}
			if i <= j {
				d[i], d[j] = d[j], d[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default: // d[j+1 : i] are all p
			return
		}
	}
}

// RuntimeFields are the record's fields (JSON names) that say which runtime
// ran a run and what hosting it cost: the fields in which an MPI job in
// virtual time may differ from the simulator's run of the same spec and
// seed (scripts/recordeq ignores them too).
var RuntimeFields = []string{"runtime", "ranks", "placement", "clock", "sync_cost", "wall_seconds", "cpu_seconds_per_rank",
	"messages_intra_rank", "messages_inter_rank", "hops_per_message", "checks", "identical_to_simulator"}

// SameRun reports whether a and b are records of the same run, field for
// field but RuntimeFields, and if not names the first field that differs.
func SameRun(a, b *Run) (string, bool) {
	ma, err1 := withoutRuntime(a)
	mb, err2 := withoutRuntime(b)
	if err1 != nil || err2 != nil {
		return fmt.Sprint("the records do not encode: ", errors.Join(err1, err2)), false
	}
	keys := make([]string, 0, len(ma)+len(mb))
	for k := range ma {
		keys = append(keys, k)
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !bytes.Equal(ma[k], mb[k]) {
			return fmt.Sprintf("%s (%s, not %s)", k, clip(ma[k]), clip(mb[k])), false
		}
	}
	return "", true
}

// withoutRuntime returns r's fields in JSON but RuntimeFields.
func withoutRuntime(r *Run) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for _, f := range RuntimeFields {
		delete(m, f)
	}
	return m, nil
}

// clip shortens a JSON value for a message.
func clip(b []byte) string {
	if b == nil {
		return "absent"
	}
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}
