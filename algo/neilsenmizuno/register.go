package neilsenmizuno

import "github.com/ocbench/ocbench/algo"

func init() {
	algo.Register(Algorithm{})
	algo.Register(OnStar)
	algo.Register(OnLine)
}
