package results

import (
	"fmt"
	"strconv"
)

// Stabilization is what runs of a self-stabilizing algorithm measured:
// per run, the time from the last transient fault until the legitimacy
// predicate held for good, in rounds of the algorithm (kofl: CToken
// traversals, Root's STARTs), in the round message's hops divided by N
// (kofl: CToken hops / N, the paper's "5n" unit), and in δ; over the runs
// of a merged record, their distributions.
type Stabilization struct {
	// Round names the algorithm's round ("traversal").
	Round string `json:"round"`
	// Bound is the paper's bound, in rounds (kofl: 5); 0 if none.
	Bound float64 `json:"bound_rounds,omitempty"`
	// Rounds, HopRounds and Delta summarize the stabilized runs.
	Rounds    Summary `json:"rounds"`
	HopRounds Summary `json:"hop_rounds"`
	Delta     Summary `json:"delta"`
	// Runs is every run's measure, in seed order.
	Runs []StabRun `json:"runs"`
	// OverBound are the runs whose Rounds exceed Bound, each with the
	// command that replays it.
	OverBound []StabRun `json:"over_bound,omitempty"`
	// NotStabilized counts the runs that never became legitimate (each
	// is a liveness violation).
	NotStabilized int `json:"not_stabilized"`
	// InventedCS counts the critical sections that faults invented (a
	// node left in the critical section, or with a request, by a fault):
	// the runtime ended them after the CS time.
	InventedCS int64 `json:"invented_cs"`
	// Injected counts the messages faults put in the links (junk,
	// duplicates), Destroyed those they took out.
	Injected  int64 `json:"messages_injected"`
	Destroyed int64 `json:"messages_destroyed"`
}

// StabRun is one run's stabilization.
type StabRun struct {
	Seed       uint64  `json:"seed"`
	Faults     int     `json:"faults"`
	Stabilized bool    `json:"stabilized"`
	Rounds     float64 `json:"rounds"`
	HopRounds  float64 `json:"hop_rounds"`
	Delta      float64 `json:"delta"`
	Replay     string  `json:"replay,omitempty"`
}

// Summarize fills Rounds, HopRounds, Delta, OverBound and NotStabilized
// from Runs (Replay of a run over the bound must be set).
func (s *Stabilization) Summarize() {
	var rounds, hops, delta []float64
	s.OverBound, s.NotStabilized = nil, 0
	for _, r := range s.Runs {
		if !r.Stabilized {
			s.NotStabilized++
			continue
		}
		rounds = append(rounds, r.Rounds)
		hops = append(hops, r.HopRounds)
		delta = append(delta, r.Delta)
		if s.Bound > 0 && r.Rounds > s.Bound {
			s.OverBound = append(s.OverBound, r)
		}
	}
	s.Rounds, s.HopRounds, s.Delta = Summarize(rounds), Summarize(hops), Summarize(delta)
}

// mergeStabilization pools the stabilization of runs (nil if none has one).
func mergeStabilization(runs []*Run) *Stabilization {
	var m *Stabilization
	for _, r := range runs {
		if r.Stabilization == nil {
			continue
		}
		if m == nil {
			m = &Stabilization{Round: r.Stabilization.Round, Bound: r.Stabilization.Bound}
		}
		m.Runs = append(m.Runs, r.Stabilization.Runs...)
		m.InventedCS += r.Stabilization.InventedCS
		m.Injected += r.Stabilization.Injected
		m.Destroyed += r.Stabilization.Destroyed
	}
	if m != nil {
		m.Summarize()
	}
	return m
}

// mergeK pools the k-exclusion counts of runs into m.
func mergeK(m *Run, runs []*Run) {
	m.KDistribution, m.EntriesStable, m.MessagesStable, m.MsgsPerEntry = nil, 0, 0, 0
	for _, r := range runs {
		if r.KDistribution != nil {
			if m.KDistribution == nil {
				m.KDistribution = map[string]int64{}
			}
			add(m.KDistribution, r.KDistribution)
		}
		m.EntriesStable += r.EntriesStable
		m.MessagesStable += r.MessagesStable
	}
	if m.EntriesStable > 0 {
		m.MsgsPerEntry = float64(m.MessagesStable) / float64(m.EntriesStable)
	}
}

