package explore

import (
	"testing"
)

// BenchmarkOpenCubePaper is the explorer's speed case: the open-cube with
// its failure protocol as §5 writes it, N = 4, every node requesting once,
// one crash (ocbench explore --algo opencube --nodes 4 --crashes 1
// --protocol paper), on one worker and on two.
func BenchmarkOpenCubePaper(b *testing.B) {
	for _, w := range []int{1, 2} {
		b.Run(map[int]string{1: "workers=1", 2: "workers=2"}[w], func(b *testing.B) {
			var states int64
			for b.Loop() {
				e, err := New(Config{Algorithm: paperOpenCube(b, 4), Nodes: 4, Requests: 1, Crashes: 1,
					Ticks: 2, MinTicks: 1, CSTicks: 2, MaxStates: 1 << 30, Workers: w})
				if err != nil {
					b.Fatal(err)
				}
				res, err := e.Run()
				if err != nil {
					b.Fatal(err)
				}
				states += res.States
			}
			b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
		})
	}
}
