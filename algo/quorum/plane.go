package quorum

import (
	"slices"
	"sync"

	"github.com/ocbench/ocbench/proto"
)

// Plane is Maekawa's algorithm on his √N quorums: the lines of a finite
// projective plane. The plane of order q (q prime) has q² + q + 1 points
// and as many lines, q + 1 points on every line and q + 1 lines through
// every point, and any two lines meet in exactly one point. When n =
// q² + q + 1 the nodes are its points and node i's quorum is a line
// through i, every line the quorum of one node: K = q + 1 ≈ √n, and every
// node is in K quorums (Maekawa's conditions). For any other n the
// construction takes the plane of the least prime q with q² + q + 1 ≥ n
// and folds its points onto the nodes, point p onto node p mod n: the
// images of two lines still share the image of their common point, node i
// still lies on its own line (i < n is not folded), and a quorum has at
// most q + 1 nodes (fewer when two of its points fold onto one node). This
// folding is the project's (docs/algorithms/maekawa.md says what is
// Maekawa's and what is not).
//
// Points and lines are the nonzero vectors of GF(q)³ up to a scalar, each
// written with its first nonzero coordinate 1: (1, a, b) is point a·q + b,
// (0, 1, b) point q² + b, (0, 0, 1) point q² + q; the same numbering for
// lines. Point x lies on line l when x·l = 0 (mod q). Which line is node
// i's: a perfect matching of points to lines through them (the incidence
// graph is (q+1)-regular, so one exists; found by augmenting paths, point
// 0 first, lines in increasing order).
type Plane struct{}

// Name implements Quorums.
func (Plane) Name() string { return "maekawa" }

// Quorum implements Quorums: the line matched to point i, folded onto n
// nodes.
func (Plane) Quorum(i proto.NodeID, n int) []proto.NodeID {
	return slices.Clone(planeQuorums(n).quorums[i])
}

// Size implements Quorums: the largest folded line, q + 1 when n = q² + q
// + 1.
func (Plane) Size(n int) int { return planeQuorums(n).size }

// Order returns the plane's order q for n nodes: the least prime q with
// q² + q + 1 ≥ n, and whether n = q² + q + 1 (no folding).
func (Plane) Order(n int) (q int, exact bool) {
	q = 2
	for q*q+q+1 < n || !prime(q) {
		q++
	}
	return q, q*q+q+1 == n
}

func prime(q int) bool {
	if q < 2 {
		return false
	}
	for d := 2; d*d <= q; d++ {
		if q%d == 0 {
			return false
		}
	}
	return true
}

// planeSystem is the quorums of every node of an n-node system.
type planeSystem struct {
	quorums [][]proto.NodeID
	size    int
}

var planes sync.Map // n → *planeSystem

func planeQuorums(n int) *planeSystem {
	if s, ok := planes.Load(n); ok {
		return s.(*planeSystem)
	}
	s := buildPlane(n)
	planes.Store(n, s)
	return s
}

func buildPlane(n int) *planeSystem {
	if n <= 1 {
		return &planeSystem{quorums: [][]proto.NodeID{{0}}, size: 1}
	}
	q, _ := Plane{}.Order(n)
	lines := planeLines(q)
	match := matchPoints(lines)
	s := &planeSystem{quorums: make([][]proto.NodeID, n)}
	for i := range n {
		var ids []proto.NodeID
		for _, p := range lines[match[i]] {
			ids = append(ids, proto.NodeID(p%n))
		}
		slices.Sort(ids)
		ids = slices.Compact(ids)
		s.quorums[i] = slices.Clip(ids)
		s.size = max(s.size, len(ids))
	}
	return s
}

// vec returns the coordinates of point (or line) number k of the plane of
// order q.
func vec(k, q int) [3]int {
	switch {
	case k < q*q:
		return [3]int{1, k / q, k % q}
	case k < q*q+q:
		return [3]int{0, 1, k - q*q}
	}
	return [3]int{0, 0, 1}
}

// index returns the number of the point (or line) with coordinates x, not
// all 0, scaled so that its first nonzero coordinate is 1.
func index(x [3]int, q int) int {
	for i := range 3 {
		if x[i] != 0 {
			inv := power(x[i], q-2, q)
			for j := range 3 {
				x[j] = x[j] * inv % q
			}
			break
		}
	}
	switch {
	case x[0] == 1:
		return x[1]*q + x[2]
	case x[1] == 1:
		return q*q + x[2]
	}
	return q*q + q
}

// power returns b^e mod q.
func power(b, e, q int) int {
	r := 1
	for b %= q; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = r * b % q
		}
		b = b * b % q
	}
	return r
}

// planeLines returns the points of every line of the plane of order q:
// two points P, Q of line l span it, its points are Q and P + t·Q for t in
// GF(q).
func planeLines(q int) [][]int {
	v := q*q + q + 1
	out := make([][]int, v)
	for k := range v {
		l := vec(k, q)
		var p, r [3]int // l·p = l·r = 0, p and r independent
		neg := func(x int) int { return (q - x%q) % q }
		switch {
		case l[2] != 0:
			inv := power(l[2], q-2, q)
			p = [3]int{1, 0, neg(l[0] * inv)}
			r = [3]int{0, 1, neg(l[1] * inv)}
		case l[1] != 0:
			inv := power(l[1], q-2, q)
			p = [3]int{1, neg(l[0] * inv), 0}
			r = [3]int{0, 0, 1}
		default:
			p, r = [3]int{0, 1, 0}, [3]int{0, 0, 1}
		}
		pts := make([]int, 0, q+1)
		pts = append(pts, index(r, q))
		for t := range q {
			pts = append(pts, index([3]int{(p[0] + t*r[0]) % q, (p[1] + t*r[1]) % q, (p[2] + t*r[2]) % q}, q))
		}
		slices.Sort(pts)
		out[k] = pts
	}
	return out
}

// matchPoints returns, for every point, a line through it, no line twice:
// Kuhn's augmenting paths over the incidence graph, after a greedy pass.
func matchPoints(lines [][]int) []int {
	v := len(lines)
	through := make([][]int, v) // the lines through each point, increasing
	for l, pts := range lines {
		for _, p := range pts {
			through[p] = append(through[p], l)
		}
	}
	pointOf := make([]int, v) // line → matched point, −1 if none
	lineOf := make([]int, v)  // point → matched line
	for i := range v {
		pointOf[i], lineOf[i] = -1, -1
	}
	for p := range v {
		for _, l := range through[p] {
			if pointOf[l] < 0 {
				pointOf[l], lineOf[p] = p, l
				break
			}
		}
	}
	seen := make([]int, v) // the search that last visited each line
	var augment func(p, stamp int) bool
	augment = func(p, stamp int) bool {
		for _, l := range through[p] {
			if seen[l] == stamp {
				continue
			}
			seen[l] = stamp
			if pointOf[l] < 0 || augment(pointOf[l], stamp) {
				pointOf[l], lineOf[p] = p, l
				return true
			}
		}
		return false
	}
	for p := range v {
		if lineOf[p] < 0 && !augment(p, p+1) {
			panic("quorum: no perfect matching in a projective plane") // a regular bipartite graph has one
		}
	}
	return lineOf
}
