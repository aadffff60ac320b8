package bench

import (
	"strings"
	"testing"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/sim"
)

// lying is an exchange of two processes, of which this is process 0, that
// answers every Swap with the parcels in and vec as the total (the other
// process adding nothing).
type lying struct {
	Local
	in []Parcel
}

func (l lying) Processes() (int, int) { return 2, 0 }

func (l lying) Swap(_ [][]Parcel, vec []int64, _ int) ([]Parcel, []int64, error) {
	return l.in, vec, nil
}

// TestRunPartsRefuses: RunParts refuses placements that do not fit the
// specs or the exchange, and parcels that are not for this process.
func TestRunPartsRefuses(t *testing.T) {
	spec, err := Filled(Spec{Algorithm: "opencube", Nodes: 8, Requests: 4, Workload: "poisson", MinDelay: MinVirtualDelay, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	halves := []int{0, 0, 0, 0, 1, 1, 1, 1}
	msg := func(to proto.NodeID) []sim.Remote {
		return []sim.Remote{{T: 1, Msg: proto.Message{From: 4, To: to}}}
	}
	for _, c := range []struct {
		name   string
		fast   bool // a min-delay below the window
		ex     Exchange
		owners [][]int
		want   string
	}{
		{"not splittable", true, Local{}, [][]int{halves}, "MinDelay"},
		{"owners of another N", false, Local{}, [][]int{{0, 1, 0, 1}}, "4 owners for 8 nodes"},
		{"no placement", false, Local{}, nil, "0 placements for 1 specs"},
		{"no spec", false, Local{}, [][]int{}, "no spec"},
		{"fewer parts than processes", false, lying{}, [][]int{make([]int, 8)}, "parts 0 to 0 for 2 processes"},
		{"a parcel of another run", false, lying{in: []Parcel{{Run: 5, Msgs: msg(0)}}}, [][]int{halves}, "run 5, which this job does not run"},
		{"a message for another process's node", false, lying{in: []Parcel{{Run: 0, Msgs: msg(6)}}}, [][]int{halves}, "node 6, which process 0 does not host"},
		{"a log without a mirror", false, lying{in: []Parcel{{Run: 0, Log: []sim.LogEntry{{}}}}}, [][]int{halves}, "does not keep its mirror"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := spec
			if c.fast {
				s.MinDelay = 0.25
			}
			plans := []*Plan{MustResolve(s)}
			if c.owners != nil && len(c.owners) == 0 {
				plans = nil
			}
			_, err := RunParts(c.ex, plans, c.owners)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one with %q", err, c.want)
			}
		})
	}
}
