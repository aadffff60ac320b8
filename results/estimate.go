package results

import (
	"github.com/ocbench/ocbench/hypercube"
	"math"

	"github.com/montanaflynn/stats"
)

// Estimate is the mean of a sample with its sample standard deviation and a
// 95% confidence interval for the mean (Student's t; n ≥ 2). With fewer than
// two values the interval is absent (null in JSON).
type Estimate struct {
	N        int      `json:"n"`
	Mean     float64  `json:"mean"`
	Stddev   float64  `json:"stddev"`
	CI95Low  *float64 `json:"ci95_low"`
	CI95High *float64 `json:"ci95_high"`
}

// t975 holds Student's t quantile 0.975 for 1..30 degrees of freedom.
var t975 = [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// tQuantile returns the 0.975 quantile of Student's t with df degrees of freedom.
func tQuantile(df int) float64 {
	switch {
	case df <= len(t975):
		return t975[df-1]
	case df <= 60:
		return 2.042 - (2.042-2.000)*float64(df-30)/30
	case df <= 120:
		return 2.000 - (2.000-1.980)*float64(df-60)/60
	}
	return 1.960
}

// Estimated returns the estimate of the mean of xs.
func Estimated(xs []float64) Estimate {
	e := Estimate{N: len(xs)}
	if len(xs) == 0 {
		return e
	}
	e.Mean, _ = stats.Mean(xs)
	if len(xs) < 2 {
		return e
	}
	e.Stddev, _ = stats.StandardDeviationSample(xs)
	h := tQuantile(len(xs)-1) * e.Stddev / math.Sqrt(float64(len(xs)))
	lo, hi := e.Mean-h, e.Mean+h
	e.CI95Low, e.CI95High = &lo, &hi
	return e
}

// PowerStratum is the overhead per failure of the crashes whose victims had
// one power.
type PowerStratum struct {
	Power    int     `json:"power"`
	Failures int     `json:"failures"`
	Mean     float64 `json:"mean"`
	// Share is the fraction of an open-cube's nodes that have this power.
	Share float64 `json:"share"`
}

// ByPower splits per-failure samples by the power of their victims (powers
// in the same order) in a system of n nodes, and returns the strata and the
// stratified mean: Σ share·mean over the sampled powers, divided by the sum
// of their shares (0 without samples).
func ByPower(samples []float64, powers []int, n int) ([]PowerStratum, float64) {
	if len(samples) == 0 || len(powers) != len(samples) {
		return nil, 0
	}
	pmax, ok := hypercube.Log2(n)
	if !ok {
		return nil, 0
	}
	sums := make([]float64, pmax+1)
	counts := make([]int, pmax+1)
	for k, p := range powers {
		if p < 0 || p > pmax {
			continue
		}
		sums[p] += samples[k]
		counts[p]++
	}
	var out []PowerStratum
	var num, den float64
	for p := 0; p <= pmax; p++ {
		if counts[p] == 0 {
			continue
		}
		share := 1 / float64(n) // the root
		if p < pmax {
			share = 1 / float64(uint64(2)<<p)
		}
		m := sums[p] / float64(counts[p])
		out = append(out, PowerStratum{Power: p, Failures: counts[p], Mean: m, Share: share})
		num += share * m
		den += share
	}
	return out, num / den
}
