// Package bench defines ocbench's experiments: the algorithms that can be
// run, the workloads (who asks for the critical section, when, for how long),
// and what is measured; it runs an experiment on a runtime and returns a
// results.Run.
package bench

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ocbench/ocbench/algo/kofl"
	"github.com/ocbench/ocbench/algo/lamport"
	"github.com/ocbench/ocbench/algo/mishrasrimani"
	"github.com/ocbench/ocbench/algo/naimitrehelft"
	"github.com/ocbench/ocbench/algo/neilsenmizuno"
	"github.com/ocbench/ocbench/algo/nishio"
	"github.com/ocbench/ocbench/algo/quorum"
	"github.com/ocbench/ocbench/algo/ratoken"
	"github.com/ocbench/ocbench/algo/raymondkex"
	"github.com/ocbench/ocbench/algo/retained"
	"github.com/ocbench/ocbench/algo/ricartagrawala"
	"github.com/ocbench/ocbench/algo/singhaltoken"
	"github.com/ocbench/ocbench/algo/srimanireddy"
	"github.com/ocbench/ocbench/algo/suzukikasami"
	"github.com/ocbench/ocbench/opencube"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
)

// Algorithms are the algorithms ocbench can run, by flag value.
var Algorithms = map[string]proto.Algorithm{
	"opencube":              opencube.Algorithm{},
	"naimi-trehel":          scheme.Algorithm{Rule: scheme.NaimiTrehel{}},
	"naimi-trehel-ft":       naimitrehelft.Algorithm{},
	"raymond":               scheme.Algorithm{Rule: scheme.Raymond{}},
	"centralized":           scheme.Algorithm{Rule: scheme.Centralized{}},
	"lamport":               lamport.Algorithm{},
	"ricart-agrawala":       ricartagrawala.Algorithm{},
	"maekawa":               quorum.Maekawa,
	"agrawal-el-abbadi":     quorum.AgrawalElAbbadi,
	"suzuki-kasami":         suzukikasami.Algorithm{},
	"ricart-agrawala-token": ratoken.Algorithm{},
	"carvalho-roucairol":    retained.CarvalhoRoucairol,
	"singhal":               retained.Singhal,
	"singhal-token":         singhaltoken.Algorithm{},
	"neilsen-mizuno":        neilsenmizuno.Algorithm{},
	"nishio":                nishio.Algorithm{},
	"mishra-srimani":        mishrasrimani.Algorithm{},
	"kofl":                  koflAlgorithm{kofl.Algorithm{Config: kofl.Config{Ell: DefaultEll, K: DefaultEll}}},
	"raymond-kex":           raymondkex.Algorithm{Config: raymondkex.Config{Ell: DefaultEll, K: 1}},
	"srimani-reddy":         srimanireddy.Algorithm{Config: srimanireddy.Config{Ell: DefaultEll, K: 1}},
}

// Survey names the survey's algorithms (Velazquez 1993, Tables 1 and 2),
// permission-based first: what --algo survey runs.
var Survey = []string{
	"lamport", "ricart-agrawala", "carvalho-roucairol", "maekawa", "agrawal-el-abbadi", "singhal",
	"suzuki-kasami", "ricart-agrawala-token", "singhal-token", "neilsen-mizuno",
}

// AlgorithmNames returns the algorithm names: open-cube first, then the
// general scheme's other instances, then the survey's (Survey's order).
func AlgorithmNames() []string {
	names := []string{"opencube"}
	var rest []string
	for k := range Algorithms {
		if k != "opencube" && !slices.Contains(Survey, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(append(names, rest...), Survey...)
}

// FaultTolerant returns the names of the algorithms with a failure protocol
// (proto.FaultTolerantAlgorithm), in AlgorithmNames' order: what --algo ft
// runs.
func FaultTolerant() []string {
	var out []string
	for _, k := range AlgorithmNames() {
		if _, ok := Algorithms[k].(proto.FaultTolerantAlgorithm); ok {
			out = append(out, k)
		}
	}
	return out
}

// Algorithm returns the algorithm called name.
func Algorithm(name string) (proto.Algorithm, error) {
	a, ok := Algorithms[name]
	if !ok {
		return nil, fmt.Errorf("unknown algorithm %q (allowed: %s)", name, strings.Join(AlgorithmNames(), ", "))
	}
	return a, nil
}

// NeedsFIFO reports whether the algorithm called name assumes FIFO
// channels (proto.FIFOAlgorithm): its runs deliver in sending order between
// each pair of nodes whatever the spec says.
func NeedsFIFO(name string) bool {
	f, ok := Algorithms[name].(proto.FIFOAlgorithm)
	return ok && f.NeedsFIFO()
}
