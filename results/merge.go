package results

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
	var waits, diffs, samples []float64
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
	}
	zero(&m)
	var phases float64
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

		waits = append(waits, r.WaitDelta.Mean)
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
	if m.SearchesStarted > 0 {
		m.SearchPhasesMean = phases / float64(m.SearchesStarted)
	}
	m.SetDetectionPerRequest()
	// Per-request statistics: the mean is pooled exactly; the quantiles of a
	// merged record are the largest over the seeds (a conservative choice).
	served := float64(0)
	for _, r := range runs {
		served += float64(r.MsgsPerRequest.Count)
	}
	m.MsgsPerRequest = Summary{Count: int(served)}
	for _, r := range runs {
		w := float64(r.MsgsPerRequest.Count) / served
		m.MsgsPerRequest.Mean += w * r.MsgsPerRequest.Mean
		m.MsgsPerRequest.Median = max(m.MsgsPerRequest.Median, r.MsgsPerRequest.Median)
		m.MsgsPerRequest.P99 = max(m.MsgsPerRequest.P99, r.MsgsPerRequest.P99)
		m.MsgsPerRequest.Max = max(m.MsgsPerRequest.Max, r.MsgsPerRequest.Max)
	}
	m.WaitDelta = Summary{Count: len(waits)}
	m.WaitDelta.Mean = Estimated(waits).Mean
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

func add(dst, src map[string]int64) {
	for k, v := range src {
		dst[k] += v
	}
}
