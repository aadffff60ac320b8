package kakugawa

import (
	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/algo/kexcl"
)

func init() {
	algo.Register(Algorithm{Config: Config{Ell: kexcl.DefaultEll, K: 1}})
}
