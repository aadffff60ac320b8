package results

import "fmt"

// Merge combines runs of the same configuration over different seeds into
// one record: counts are summed, per-request and per-failure statistics are
// pooled, and the differential overhead is estimated over the seeds.
func Merge(runs []*Run) *Run {
	if len(runs) == 1 {
		return runs[0]
	}
	m := *runs[0]
	m.Seeds = nil
	m.MessagesByType = map[string]int64{}
	m.MessagesByCause = map[string]int64{}
	m.OverheadByType = nil
	m.Events = nil
	var diffs, samples []float64
	var powers []int
	var rec, recSamples []float64
	zero := func(r *Run) {
		r.RequestsIssued, r.RequestsServed, r.MessagesTotal, r.Failures, r.Recoveries = 0, 0, 0, 0, 0
		r.SafetyViolations, r.LivenessViolations, r.TokensRegenerated, r.StaleTokensDiscarded = 0, 0, 0, 0
		r.SearchesStarted, r.RequestsLost, r.RequestsAbandoned, r.FailureMessagesBeforeFirstCrash = 0, 0, 0, 0
		r.Suspicions, r.FalseSuspicions, r.DetectionPerRequest = 0, 0, 0
		r.MessagesDropped, r.Steps, r.BaselineMessages, r.WallSeconds, r.VirtualSeconds = 0, 0, 0, 0, 0
		r.LateMessages, r.OverlappingCS, r.DuplicateTokens, r.MaxDelayDelta = 0, 0, 0, 0
		r.Violation = ""
		r.MeasuredMinDelayDelta = nil
		r.MessagesIntraRank, r.MessagesInterRank, r.HopsPerMessage, r.DelaysOverDelta = 0, 0, 0, 0
		r.StartSkewDelta, r.MalformedFrames, r.MalformedExample, r.CPUSecondsPerRank = 0, 0, "", nil
	}
	zero(&m)
	m.FaultModelBroken = ""
	var phases, hops float64
	m.OpenCubeAtEnd = true
	for _, r := range runs {
		m.OpenCubeAtEnd = m.OpenCubeAtEnd && r.OpenCubeAtEnd
		m.Seeds = append(m.Seeds, r.Seed)
		m.RequestsIssued += r.RequestsIssued
		m.RequestsServed += r.RequestsServed
		m.MessagesTotal += r.MessagesTotal
		m.Failures += r.Failures
		m.Recoveries += r.Recoveries
		m.SafetyViolations += r.SafetyViolations
		m.LivenessViolations += r.LivenessViolations
		m.TokensRegenerated += r.TokensRegenerated
		m.StaleTokensDiscarded += r.StaleTokensDiscarded
		m.SearchesStarted += r.SearchesStarted
		m.Suspicions += r.Suspicions
		if m.FalseSuspicions >= 0 && r.FalseSuspicions >= 0 {
			m.FalseSuspicions += r.FalseSuspicions
		} else {
			m.FalseSuspicions = -1 // not judged in some run (MPI with crashes)
		}
		phases += r.SearchPhasesMean * float64(r.SearchesStarted)
		m.RequestsLost += r.RequestsLost
		m.RequestsAbandoned += r.RequestsAbandoned
		m.FailureMessagesBeforeFirstCrash += r.FailureMessagesBeforeFirstCrash
		m.MessagesDropped += r.MessagesDropped
		m.Steps += r.Steps
		m.BaselineMessages += r.BaselineMessages
		m.WallSeconds += r.WallSeconds
		m.VirtualSeconds += r.VirtualSeconds
		m.LateMessages += r.LateMessages
		// MPI: seeds that ran at once in one job share its CPU time,
		// which only the first record carries (rank.RunSeeds).
		m.MessagesIntraRank += r.MessagesIntraRank
		m.MessagesInterRank += r.MessagesInterRank
		hops += r.HopsPerMessage * float64(r.MessagesTotal)
		m.DelaysOverDelta += r.DelaysOverDelta
		m.StartSkewDelta = max(m.StartSkewDelta, r.StartSkewDelta)
		m.MalformedFrames += r.MalformedFrames
		if m.MalformedExample == "" {
			m.MalformedExample = r.MalformedExample
		}
		for k, c := range r.CPUSecondsPerRank {
			if k >= len(m.CPUSecondsPerRank) {
				m.CPUSecondsPerRank = append(m.CPUSecondsPerRank, 0)
			}
			m.CPUSecondsPerRank[k] += c
		}
		m.OverlappingCS += r.OverlappingCS
		m.DuplicateTokens += r.DuplicateTokens
		if r.MaxDelayDelta > m.MaxDelayDelta {
			m.MaxDelayDelta = r.MaxDelayDelta
		}
		if v := r.MeasuredMinDelayDelta; v != nil && (m.MeasuredMinDelayDelta == nil || *v < *m.MeasuredMinDelayDelta) {
			m.MeasuredMinDelayDelta = v
		}
		if m.Violation == "" {
			m.Violation = r.Violation
		}
		if m.FaultModelBroken == "" && r.FaultModelBroken != "" {
			m.FaultModelBroken = fmt.Sprintf("seed %d: %s", r.Seed, r.FaultModelBroken)
		}
		add(m.MessagesByType, r.MessagesByType)
		add(m.MessagesByCause, r.MessagesByCause)
		if r.OverheadByType != nil {
			if m.OverheadByType == nil {
				m.OverheadByType = map[string]int64{}
			}
			add(m.OverheadByType, r.OverheadByType)
		}
		if r.Events != nil {
			if m.Events == nil {
				m.Events = map[string]int64{}
			}
			add(m.Events, r.Events)
		}

		samples = append(samples, r.OverheadSamples...)
		powers = append(powers, r.VictimPowers...)
		if r.OverheadDifferential.N > 0 {
			diffs = append(diffs, r.OverheadDifferential.Mean)
		}
		if r.RecoveryDelta.Count > 0 {
			rec = append(rec, r.RecoveryDelta.Mean)
		}
		recSamples = append(recSamples, r.RecoverySamples...)
	}
	if m.MessagesTotal > 0 {
		m.HopsPerMessage = hops / float64(m.MessagesTotal)
	}
	if m.SearchesStarted > 0 {
		m.SearchPhasesMean = phases / float64(m.SearchesStarted)
	}
	m.SetDetectionPerRequest()
	m.MsgsPerRequest = pool(runs, func(r *Run) Summary { return r.MsgsPerRequest })
	m.WaitDelta = pool(runs, func(r *Run) Summary { return r.WaitDelta })
	m.ResponseDelta = pool(runs, func(r *Run) Summary { return r.ResponseDelta })
	m.SyncDelayDelta = pool(runs, func(r *Run) Summary { return r.SyncDelayDelta })
	m.OverheadSamples = samples
	m.VictimPowers = powers
	m.OverheadByVictimPower, m.OverheadStratified = ByPower(samples, powers, m.Nodes)
	m.OverheadPerFailure = Estimated(samples)
	m.OverheadDifferential = Estimated(diffs)
	m.Stabilization = mergeStabilization(runs)
	mergeK(&m, runs)
	m.RecoveryDelta = Summary{Count: len(rec), Mean: Estimated(rec).Mean}
	m.RecoverySamples = recSamples
	if len(recSamples) > 0 { // pooled over the crashes of every seed
		m.RecoveryDelta = Summarize(recSamples)
	}
	return &m
}

// pool merges one summary of every run: the mean is pooled exactly (weighed
// by each run's count); the median, 99th percentile and maximum of the
// merged record are the largest over the runs (a conservative choice).
func pool(runs []*Run, of func(*Run) Summary) Summary {
	var p Summary
	for _, r := range runs {
		p.Count += of(r).Count
	}
	if p.Count == 0 {
		return p
	}
	for _, r := range runs {
		s := of(r)
		p.Mean += float64(s.Count) / float64(p.Count) * s.Mean
		p.Median = max(p.Median, s.Median)
		p.P99 = max(p.P99, s.P99)
		p.Max = max(p.Max, s.Max)
	}
	return p
}

func add(dst, src map[string]int64) {
	for k, v := range src {
		dst[k] += v
	}
}
