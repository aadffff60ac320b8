package results

import (
	"bytes"
	"encoding/json"
	"testing"
)

func fp(x float64) *float64 { return &x }

// goldenRuns are three seeds of one configuration, with every kind of
// field set: counters, maps, summaries, samples, MPI and k-exclusion
// fields, and a stabilization.
func goldenRuns() []*Run {
	base := func(seed uint64) *Run {
		return &Run{
			Algorithm: "opencube", Nodes: 16, Ranks: 4, Runtime: "mpi", Seed: seed, Workload: "poisson",
			QuorumSize: 3, Stated: Stated{StatedCost: "O(log N)", StatedCostLow: 4, StatedCostHigh: 8},
			Params: Params{DeltaSeconds: 0.001, CSTime: 1, ThinkTime: 16, MinDelay: 0.5, FIFO: true}, Checks: "full",
			Crash: Crash{FaultTolerant: true, Protocol: "ocbench", FaultPlan: "3 crashes", FaultModel: "one down at a time",
				Paper: &PaperComparison{PerFailure: 7, Ratio: 1.1}},
			MPI: MPI{Placement: "block", DeltaAuto: true, DeltaMeasured: &DelayMeasurement{Count: 100, Median: 1e-4, Delta: 0.001, Rule: "p99"},
				Hosts: []string{"a", "b"}, Parity: &Parity{Test: "mann-whitney", PValue: 0.5, SimSeeds: []uint64{1, 2}}},
			KExclusion: KExclusion{Ell: 3, KMax: 2}, SelfStab: SelfStab{Transient: "corrupt 4"},
		}
	}
	a := base(11)
	a.RequestsIssued, a.RequestsServed, a.MessagesTotal = 40, 39, 485
	a.MessagesByType = map[string]int64{"request": 200, "token": 285}
	a.MessagesByCause = map[string]int64{"normal": 400, "failure": 60, "liveness": 25}
	a.MsgsPerRequest = Summary{Count: 39, Mean: 12.3, Median: 11, P99: 30, Max: 31}
	a.WaitDelta = Summary{Count: 39, Mean: 2.7, Median: 2, P99: 9.5, Max: 10}
	a.ResponseDelta = Summary{Count: 39, Mean: 3.7, Median: 3, P99: 10.5, Max: 11}
	a.SyncDelayDelta = Summary{Count: 30, Mean: 1.3, Median: 1, P99: 2.9, Max: 3}
	a.SafetyViolations, a.LivenessViolations = 0, 1
	a.FaultModelBroken = ""
	a.Failures, a.Recoveries = 3, 2
	a.OverheadSamples = []float64{5, 9, 13}
	a.VictimPowers = []int{0, 2, 4}
	a.OverheadPerFailure = Estimated(a.OverheadSamples)
	a.OverheadDifferential = Estimate{N: 1, Mean: 8.5}
	a.BaselineMessages = 430
	a.OverheadByType = map[string]int64{"search": 20}
	a.FailureMessagesBeforeFirstCrash = 1
	a.TokensRegenerated, a.OpenCubeAtEnd, a.StaleTokensDiscarded = 1, true, 2
	a.SearchesStarted, a.Suspicions, a.FalseSuspicions = 4, 5, 1
	a.FirstFalseSuspicion = "at step 10: node 3 suspected 5"
	a.DetectionPerRequest = 25.0 / 39
	a.SearchPhasesMean = 1.75
	a.RequestsLost, a.RequestsAbandoned = 1, 2
	a.RecoverySamples = []float64{3.5, 4.25}
	a.RecoveryDelta = Summarize(a.RecoverySamples)
	a.Events = map[string]int64{"regenerate": 1}
	a.MessagesDropped, a.MaxDelayDelta = 3, 2.25
	a.MeasuredMinDelayDelta = fp(0.3)
	a.LateMessages, a.OverlappingCS, a.DuplicateTokens = 2, 1, 0
	a.MessagesIntraRank, a.MessagesInterRank, a.HopsPerMessage, a.DelaysOverDelta = 100, 385, 1.3, 4
	a.StartSkewDelta, a.MalformedFrames, a.MalformedExample = 0.2, 0, ""
	a.CPUSecondsPerRank = []float64{0.5, 0.25, 0.125}
	a.KDistribution = map[string]int64{"1": 20, "2": 20}
	a.EntriesStable, a.MessagesStable, a.MsgsPerEntry = 30, 300, 10
	a.Stabilization = &Stabilization{Round: "traversal", Bound: 5, AsyncBound: 80, Runs: []StabRun{{Seed: 11, Faults: 4, Stabilized: true, Rounds: 2.5, HopRounds: 2.1, Delta: 40, AsyncRounds: 30}},
		InventedCS: 1, Injected: 3, Destroyed: 2}
	a.Stabilization.Summarize()
	a.VirtualSeconds, a.WallSeconds, a.Steps = 1.5, 0.75, 10000

	b := base(12)
	b.RequestsIssued, b.RequestsServed, b.MessagesTotal = 40, 40, 510
	b.MessagesByType = map[string]int64{"request": 210, "token": 290, "search": 10}
	b.MessagesByCause = map[string]int64{"normal": 420, "failure": 70, "liveness": 20}
	b.MsgsPerRequest = Summary{Count: 40, Mean: 12.75, Median: 12, P99: 28, Max: 29}
	b.WaitDelta = Summary{Count: 40, Mean: 2.9, Median: 2.5, P99: 9, Max: 12}
	b.ResponseDelta = Summary{Count: 40, Mean: 3.9, Median: 3.5, P99: 10, Max: 13}
	b.SyncDelayDelta = Summary{Count: 33, Mean: 1.1, Median: 1, P99: 3.1, Max: 3.5}
	b.SafetyViolations, b.LivenessViolations = 1, 0
	b.Violation = "two nodes in the CS at t=0.5"
	b.FaultModelBroken = "2 nodes down at once"
	b.Failures, b.Recoveries = 2, 2
	b.OverheadSamples = []float64{7, 11}
	b.VictimPowers = []int{1, 3}
	b.OverheadPerFailure = Estimated(b.OverheadSamples)
	b.OverheadDifferential = Estimate{N: 1, Mean: 9.25}
	b.BaselineMessages = 440
	b.Events = map[string]int64{"regenerate": 2, "search": 3}
	b.FailureMessagesBeforeFirstCrash = 0
	b.TokensRegenerated, b.OpenCubeAtEnd, b.StaleTokensDiscarded = 2, false, 1
	b.SearchesStarted, b.Suspicions, b.FalseSuspicions = 3, 3, 0
	b.SearchPhasesMean = 2.0 / 3
	b.RequestsLost, b.RequestsAbandoned = 0, 1
	b.RecoverySamples = []float64{5.125, 2}
	b.RecoveryDelta = Summarize(b.RecoverySamples)
	b.MessagesDropped, b.MaxDelayDelta = 1, 3.5
	b.MeasuredMinDelayDelta = fp(-0.1)
	b.LateMessages, b.OverlappingCS, b.DuplicateTokens = 1, 0, 2
	b.MessagesIntraRank, b.MessagesInterRank, b.HopsPerMessage, b.DelaysOverDelta = 110, 400, 1.1, 2
	b.StartSkewDelta, b.MalformedFrames, b.MalformedExample = 0.7, 2, "frame of 3 bytes"
	b.CPUSecondsPerRank = []float64{0.1, 0.2, 0.3, 0.4}
	b.KDistribution = map[string]int64{"2": 30, "3": 10}
	b.EntriesStable, b.MessagesStable, b.MsgsPerEntry = 35, 315, 9
	b.Stabilization = &Stabilization{Round: "traversal", Bound: 5, AsyncBound: 80, Runs: []StabRun{{Seed: 12, Faults: 4, Stabilized: true, Rounds: 6, HopRounds: 5.5, Delta: 90, AsyncRounds: 95, Replay: "ocbench --seed 12"}},
		InventedCS: 2, Injected: 1, Destroyed: 4}
	b.Stabilization.Summarize()
	b.VirtualSeconds, b.WallSeconds, b.Steps = 1.7, 0.8, 12000

	c := base(13)
	c.RequestsIssued, c.RequestsServed, c.MessagesTotal = 40, 38, 470
	c.MessagesByType = map[string]int64{"request": 190, "token": 280}
	c.MessagesByCause = map[string]int64{"normal": 390, "failure": 50, "liveness": 30}
	c.MsgsPerRequest = Summary{Count: 38, Mean: 12.1, Median: 11.5, P99: 26, Max: 27}
	c.WaitDelta = Summary{Count: 38, Mean: 2.2, Median: 2, P99: 8, Max: 8.5}
	c.ResponseDelta = Summary{Count: 38, Mean: 3.2, Median: 3, P99: 9, Max: 9.5}
	c.SyncDelayDelta = Summary{Count: 29, Mean: 1.4, Median: 1.5, P99: 2.5, Max: 2.75}
	c.Violation = "token lost"
	c.FaultModelBroken = "root down twice"
	c.Failures, c.Recoveries = 0, 0
	c.BaselineMessages = 470
	c.OverheadByType = map[string]int64{"search": 5, "regenerate": 1}
	c.FailureMessagesBeforeFirstCrash = 2
	c.OpenCubeAtEnd = true
	c.SearchesStarted, c.Suspicions, c.FalseSuspicions = 0, 1, -1
	c.FirstFalseSuspicion = "at step 77: node 1 suspected 0"
	c.RequestsLost = 2
	c.MessagesDropped, c.MaxDelayDelta = 0, 1.5
	c.MessagesIntraRank, c.MessagesInterRank, c.HopsPerMessage, c.DelaysOverDelta = 90, 380, 1.7, 0
	c.StartSkewDelta, c.MalformedFrames, c.MalformedExample = 0.1, 1, "frame of 1 byte"
	c.KDistribution = map[string]int64{"1": 40}
	c.EntriesStable, c.MessagesStable = 38, 400
	c.VirtualSeconds, c.WallSeconds, c.Steps = 1.3, 0.7, 9000
	return []*Run{a, b, c}
}

