// Package floatsort sorts float64s in linear time: a least-significant-
// digit radix sort of their bits, for the large samples of a run's record
// (a wait per request), where a comparison sort's mispredicted branches
// cost more than the rest of building the record.
package floatsort

import (
	"math"
	"slices"
)

// radixMin is the shortest slice Sort radix-sorts: below it, slices.Sort
// is as fast.
const radixMin = 256

// digit is the width of a radix digit in bits: 2^11 counters fit in L1.
const digit = 11

// Sort sorts xs in increasing order, as slices.Sort does: the same values
// in the same order, but that -0 comes before +0 (slices.Sort holds them
// equal). A slice that holds a NaN is sorted by slices.Sort.
func Sort(xs []float64) {
	if len(xs) < radixMin || slices.ContainsFunc(xs, math.IsNaN) {
		slices.Sort(xs)
		return
	}
	keys := make([]uint64, len(xs))
	for i, x := range xs {
		keys[i] = key(x)
	}
	tmp := make([]uint64, len(xs))
	var count [1 << digit]int
	for shift := 0; shift < 64; shift += digit {
		clear(count[:])
		for _, k := range keys {
			count[k>>shift&(1<<digit-1)]++
		}
		if count[keys[0]>>shift&(1<<digit-1)] == len(keys) {
			continue // every key has this digit: the pass would not move one
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, k := range keys {
			d := k >> shift & (1<<digit - 1)
			tmp[count[d]] = k
			count[d]++
		}
		keys, tmp = tmp, keys
	}
	for i, k := range keys {
		xs[i] = value(k)
	}
}

// key maps x to a uint64 whose unsigned order is x's order: a positive
// number's bits with the sign bit set, a negative number's bits inverted.
func key(x float64) uint64 {
	b := math.Float64bits(x)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// value is key's inverse.
func value(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}
