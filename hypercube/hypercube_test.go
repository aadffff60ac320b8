package hypercube

import (
	"math/bits"
	"testing"
)

// The open-cube paper's 16-node facts, given there with 1-based ids.
func TestPaperSixteenNodeFacts(t *testing.T) {
	const p = 4
	powers := []struct{ paperNode, power int }{{1, 4}, {2, 0}, {3, 1}, {5, 2}, {9, 3}}
	for _, c := range powers {
		if got := power(c.paperNode-1, p); got != c.power {
			t.Errorf("power of paper node %d = %d, want %d", c.paperNode, got, c.power)
		}
	}
	for j := 2; j <= 16; j++ {
		want := 4
		switch {
		case j == 2:
			want = 1
		case j <= 4:
			want = 2
		case j <= 8:
			want = 3
		}
		if got := Dist(0, j-1); got != want {
			t.Errorf("dist(1,%d) = %d, want %d", j, got, want)
		}
	}
}

func TestInitialOpenCubeShape(t *testing.T) {
	for p := 0; p <= 10; p++ {
		n := 1 << p
		sons := make([][]int, n)
		for i := 0; i < n; i++ {
			f := Father(i)
			if i == 0 {
				if f != None {
					t.Fatalf("p=%d: root has father %d", p, f)
				}
				continue
			}
			// Proposition 2.1: if i is a son of f, power(i) = dist(f, i) − 1.
			if power(i, p) != Dist(f, i)-1 {
				t.Fatalf("p=%d: power(%d)=%d but dist(father=%d)=%d", p, i, power(i, p), f, Dist(f, i))
			}
			sons[f] = append(sons[f], i)
		}
		for i := 0; i < n; i++ {
			pw := power(i, p)
			if len(sons[i]) != pw {
				t.Fatalf("p=%d: node %d of power %d has %d sons", p, i, pw, len(sons[i]))
			}
			seen := map[int]bool{}
			for _, s := range sons[i] {
				seen[power(s, p)] = true
			}
			for r := 0; r < pw; r++ {
				if !seen[r] || son(i, r) == None || Father(son(i, r)) != i {
					t.Fatalf("p=%d: node %d lacks a son of power %d", p, i, r)
				}
			}
			if ls := lastSon(i, p); pw > 0 && power(ls, p) != pw-1 {
				t.Fatalf("p=%d: last son %d of %d has power %d", p, ls, i, power(ls, p))
			}
		}
	}
}

func TestAtDistance(t *testing.T) {
	for p := 1; p <= 8; p++ {
		n := 1 << p
		for i := 0; i < n; i++ {
			total := 0
			for d := 1; d <= p; d++ {
				lo, hi := AtDistance(i, d)
				if hi-lo != 1<<(d-1) {
					t.Fatalf("p=%d i=%d d=%d: %d nodes, want %d", p, i, d, hi-lo, 1<<(d-1))
				}
				for j := lo; j < hi; j++ {
					if Dist(i, j) != d {
						t.Fatalf("p=%d: dist(%d,%d)=%d, listed at %d", p, i, j, Dist(i, j), d)
					}
				}
				total += hi - lo
			}
			if total != n-1 {
				t.Fatalf("p=%d i=%d: distances cover %d nodes, want %d", p, i, total, n-1)
			}
		}
	}
}

func TestLog2AndValidate(t *testing.T) {
	cases := []struct {
		n, p int
		ok   bool
	}{{1, 0, true}, {2, 1, true}, {1024, 10, true}, {0, 0, false}, {-4, 0, false}, {6, 0, false}}
	for _, c := range cases {
		p, ok := Log2(c.n)
		if ok != c.ok || (ok && p != c.p) {
			t.Errorf("Log2(%d) = %d,%v want %d,%v", c.n, p, ok, c.p, c.ok)
		}
	}
	if Validate(1, 2) == nil || Validate(3, 2) == nil || Validate(4, 2) != nil {
		t.Error("Validate accepts or rejects the wrong sizes")
	}
}

func TestHops(t *testing.T) {
	if Hops(0, 7) != 3 || Hops(5, 5) != 0 || Hops(4, 6) != 1 {
		t.Error("Hops is not the Hamming distance")
	}
}

func TestPlacementsKeepLinksLocal(t *testing.T) {
	for _, name := range Placements {
		for _, c := range []struct{ n, p int }{{32, 32}, {64, 32}, {64, 4}, {8, 1}, {1024, 16}} {
			pl, err := NewPlacement(name, c.n, c.p)
			if err != nil {
				t.Fatal(err)
			}
			count := 0
			for r := 0; r < c.p; r++ {
				for _, i := range pl.Nodes(r) {
					if pl.Rank(i) != r {
						t.Fatalf("%s %d/%d: node %d listed on %d, placed on %d", name, c.n, c.p, i, r, pl.Rank(i))
					}
					count++
				}
			}
			if count != c.n {
				t.Fatalf("%s %d/%d: ranks host %d nodes", name, c.n, c.p, count)
			}
			for i := 0; i < c.n; i++ {
				for b := 1; b < c.n; b <<= 1 {
					if h := Hops(pl.Rank(i), pl.Rank(i^b)); h > 1 {
						t.Fatalf("%s %d/%d: link %d-%d spans %d rank hops", name, c.n, c.p, i, i^b, h)
					}
				}
			}
		}
	}
}

func TestNewPlacementErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		n, p int
	}{{"block", 4, 8}, {"block", 6, 2}, {"block", 8, 3}, {"spiral", 8, 2}} {
		if _, err := NewPlacement(c.name, c.n, c.p); err == nil {
			t.Errorf("NewPlacement(%q, %d, %d) accepted", c.name, c.n, c.p)
		}
	}
}

// TestPowerWith: with the initial fathers, PowerWith is power; a root has
// power p whatever its id; otherwise the power is dist(i, father) − 1.
func TestPowerWith(t *testing.T) {
	const p = 5
	for i := 0; i < 1<<p; i++ {
		if got, want := PowerWith(i, Father(i), p), power(i, p); got != want {
			t.Errorf("node %d under its initial father %d: power %d, want %d", i, Father(i), got, want)
		}
	}
	for _, c := range []struct{ i, father, want int }{{7, -1, p}, {7, 6, 0}, {7, 5, 1}, {7, 0, 2}, {7, 24, 4}} {
		if got := PowerWith(c.i, c.father, p); got != c.want {
			t.Errorf("PowerWith(%d, %d, %d) = %d, want %d", c.i, c.father, p, got, c.want)
		}
	}
}

// power returns the power of node i in the initial open-cube of 2^p nodes:
// p for the root 0, otherwise the number of trailing zero bits of i.
func power(i, p int) int {
	if i == 0 {
		return p
	}
	return bits.TrailingZeros(uint(i))
}

// son returns the son of power r of node i in the initial open-cube; it
// exists for 0 ≤ r < power(i, p).
func son(i, r int) int {
	return i | 1<<r
}

// lastSon returns the son of i of power power(i)−1 in the initial open-cube
// of 2^p nodes, or None if i is a leaf.
func lastSon(i, p int) int {
	pw := power(i, p)
	if pw == 0 {
		return None
	}
	return son(i, pw-1)
}