// KMean returns the mean k of the requests of r's k distribution (0 if
// none).
func (r *Run) KMean() float64 {
	var n, sum int64
	for k, c := range r.KDistribution {
		v, err := strconv.Atoi(k)
		if err != nil {
			continue
		}
		n += c
		sum += int64(v) * c
	}
	if n == 0 {
		return 0
	}
	return float64(sum) / float64(n)
}

// StabilizationColumns are the columns of runs of a self-stabilizing
// k-exclusion algorithm with transient faults.
var StabilizationColumns = []Column{
	{"algorithm", func(r *Run) string { return r.Algorithm }},
	{"N", func(r *Run) string { return fmt.Sprint(r.Nodes) }},
	{"ℓ", func(r *Run) string { return dash(r.Ell) }},
	{"K", func(r *Run) string { return dash(r.KMax) }},
	{"mean k", func(r *Run) string { return fmt.Sprintf("%.2f", r.KMean()) }},
	{"runs", func(r *Run) string { return stab(r, func(s *Stabilization) string { return fmt.Sprint(len(s.Runs)) }) }},
	{"rounds mean", func(r *Run) string { return stab(r, func(s *Stabilization) string { return summaryMean(s.Rounds) }) }},
	{"p99", func(r *Run) string { return stab(r, func(s *Stabilization) string { return summaryP99(s.Rounds) }) }},
	{"max", func(r *Run) string {
		return stab(r, func(s *Stabilization) string { return summaryMax(s.Rounds) })
	}},
	{"hops/N max", func(r *Run) string { return stab(r, func(s *Stabilization) string { return summaryMax(s.HopRounds) }) }},
	{"δ mean", func(r *Run) string { return stab(r, func(s *Stabilization) string { return summaryMean(s.Delta) }) }},
	{"δ max", func(r *Run) string { return stab(r, func(s *Stabilization) string { return summaryMax(s.Delta) }) }},
	{"bound", func(r *Run) string {
		return stab(r, func(s *Stabilization) string {
			if s.Bound == 0 {
				return "-"
			}
			return num(s.Bound)
		})
	}},
	{"over bound", func(r *Run) string {
		return stab(r, func(s *Stabilization) string { return fmt.Sprint(len(s.OverBound)) })
	}},
	{"served", func(r *Run) string { return fmt.Sprintf("%d/%d", r.RequestsServed, r.RequestsIssued) }},
	{"msg/entry", func(r *Run) string { return fmt.Sprintf("%.2f", r.MsgsPerEntry) }},
	{"violations", func(r *Run) string { return fmt.Sprint(r.SafetyViolations + r.LivenessViolations) }},
}

func dash(x int) string {
	if x == 0 {
		return "-"
	}
	return fmt.Sprint(x)
}

func summaryMax(s Summary) string {
	if s.Count == 0 {
		return "-"
	}
	return num(s.Max)
}

func stab(r *Run, f func(*Stabilization) string) string {
	if r.Stabilization == nil {
		return "-"
	}
	return f(r.Stabilization)
}

// OverBoundLines describes the runs over the paper's bound, one line each
// with the command that replays it (at most limit lines, and a count of
// the rest).
func OverBoundLines(runs []*Run, limit int) []string {
	var out []string
	more := 0
	for _, r := range runs {
		if r.Stabilization == nil {
			continue
		}
		for _, o := range r.Stabilization.OverBound {
			if len(out) == limit {
				more++
				continue
			}
			out = append(out, fmt.Sprintf("over the bound (%s, N=%d): seed %d, %s rounds (%s hops/N, %sδ): %s",
				r.Algorithm, r.Nodes, o.Seed, num(o.Rounds), num(o.HopRounds), num(o.Delta), o.Replay))
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("… and %d more run(s) over the bound (--json lists them all)", more))
	}
	return out
}
