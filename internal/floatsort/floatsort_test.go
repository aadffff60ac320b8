package floatsort

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSort: Sort gives the sequence slices.Sort gives, bit for bit, on
// samples of every shape a record sorts and more: short and long, few and
// many distinct values, negatives, infinities, subnormals, already sorted
// or reversed, and with a NaN (left to slices.Sort).
func TestSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gen := map[string]func(i int) float64{
		"uniform":  func(int) float64 { return rng.Float64() },
		"waits":    func(int) float64 { return float64(rng.IntN(40))*0.5 + rng.Float64() },
		"few":      func(int) float64 { return float64(rng.IntN(3)) },
		"signed":   func(int) float64 { return rng.NormFloat64() * 1e6 },
		"sorted":   func(i int) float64 { return float64(i) / 7 },
		"reversed": func(i int) float64 { return -float64(i) },
		"extremes": func(i int) float64 {
			return []float64{math.Inf(1), math.Inf(-1), 5e-324, -5e-324, math.MaxFloat64, 0, 1}[i%7]
		},
		"exponents":  func(int) float64 { return math.Ldexp(rng.Float64(), rng.IntN(2000)-1000) },
		"one value":  func(int) float64 { return 3.25 },
		"with a NaN": func(i int) float64 { return []float64{math.NaN(), 1, 2}[min(i, 1+i%2)] },
	}
	for name, g := range gen {
		for _, n := range []int{0, 1, 2, radixMin - 1, radixMin, 1000, 100000} {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = g(i)
			}
			want := slices.Clone(xs)
			slices.Sort(want)
			Sort(xs)
			for i := range xs {
				if math.Float64bits(xs[i]) != math.Float64bits(want[i]) && !(math.IsNaN(xs[i]) && math.IsNaN(want[i])) {
					t.Fatalf("%s, %d values: at %d got %v, slices.Sort gives %v", name, n, i, xs[i], want[i])
				}
			}
		}
	}
}

// TestSignedZeros: -0 comes before +0, the one difference from slices.Sort
// (which holds them equal, so either order is sorted).
func TestSignedZeros(t *testing.T) {
	xs := make([]float64, radixMin)
	for i := range xs {
		xs[i] = math.Copysign(0, float64(i%2)-0.5)
	}
	Sort(xs)
	for i, x := range xs {
		if neg := math.Signbit(x); neg != (i < radixMin/2) {
			t.Fatalf("at %d: %v", i, x)
		}
	}
}

// BenchmarkSort compares Sort with slices.Sort on a run's waits (10^5
// requests).
func BenchmarkSort(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 100000)
	for i := range xs {
		xs[i] = float64(rng.IntN(40))*0.5 + rng.Float64()
	}
	d := make([]float64, len(xs))
	for _, c := range []struct {
		name string
		sort func([]float64)
	}{{"radix", Sort}, {"slices", slices.Sort[[]float64]}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				copy(d, xs)
				c.sort(d)
			}
		})
	}
}
