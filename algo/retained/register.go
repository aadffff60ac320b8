package retained

import "github.com/ocbench/ocbench/algo"

func init() {
	algo.Register(CarvalhoRoucairol)
	algo.Register(Singhal)
}
