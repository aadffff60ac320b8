package explore

import (
	"os"
	"testing"

	"github.com/ocbench/ocbench/algo"
)

func TestProf(t *testing.T) {
	a, _ := algo.Lookup(os.Getenv("ALG"))
	e, _ := New(Config{Algorithm: a, Nodes: 4, Requests: 1, MaxStates: 200000})
	r, err := e.Run()
	t.Logf("%+v %v %.0f/s", r, err, float64(r.States)/r.Elapsed.Seconds())
}
