package raynal

import "github.com/ocbench/ocbench/algo"

func init() {
	algo.Register(Algorithm{Wait: DefaultWait})
}