func mergedJSON(t *testing.T, runs []*Run) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	if err := enc.Encode(Merge(runs)); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestMergeGolden: the record merged from goldenRuns is the one Merge made
// before it merged by struct tags (commit "results: golden merged
// record"), but for first_false_suspicion, which now names its seed.
func TestMergeGolden(t *testing.T) {
	if got := mergedJSON(t, goldenRuns()); got != goldenMerged {
		t.Errorf("merged record changed:\n%s\nwant:\n%s", got, goldenMerged)
	}
}

const goldenMerged = `{
 "algorithm": "opencube",
 "nodes": 16,
 "ranks": 4,
 "runtime": "mpi",
 "seed": 11,
 "seeds": [
  11,
  12,
  13
 ],
 "workload": "poisson",
 "quorum_size": 3,
 "stated_cost": "O(log N)",
 "stated_cost_low": 4,
 "stated_cost_high": 8,
 "delta_seconds": 0.001,
 "cs_time_delta": 1,
 "think_time_delta": 16,
 "min_delay_delta": 0.5,
 "fifo": true,
 "checks": "full",
 "requests_issued": 120,
 "requests_served": 117,
 "messages_total": 1465,
 "messages_by_type": {
  "request": 600,
  "search": 10,
  "token": 855
 },
 "messages_by_cause": {
  "failure": 180,
  "liveness": 75,
  "normal": 1210
 },
 "msgs_per_request": {
  "count": 117,
  "mean": 12.38888888888889,
  "median": 12,
  "p99": 30,
  "max": 31
 },
 "wait_delta": {
  "count": 117,
  "mean": 2.605982905982906,
  "median": 2.5,
  "p99": 9.5,
  "max": 12
 },
 "response_delta": {
  "count": 117,
  "mean": 3.6059829059829056,
  "median": 3.5,
  "p99": 10.5,
  "max": 13
 },
 "sync_delay_delta": {
  "count": 92,
  "mean": 1.259782608695652,
  "median": 1.5,
  "p99": 3.1,
  "max": 3.5
 },
 "safety_violations": 1,
 "liveness_violations": 1,
 "violation": "two nodes in the CS at t=0.5",
 "fault_tolerant": true,
 "protocol": "ocbench",
 "fault_plan": "3 crashes",
 "fault_model": "one down at a time",
 "fault_model_broken": "seed 12: 2 nodes down at once",
 "failures": 5,
 "recoveries": 4,
 "overhead_per_failure": {
  "n": 5,
  "mean": 9,
  "stddev": 3.1622776601683795,
  "ci95_low": 5.074143150852288,
  "ci95_high": 12.925856849147712
 },
 "overhead_samples": [
  5,
  9,
  13,
  7,
  11
 ],
 "victim_powers": [
  0,
  2,
  4,
  1,
  3
 ],
 "overhead_by_victim_power": [
  {
   "power": 0,
   "failures": 1,
   "mean": 5,
   "share": 0.5
  },
  {
   "power": 1,
   "failures": 1,
   "mean": 7,
   "share": 0.25
  },
  {
   "power": 2,
   "failures": 1,
   "mean": 9,
   "share": 0.125
  },
  {
   "power": 3,
   "failures": 1,
   "mean": 11,
   "share": 0.0625
  },
  {
   "power": 4,
   "failures": 1,
   "mean": 13,
   "share": 0.0625
  }
 ],
 "overhead_stratified": 6.875,
 "overhead_differential": {
  "n": 2,
  "mean": 8.875,
  "stddev": 0.5303300858899106,
  "ci95_low": 4.110250000000001,
  "ci95_high": 13.63975
 },
 "paper": {
  "overhead_per_failure": 7,
  "ratio": 1.1
 },
 "baseline_messages": 1340,
 "overhead_by_type": {
  "regenerate": 1,
  "search": 25
 },
 "failure_messages_before_first_crash": 3,
 "tokens_regenerated": 3,
 "open_cube_at_end": false,
 "stale_tokens_discarded": 3,
 "searches_started": 7,
 "suspicions": 9,
 "false_suspicions": -1,
 "first_false_suspicion": "seed 11: at step 10: node 3 suspected 5",
 "detection_msgs_per_request": 0.6410256410256411,
 "search_phases_mean": 1.2857142857142858,
 "requests_lost": 3,
 "requests_abandoned_by_crash": 3,
 "recovery_delta": {
  "count": 4,
  "mean": 3.71875,
  "median": 3.875,
  "p99": 5.09875,
  "max": 5.125
 },
 "recovery_samples": [
  3.5,
  4.25,
  5.125,
  2
 ],
 "events": {
  "regenerate": 3,
  "search": 3
 },
 "messages_dropped": 4,
 "max_delay_delta": 3.5,
 "measured_min_delay_delta": -0.1,
 "late_messages": 3,
 "overlapping_cs": 1,
 "duplicate_tokens": 2,
 "placement": "block",
 "messages_intra_rank": 300,
 "messages_inter_rank": 1165,
 "hops_per_message": 1.358703071672355,
 "delays_over_delta": 6,
 "start_skew_delta": 0.7,
 "delta_auto": true,
 "delta_measured": {
  "count": 100,
  "median_seconds": 0.0001,
  "p99_seconds": 0,
  "p999_seconds": 0,
  "max_seconds": 0,
  "measured_for_seconds": 0,
  "delta_seconds": 0.001,
  "rule": "p99"
 },
 "parity": {
  "test": "mann-whitney",
  "p_value": 0.5,
  "sim_seeds": [
   1,
   2
  ],
  "sim_samples": 0,
  "sim_mean": 0,
  "mpi_samples": 0,
  "mpi_mean": 0
 },
 "malformed_frames": 3,
 "malformed_example": "frame of 3 bytes",
 "cpu_seconds_per_rank": [
  0.6,
  0.45,
  0.425,
  0.4
 ],
 "hosts": [
  "a",
  "b"
 ],
 "ell": 3,
 "k_max": 2,
 "k_distribution": {
  "1": 60,
  "2": 50,
  "3": 10
 },
 "msgs_per_entry": 9.854368932038835,
 "entries_after_stabilization": 103,
 "messages_after_stabilization": 1015,
 "transient": "corrupt 4",
 "stabilization": {
  "round": "traversal",
  "bound_rounds": 5,
  "rounds": {
   "count": 2,
   "mean": 4.25,
   "median": 4.25,
   "p99": 5.965,
   "max": 6
  },
  "hop_rounds": {
   "count": 2,
   "mean": 3.8,
   "median": 3.8,
   "p99": 5.466,
   "max": 5.5
  },
  "delta": {
   "count": 2,
   "mean": 65,
   "median": 65,
   "p99": 89.5,
   "max": 90
  },
  "async_rounds": {
   "count": 2,
   "mean": 62.5,
   "median": 62.5,
   "p99": 94.35,
   "max": 95
  },
  "bound_async_rounds": 80,
  "over_async_bound": 1,
  "runs": [
   {
    "seed": 11,
    "faults": 4,
    "stabilized": true,
    "rounds": 2.5,
    "hop_rounds": 2.1,
    "delta": 40,
    "async_rounds": 30
   },
   {
    "seed": 12,
    "faults": 4,
    "stabilized": true,
    "rounds": 6,
    "hop_rounds": 5.5,
    "delta": 90,
    "async_rounds": 95,
    "replay": "ocbench --seed 12"
   }
  ],
  "over_bound": [
   {
    "seed": 12,
    "faults": 4,
    "stabilized": true,
    "rounds": 6,
    "hop_rounds": 5.5,
    "delta": 90,
    "async_rounds": 95,
    "replay": "ocbench --seed 12"
   }
  ],
  "not_stabilized": 0,
  "invented_cs": 3,
  "messages_injected": 4,
  "messages_destroyed": 6
 },
 "virtual_seconds": 4.5,
 "wall_seconds": 2.25,
 "steps": 31000
}
`
