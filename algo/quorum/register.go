package quorum

import "github.com/ocbench/ocbench/algo"

func init() {
	algo.Register(Maekawa)
	algo.Register(MaekawaGrid)
	algo.Register(AgrawalElAbbadi)
}
