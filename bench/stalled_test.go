package bench

import (
	"strings"
	"testing"

	"github.com/ocbench/ocbench/proto"
)

// clockHost is a Host whose time the test sets; it drops what the
// workload schedules.
type clockHost struct{ now float64 }

func (h *clockHost) Input(float64, proto.NodeID, proto.InputKind, uint32) {}
func (h *clockHost) After(float64, func())                                {}
func (h *clockHost) Now() float64                                         { return h.now }
func (h *clockHost) Down(proto.NodeID) bool                               { return false }

// TestStalledCountNeverCloses: past the workload's end, with nothing
// waiting but more entries than requests (a node entered for a request it
// no longer had), the watchdog says so instead of letting the run wait for
// ever; before the end, or while requests are served, it does not.
func TestStalledCountNeverCloses(t *testing.T) {
	const until, period, delta = 1.0, 0.5, 0.001
	for _, c := range []struct {
		name       string
		now        float64
		lastServed int64
		want       string
	}{
		{"before the end", until + period/2, 1, ""},
		{"served since", until + 2*period, 0, ""},
		{"stuck", until + 2*period, 1, "0 requests were issued, 1 served and 0 abandoned, and none waits"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &clockHost{}
			d := NewWorkload(h, WorkloadConfig{Kind: "poisson", Seed: 1, Nodes: 2, Requests: 1, Until: until, CSTime: 0.01, Think: 0.1})
			d.Start()
			d.Entered(0, 1) // no request pending
			h.now = c.now
			got := d.Stalled(c.lastServed, period, delta)
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("Stalled = %q, want %q", got, c.want)
			}
		})
	}
}
