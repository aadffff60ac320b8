package mizunoneilsenrao

import "github.com/ocbench/ocbench/algo"

func init() {
	algo.Register(Grid)
	algo.Register(Tree)
	algo.Register(OnPlane)
}
