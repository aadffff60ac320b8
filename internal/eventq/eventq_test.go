package eventq

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestOrder: whatever the order of pushes, pops come out by time, then by
// key, for random times with many ties, pushes and pops interleaved.
func TestOrder(t *testing.T) {
	for _, c := range []struct {
		name  string
		n     int
		times int // distinct times: few means many ties
	}{{"empty-ish", 1, 1}, {"ties", 500, 3}, {"spread", 2000, 1 << 20}} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(c.n)))
			var q Queue
			var want, got []Item
			for k := range c.n {
				x := Item{T: float64(rng.IntN(c.times)), Key: uint64(k), Idx: int32(k)}
				q.Push(x)
				want = append(want, x)
				if rng.IntN(4) == 0 { // pop now and then: the earliest so far
					got = append(got, q.Pop())
				}
			}
			for len(q) > 0 {
				got = append(got, q.Pop())
			}
			// Popping early changes which items are earliest when popped;
			// check the pops against a replay on a sorted list.
			rng = rand.New(rand.NewPCG(1, uint64(c.n)))
			var pending, replay []Item
			for k := range c.n {
				pending = append(pending, Item{T: float64(rng.IntN(c.times)), Key: uint64(k), Idx: int32(k)})
				if rng.IntN(4) == 0 {
					slices.SortFunc(pending, cmp)
					replay, pending = append(replay, pending[0]), pending[1:]
				}
			}
			slices.SortFunc(pending, cmp)
			replay = append(replay, pending...)
			if !slices.Equal(got, replay) || len(got) != len(want) {
				t.Errorf("popped %d items, not in (time, key) order", len(got))
			}
		})
	}
}

func cmp(a, b Item) int {
	switch {
	case a.Before(b):
		return -1
	case b.Before(a):
		return 1
	}
	return 0
}
