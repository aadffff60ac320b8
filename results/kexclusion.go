package results

import (
	"fmt"
	"reflect"
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
	Round string `json:"round" merge:"same"`
	// Bound is the paper's bound, in rounds (kofl: 5); 0 if none.
	Bound float64 `json:"bound_rounds,omitempty" merge:"same"`
	// Rounds, HopRounds and Delta summarize the stabilized runs.
	Rounds    Summary `json:"rounds" merge:"custom"`
	HopRounds Summary `json:"hop_rounds" merge:"custom"`
	Delta     Summary `json:"delta" merge:"custom"`
	// AsyncRounds summarizes the stabilized runs' times in asynchronous
	// rounds (a round ends once every message in flight at its start is
	// received), the unit of self-stabilization papers: kofl's bound of 5
	// traversals is 5n of them (AsyncBound).
	AsyncRounds Summary `json:"async_rounds" merge:"custom"`
	// AsyncBound is the paper's bound in asynchronous rounds for the
	// record's N (kofl: 5n); 0 if none.
	AsyncBound float64 `json:"bound_async_rounds,omitempty" merge:"same"`
	// OverAsyncBound counts the runs whose AsyncRounds exceed AsyncBound.
	OverAsyncBound int `json:"over_async_bound" merge:"custom"`
	// Runs is every run's measure, in seed order.
	Runs []StabRun `json:"runs" merge:"append"`
	// OverBound are the runs whose Rounds exceed Bound, each with the
	// command that replays it.
	OverBound []StabRun `json:"over_bound,omitempty" merge:"custom"`
	// NotStabilized counts the runs that never became legitimate (each
	// is a liveness violation).
	NotStabilized int `json:"not_stabilized" merge:"custom"`
	// InventedCS counts the critical sections that faults invented (a
	// node left in the critical section, or with a request, by a fault):
	// the runtime ended them after the CS time.
	InventedCS int64 `json:"invented_cs" merge:"sum"`
	// Injected counts the messages faults put in the links (junk,
	// duplicates), Destroyed those they took out.
	Injected  int64 `json:"messages_injected" merge:"sum"`
	Destroyed int64 `json:"messages_destroyed" merge:"sum"`
}

// StabRun is one run's stabilization.
type StabRun struct {
	Seed       uint64  `json:"seed"`
	Faults     int     `json:"faults"`
	Stabilized bool    `json:"stabilized"`
	Rounds     float64 `json:"rounds"`
	HopRounds  float64 `json:"hop_rounds"`
	Delta      float64 `json:"delta"`
	// AsyncRounds is the time in asynchronous rounds (Stabilization).
	AsyncRounds float64 `json:"async_rounds"`
	Replay      string  `json:"replay,omitempty"`
}

// Summarize fills Rounds, HopRounds, Delta, OverBound and NotStabilized
// from Runs (Replay of a run over the bound must be set).
func (s *Stabilization) Summarize() {
	var rounds, hops, delta, async []float64
	s.OverBound, s.NotStabilized, s.OverAsyncBound = nil, 0, 0
	for _, r := range s.Runs {
		if !r.Stabilized {
			s.NotStabilized++
			continue
		}
		rounds = append(rounds, r.Rounds)
		hops = append(hops, r.HopRounds)
		delta = append(delta, r.Delta)
		async = append(async, r.AsyncRounds)
		if s.AsyncBound > 0 && r.AsyncRounds > s.AsyncBound {
			s.OverAsyncBound++
		}
		if s.Bound > 0 && r.Rounds > s.Bound {
			s.OverBound = append(s.OverBound, r)
		}
	}
	s.Rounds, s.HopRounds, s.Delta, s.AsyncRounds = Summarize(rounds), Summarize(hops), Summarize(delta), Summarize(async)
}

// mergeStabilization merges the stabilization of the runs that have one
// by the merge tags of Stabilization (nil if none has one): their per-run
// measures are concatenated, and their distributions summarized again.
func mergeStabilization(runs []*Run) *Stabilization {
	var ss []*Stabilization
	for _, r := range runs {
		if r.Stabilization != nil {
			ss = append(ss, r.Stabilization)
		}
	}
	if len(ss) == 0 {
		return nil
	}
	var m Stabilization
	stabPlan.merge(reflect.ValueOf(&m).Elem(), values(ss))
	m.Summarize()
	return &m
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
	{"traversals mean", func(r *Run) string { return stab(r, func(s *Stabilization) string { return summaryMean(s.Rounds) }) }},
	{"p99", func(r *Run) string { return stab(r, func(s *Stabilization) string { return summaryP99(s.Rounds) }) }},
	{"max", func(r *Run) string {
		return stab(r, func(s *Stabilization) string { return summaryMax(s.Rounds) })
	}},
	{"hops/N max", func(r *Run) string { return stab(r, func(s *Stabilization) string { return summaryMax(s.HopRounds) }) }},
	{"async rounds max", func(r *Run) string {
		return stab(r, func(s *Stabilization) string { return summaryMax(s.AsyncRounds) })
	}},
	{"5n as rounds", func(r *Run) string {
		return stab(r, func(s *Stabilization) string {
			if s.AsyncBound == 0 {
				return "-"
			}
			return fmt.Sprintf("%s (%d over)", num(s.AsyncBound), s.OverAsyncBound)
		})
	}},
	{"δ mean", func(r *Run) string { return stab(r, func(s *Stabilization) string { return summaryMean(s.Delta) }) }},
	{"δ max", func(r *Run) string { return stab(r, func(s *Stabilization) string { return summaryMax(s.Delta) }) }},
	{"bound (traversals)", func(r *Run) string {
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
