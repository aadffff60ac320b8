package algo

import (
	"testing"

	"github.com/ocbench/ocbench/proto"
)

// TestAtMost: the upper-bound kind has its own name in records, and a
// measurement may be divided by its bound.
func TestAtMost(t *testing.T) {
	if got := AtMost.String(); got != "bound" {
		t.Errorf("AtMost.String() = %q, want \"bound\"", got)
	}
	for _, k := range []proto.CostKind{proto.Exact, proto.Range, proto.Order, proto.Derived} {
		if k == AtMost {
			t.Errorf("AtMost equals kind %v", k)
		}
	}
	if !(proto.Cost{High: 30, Kind: AtMost}).Comparable() {
		t.Error("an upper bound is not comparable")
	}
	if (proto.Cost{Kind: AtMost}).Comparable() {
		t.Error("an upper bound without a figure is comparable")
	}
}
