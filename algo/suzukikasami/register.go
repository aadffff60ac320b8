package suzukikasami

import "github.com/ocbench/ocbench/algo"

func init() {
	algo.Register(Algorithm{})
	algo.Register(Bounded{L: DefaultL})
}
