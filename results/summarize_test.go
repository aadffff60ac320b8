package results

import (
	"math/rand/v2"
	"testing"
)

// TestSummarizeSelect checks that summarizeSelect gives what sorting gives,
// bit for bit, on samples of many shapes: few distinct values, sorted,
// reversed, uniform, heavy-tailed, with infinities.
func TestSummarizeSelect(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func(i, n int) float64{
		"small ints": func(int, int) float64 { return float64(rng.IntN(5)) },
		"constant":   func(int, int) float64 { return 3 },
		"sorted":     func(i, _ int) float64 { return float64(i) / 7 },
		"reversed":   func(i, n int) float64 { return float64(n-i) * 1.5 },
		"uniform":    func(int, int) float64 { return rng.Float64() },
		"tail":       func(int, int) float64 { return rng.ExpFloat64() * rng.ExpFloat64() * 100 },
		"inf":        func(i, _ int) float64 { return []float64{1, 2, 1e308, -1e308, 5}[rng.IntN(5)] + float64(i%3) },
		"organ":      func(i, n int) float64 { return float64(min(i, n-i)) },
	}
	for name, gen := range gens {
		for _, n := range []int{64, 65, 99, 100, 101, 128, 1000, 1001, 4097, 100000} {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = gen(i, n)
			}
			got, want := summarizeSelect(xs), summarizeSort(xs)
			if got != want {
				t.Errorf("%s, n=%d: selection %+v, sort %+v", name, n, got, want)
			}
		}
	}
}
