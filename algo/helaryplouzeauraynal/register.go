package helaryplouzeauraynal

import "github.com/ocbench/ocbench/algo"

func init() {
	algo.Register(OnComplete)
	algo.Register(OnLine)
	algo.Register(OnRing)
	algo.Register(OnTree)
}
