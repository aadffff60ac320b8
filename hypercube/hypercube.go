// Package hypercube provides the arithmetic of an N-node open-cube (N = 2^p)
// and of a hypercube of MPI ranks: node ids, distances, powers, the initial
// open-cube, the nodes at a given distance, placement of nodes on ranks, hop
// counts, and the unidirectional Gray-code ring (ring.go).
//
// Node ids are 0-based: the open-cube paper's node k is id k−1 here. With
// 0-based ids the initial open-cube is the binomial tree in which the father
// of i is i with its lowest set bit cleared (root 0), and dist(i, j) is the
// index of the highest bit in which i and j differ, plus one. Nothing here is
// stored per pair of nodes: every function computes its answer from ids.
package hypercube

import (
	"fmt"
	"math/bits"
)

// None is the id used for "no node" (the paper's nil).
const None = -1

// Log2 returns p such that n = 2^p, and whether n is a power of two (n ≥ 1).
func Log2(n int) (int, bool) {
	if n < 1 || n&(n-1) != 0 {
		return 0, false
	}
	return bits.TrailingZeros(uint(n)), true
}

// MaxNodes is the largest N of a run (2^26): bench.Spec.Validate refuses
// more, and the readers of saved runs and traces refuse node numbers and
// counts beyond it.
const MaxNodes = 1 << 26

// Validate returns an error unless n is a power of two and at least min.
func Validate(n, min int) error {
	if _, ok := Log2(n); !ok || n < min {
		return fmt.Errorf("%d is not a power of two ≥ %d", n, min)
	}
	return nil
}

// Dist returns the open-cube distance of nodes i and j: the smallest d such
// that i and j belong to the same d-group (0 when i == j). A b-transformation
// never changes it, so it is a constant of the pair.
func Dist(i, j int) int {
	return bits.Len(uint(i ^ j))
}

// PowerWith returns the power of node i whose father is father (negative:
// i is a root) in an open-cube of 2^p nodes: dist(i, father) − 1, or p at a
// root (open-cube paper, Proposition 2.1). Unlike Power, it holds for any
// father relation, not only the initial one.
func PowerWith(i, father, p int) int {
	if father < 0 {
		return p
	}
	return Dist(i, father) - 1
}

// Father returns the father of node i in the initial open-cube (None for the
// root 0): i with its lowest set bit cleared.
func Father(i int) int {
	if i == 0 {
		return None
	}
	return i & (i - 1)
}

// AtDistance returns the half-open id range [lo, hi) of the nodes at distance
// d ≥ 1 from i. They are contiguous: i with bit d−1 flipped and the d−1 lower
// bits free, so there are 2^(d−1) of them.
func AtDistance(i, d int) (lo, hi int) {
	low := 1<<(d-1) - 1
	lo = (i ^ 1<<(d-1)) &^ low
	return lo, lo + low + 1
}

// Hops returns the number of hypercube links between ranks a and b (their
// Hamming distance).
func Hops(a, b int) int {
	return bits.OnesCount(uint(a ^ b))
}
