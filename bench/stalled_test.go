package bench

import (
	"strings"
	"testing"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/workload"
)

// clockHost is a workload.Host whose time the test sets; it drops what the
// workload schedules.
type clockHost struct{ now float64 }

func (h *clockHost) Input(float64, proto.NodeID, proto.InputKind, uint32) {}
func (h *clockHost) After(float64, func())                                {}
func (h *clockHost) Now() float64                                         { return h.now }
func (h *clockHost) Down(proto.NodeID) bool                               { return false }

// TestStalledCountNeverCloses: with nothing waiting but more entries than
// requests (a node entered for a request it no longer had), the watchdog
// says so instead of letting the run wait for ever for the count to close;
// while requests are served, or when one was issued just now, it does not.
func TestStalledCountNeverCloses(t *testing.T) {
	const until, period, delta = 1.0, 0.5, 0.001
	for _, c := range []struct {
		name       string
		issue      bool // node 1 issues a request at the time of the test
		lastServed int64
		want       string
	}{
		{"served since", false, 0, ""},
		{"stuck", false, 1, "none waits, yet 0 requests were issued, 1 served and 0 abandoned"},
		{"a request issued just now", true, 1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &clockHost{}
			d := workload.New(h, workload.Config{Kind: "poisson", Seed: 1, Nodes: 2, Requests: 10, Until: until, CSTime: 0.01, Think: 0.1})
			d.Start()
			d.Entered(0, 1)          // no request pending
			h.now = until + 2*period // past the end: requests may go on (a quota of requests)
			o := d.Observe()
			if c.issue { // as Observe reports it (workload.TestObserveIssued)
				o.Issued, o.WaitingSince, o.Waiting = o.Issued+1, h.now, 1
			}
			got := stall(o.Issued, o.Served, o.Abandoned, c.lastServed, o.WaitingSince, o.Waiting, h.now, period, delta, 1)
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("stall of Observe = %q, want %q", got, c.want)
			}
		})
	}
}
