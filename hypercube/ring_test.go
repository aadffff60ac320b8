package hypercube

import "testing"

// TestGrayRingHops: for every n = 2 … 2^16, the Gray ring visits every node
// once, every hop (the closing one included) is one hypercube link,
// RingNext and RingPrev walk it both ways, and GrayRank inverts Gray.
func TestGrayRingHops(t *testing.T) {
	for n := 2; n <= 1<<16; n <<= 1 {
		ring := GrayRing(n)
		seen := make([]bool, n)
		for k, i := range ring {
			if i < 0 || i >= n || seen[i] {
				t.Fatalf("n=%d: position %d holds node %d (out of range or seen twice)", n, k, i)
			}
			seen[i] = true
			if GrayRank(i) != k {
				t.Fatalf("n=%d: GrayRank(%d) = %d, want %d", n, i, GrayRank(i), k)
			}
			next := ring[(k+1)%n]
			if h := Hops(i, next); h != 1 {
				t.Fatalf("n=%d: hop %d → %d (positions %d → %d) crosses %d links, want 1", n, i, next, k, (k+1)%n, h)
			}
			if RingNext(i, n) != next || RingPrev(next, n) != i {
				t.Fatalf("n=%d: RingNext(%d) = %d, RingPrev(%d) = %d; the ring says %d → %d", n, i, RingNext(i, n), next, RingPrev(next, n), i, next)
			}
		}
		if ring[0] != 0 {
			t.Fatalf("n=%d: the ring starts at %d, want 0", n, ring[0])
		}
	}
}

// TestGrayRingSmall pins the rings of 2, 4 and 8 nodes.
func TestGrayRingSmall(t *testing.T) {
	for _, c := range []struct {
		n    int
		want []int
	}{
		{2, []int{0, 1}},
		{4, []int{0, 1, 3, 2}},
		{8, []int{0, 1, 3, 2, 6, 7, 5, 4}},
	} {
		got := GrayRing(c.n)
		for k := range got {
			if got[k] != c.want[k] {
				t.Fatalf("GrayRing(%d) = %v, want %v", c.n, got, c.want)
			}
		}
	}
}

// TestGrayRingOnPlacements: with every placement, a ring hop stays inside
// a rank or crosses one rank-to-rank link.
func TestGrayRingOnPlacements(t *testing.T) {
	for _, name := range Placements {
		for n := 2; n <= 1<<12; n <<= 1 {
			for p := 1; p <= n; p <<= 1 {
				pl, err := NewPlacement(name, n, p)
				if err != nil {
					t.Fatal(err)
				}
				for i := range n {
					if h := Hops(pl.Rank(i), pl.Rank(RingNext(i, n))); h > 1 {
						t.Fatalf("%s n=%d p=%d: hop %d → %d crosses %d rank links", name, n, p, i, RingNext(i, n), h)
					}
				}
			}
		}
	}
}
