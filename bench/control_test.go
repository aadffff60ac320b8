package bench

import (
	"math"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/workload"
)

func controlPlan(t *testing.T, target faults.Target) *Plan {
	t.Helper()
	s, err := Spec{Algorithm: "opencube", Nodes: 8, Requests: 16, Workload: "poisson", Seed: 3, FT: true,
		Faults: faults.FaultPlan{Crashes: 3, Spacing: "fixed", Every: 10, Down: 5, DownDist: "fixed", Target: target}}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestControllerCrash checks the controller's crash decisions: the plan's
// victims taken down and brought back, a crash of a node already down
// skipped, and a targeted crash's victim chosen among the candidates.
func TestControllerCrash(t *testing.T) {
	c := NewController(controlPlan(t, "random"), ControlOptions{Until: 100})
	if c.Crashes() != 3 {
		t.Fatalf("Crashes() = %d, want 3", c.Crashes())
	}
	f := c.Fault(0)
	if f.Node < 0 || c.TargetedDue(f.At) {
		t.Fatalf("random plan: crash 0 is %+v, targeted due %v", f, c.TargetedDue(f.At))
	}
	v := c.Crash(0, nil, proto.Nil)
	if v != proto.NodeID(f.Node) || !c.Down(v) {
		t.Fatalf("Crash(0) = %d (down %v), want the plan's victim %d down", v, c.Down(v), f.Node)
	}
	c.plan[1].Node = int(v) // its victim is down: skipped
	if got := c.Crash(1, nil, proto.Nil); got != proto.Nil {
		t.Errorf("Crash of a node down = %d, want proto.Nil", got)
	}
	c.Recovered(v)
	if c.Down(v) || c.live != 8 {
		t.Errorf("after Recovered(%d): down %v, live %d", v, c.Down(v), c.live)
	}

	c = NewController(controlPlan(t, "token"), ControlOptions{Until: 100})
	f = c.Fault(0)
	if f.Node >= 0 || !c.TargetedDue(f.At) || c.TargetedDue(f.At+1) {
		t.Fatalf("token plan: crash 0 is %+v; TargetedDue at its time %v, later %v", f, c.TargetedDue(f.At), c.TargetedDue(f.At+1))
	}
	if v := c.Crash(0, []proto.NodeID{5}, proto.Nil); v != 5 {
		t.Errorf("targeted crash among one candidate took %d, want 5", v)
	}
	if c.TargetedDue(c.Fault(0).At) {
		t.Error("crash 0 is still due after Crash(0)")
	}
	if v := c.Crash(1, nil, 6); v != 6 {
		t.Errorf("targeted token crash with no holder took %d, want the token's destination 6", v)
	}
}

// TestControllerDecisions checks the sequential turn, the end of the
// workload and the watchdog's tick on observations.
func TestControllerDecisions(t *testing.T) {
	spec := controlPlan(t, "random")
	tests := []struct {
		name       string
		neverQuiet bool
		o          workload.Observation
		now        float64
		turn, over bool
	}{
		{"quiet turn", false, workload.Observation{Pending: true, Quiet: true}, 0, true, false},
		{"busy", false, workload.Observation{Pending: true, Quiet: true, Busy: 1, Issued: 1}, 0, false, false},
		{"in flight", false, workload.Observation{Pending: true}, 0, false, false},
		{"never quiet", true, workload.Observation{Pending: true}, 0, true, false},
		{"no request pending", false, workload.Observation{Quiet: true}, 0, false, false},
		{"before until", false, workload.Observation{Issued: 4, Served: 4}, 99, false, false},
		{"more to issue", false, workload.Observation{Issued: 4, Served: 4, More: true}, 100, false, false},
		{"one waits", false, workload.Observation{Issued: 4, Served: 2, Abandoned: 1}, 100, false, false},
		{"over", false, workload.Observation{Issued: 4, Served: 3, Abandoned: 1}, 100, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewController(spec, ControlOptions{Until: 100, NeverQuiet: tc.neverQuiet})
			if got := c.Turn(&tc.o); got != tc.turn {
				t.Errorf("Turn = %v, want %v", got, tc.turn)
			}
			if got := c.WorkloadOver(&tc.o, tc.now); got != tc.over || c.Over() != tc.over {
				t.Errorf("WorkloadOver = %v (Over %v), want %v", got, c.Over(), tc.over)
			}
			if tc.over && c.WorkloadOver(&tc.o, tc.now) {
				t.Error("WorkloadOver decided twice")
			}
		})
	}

	c := NewController(spec, ControlOptions{Until: 100, Watch: true})
	p := c.Period()
	if p != WatchPeriod(spec.Spec) {
		t.Fatalf("Period() = %v, want WatchPeriod %v", p, WatchPeriod(spec.Spec))
	}
	waits := workload.Observation{Issued: 2, Served: 1, WaitingSince: 0, Waiting: 3}
	if why := c.Tick(&waits, p, true); why != "" {
		t.Fatalf("first tick judged a stall: %s", why)
	}
	if why := c.Tick(&waits, p, false); why != "" {
		t.Fatalf("a tick not judged found a stall: %s", why)
	}
	if why := c.Tick(&waits, 2*p, true); why != "" {
		t.Fatalf("a tick after one not judged found a stall: %s", why)
	}
	if why := c.Tick(&waits, 3*p, true); !strings.Contains(why, "no request served") {
		t.Errorf("nothing served for a period while node 3 waits: %q, want a stall", why)
	}
	none := workload.Observation{Issued: 2, Served: 2, WaitingSince: math.Inf(1), Waiting: proto.Nil}
	c = NewController(spec, ControlOptions{Until: 100, Watch: true})
	for k := 1; k <= 3; k++ {
		if why := c.Tick(&none, float64(k)*p, true); why != "" {
			t.Errorf("tick %d with nothing waiting: %s", k, why)
		}
	}
}
