package sanders

import "github.com/ocbench/ocbench/algo"

func init() {
	algo.Register(Quorums)
	algo.Register(Broadcasts)
}
