package results

// PaperFigure is a figure reported by the open-cube paper (§6, conclusion):
// the average number of overhead messages per failure measured on an Intel
// iPSC/2 hypercube with 32 physical nodes.
type PaperFigure struct {
	Nodes       int
	Failures    int
	PerFailure  float64
	Arrangement string
}

// IPSC2 are the paper's two measurements.
var IPSC2 = []PaperFigure{
	{Nodes: 32, Failures: 300, PerFailure: 8, Arrangement: "one process per physical node"},
	{Nodes: 64, Failures: 200, PerFailure: 9.75, Arrangement: "two processes per physical node"},
}

// PaperPerFailure returns the paper's overhead per failure for n nodes, if
// it reports one.
func PaperPerFailure(n int) (float64, bool) {
	for _, f := range IPSC2 {
		if f.Nodes == n {
			return f.PerFailure, true
		}
	}
	return 0, false
}
