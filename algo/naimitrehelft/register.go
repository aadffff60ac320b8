package naimitrehelft

import "github.com/ocbench/ocbench/algo"

func init() {
	algo.Register(Algorithm{})
}
