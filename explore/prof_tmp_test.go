package explore

import (
	"os"
	"strconv"
	"testing"

	"github.com/ocbench/ocbench/bench"
)

func TestProfTmp(t *testing.T) {
	if os.Getenv("PROF") == "" {
		t.Skip()
	}
	plan, err := bench.Spec{Algorithm: "opencube", Nodes: 4, Requests: 1, Seed: 1, Workload: bench.Sequential, CSTime: bench.DefaultCSTime, FT: true, Protocol: bench.ProtocolPaper}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	w, _ := strconv.Atoi(os.Getenv("PROF"))
	res := explored(t, Config{Algorithm: plan.Algorithm, Nodes: 4, Requests: 1, Crashes: 1, Ticks: 2, MinTicks: 1, CSTicks: 2, MaxStates: 50_000_000, Workers: w})
	t.Logf("%d states %v %.0f/s", res.States, res.Elapsed, float64(res.States)/res.Elapsed.Seconds())
}
