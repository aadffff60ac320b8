package scheme

import "github.com/ocbench/ocbench/algo"

func init() {
	algo.Register(Algorithm{Rule: NaimiTrehel{}})
	algo.Register(Algorithm{Rule: Raymond{}})
	algo.Register(Algorithm{Rule: Centralized{}})
	algo.Register(Algorithm{Rule: Raymond{}, Lift: true})
	algo.Register(Algorithm{Rule: Topology{Net: Hypercube{}}})
}
