package workload

import (
	"math"
	"testing"

	"github.com/ocbench/ocbench/proto"
)

// clockHost is a Host whose time the test sets; it drops what the workload
// schedules.
type clockHost struct{ now float64 }

func (h *clockHost) Input(float64, proto.NodeID, proto.InputKind, uint32) {}
func (h *clockHost) After(float64, func())                                {}
func (h *clockHost) Now() float64                                         { return h.now }
func (h *clockHost) Down(proto.NodeID) bool                               { return false }

// TestObserveIssued: Observe counts a request issued now and reports it as
// the oldest wait, issued now; before it, nothing waits (+Inf, no node).
func TestObserveIssued(t *testing.T) {
	h := &clockHost{}
	d := New(h, Config{Kind: Poisson, Seed: 1, Nodes: 2, Requests: 10, Until: 1, CSTime: 0.01, Think: 0.1})
	d.Start()
	h.now = 3
	before := d.Observe()
	if !math.IsInf(before.WaitingSince, 1) || before.Waiting != proto.Nil {
		t.Fatalf("before any request: WaitingSince %g, Waiting %d; want +Inf and none", before.WaitingSince, before.Waiting)
	}
	d.issue(1)
	o := d.Observe()
	if o.Issued != before.Issued+1 || o.WaitingSince != h.now || o.Waiting != 1 {
		t.Errorf("after node 1 issued at %g: Issued %d (before %d), WaitingSince %g, Waiting %d", h.now, o.Issued, before.Issued, o.WaitingSince, o.Waiting)
	}
}
