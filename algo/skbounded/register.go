package skbounded

import "github.com/ocbench/ocbench/algo"

func init() {
	algo.Register(Algorithm{L: DefaultL})
}
