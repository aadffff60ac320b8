package hypercube

// The unidirectional ring of the hypercube: the reflected binary Gray code
// visits every node of an n-node hypercube (n = 2^p) once, and two
// consecutive codes differ in one bit, as do the last (2^(p−1)) and the
// first (0). So the ring gray(0) → gray(1) → … → gray(n−1) → gray(0) is a
// Hamiltonian cycle of the hypercube: every ring hop is one hypercube link
// (and, with the placements of this package, one rank-to-rank link or none).
// Node 0 is at ring position 0.

// Gray returns the node at ring position k: the reflected binary Gray code
// k xor k/2.
func Gray(k int) int { return k ^ k>>1 }

// GrayRank returns the ring position of node g, the inverse of Gray: the
// xor of all of g's right shifts.
func GrayRank(g int) int {
	k := g
	for s := 1; s < 64; s <<= 1 {
		k ^= k >> s
	}
	return k
}

// RingNext returns the successor of node i on the Gray ring of n = 2^p
// nodes (n ≥ 2): the node it sends to.
func RingNext(i, n int) int { return Gray((GrayRank(i) + 1) & (n - 1)) }

// RingPrev returns the predecessor of node i on the Gray ring of n nodes:
// the node it receives from.
func RingPrev(i, n int) int { return Gray((GrayRank(i) - 1) & (n - 1)) }

// GrayRing returns the n nodes in ring order, starting at node 0.
func GrayRing(n int) []int {
	ring := make([]int, n)
	for k := range ring {
		ring[k] = Gray(k)
	}
	return ring
}
