package hypercube

import (
	"fmt"
	"sort"
)

// Placement maps N logical nodes onto P ranks (both powers of two, N ≥ P).
// Every placement here keeps hypercube links local: two nodes that differ in
// one bit are hosted on the same rank or on two ranks that differ in one bit,
// so a hypercube dimension of the open-cube maps onto a rank-to-rank
// hypercube link or stays inside a rank.
type Placement interface {
	// Name is the placement's flag value.
	Name() string
	// Rank returns the rank that hosts node i.
	Rank(i int) int
	// Nodes returns the nodes hosted by rank r, in increasing order.
	Nodes(r int) []int
}

// Placements lists the names accepted by NewPlacement; the first is the default.
var Placements = []string{"block", "cyclic"}

// NewPlacement returns the placement called name for n nodes on p ranks.
func NewPlacement(name string, n, p int) (Placement, error) {
	if err := Validate(n, 1); err != nil {
		return nil, fmt.Errorf("placement: nodes: %w", err)
	}
	if err := Validate(p, 1); err != nil {
		return nil, fmt.Errorf("placement: ranks: %w", err)
	}
	if n < p {
		return nil, fmt.Errorf("placement: %d nodes cannot fill %d ranks (need nodes ≥ ranks)", n, p)
	}
	switch name {
	case "block":
		return block{n: n, p: p}, nil
	case "cyclic":
		return cyclic{n: n, p: p}, nil
	}
	return nil, fmt.Errorf("placement: unknown placement %q (allowed: block, cyclic)", name)
}

// block puts nodes [r·N/P, (r+1)·N/P) on rank r: the high bits of a node id
// are its rank, the low log2(N/P) dimensions stay inside a rank. The
// open-cube's small groups (its frequent, short-distance traffic) are local.
type block struct{ n, p int }

func (b block) Name() string   { return "block" }
func (b block) Rank(i int) int { return i / (b.n / b.p) }
func (b block) Nodes(r int) []int {
	per := b.n / b.p
	out := make([]int, per)
	for k := range out {
		out[k] = r*per + k
	}
	return out
}

// cyclic puts node i on rank i mod P: the low bits of a node id are its rank,
// the high log2(N/P) dimensions stay inside a rank.
type cyclic struct{ n, p int }

func (c cyclic) Name() string   { return "cyclic" }
func (c cyclic) Rank(i int) int { return i % c.p }
func (c cyclic) Nodes(r int) []int {
	var out []int
	for i := r; i < c.n; i += c.p {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}
