package bench

import (
	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/proto"
)

// lookup returns the registered algorithm called name (package algo), or
// nil.
func lookup(name string) proto.Algorithm {
	a, _ := algo.Lookup(name)
	return a
}

// Units returns the ℓ and K of a run of a k-exclusion algorithm, defaults
// filled in, and 0, 0 for any other algorithm.
func Units(s Spec) (ell, kmax int) {
	reg := lookup(s.Algorithm)
	if _, ok := reg.(proto.KExclusionAlgorithm); !ok {
		return 0, 0
	}
	return s.unitsWith(reg)
}

// InitialCosts returns c(i) for every node i of the algorithm called name
// at N = n: the messages of one lone request of node i from the initial
// configuration (initialCosts).
func InitialCosts(name string, n int) ([]int, error) {
	algo, err := algo.Get(name)
	if err != nil {
		return nil, err
	}
	return initialCosts(algo, n)
}
