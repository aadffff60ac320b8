package tokennode

import (
	"testing"

	"github.com/ocbench/ocbench/proto"
)

// TestGate: every input kind, from the states that matter, gives the
// action and the state the package comment promises.
func TestGate(t *testing.T) {
	up := State{}
	holder := State{TokenHere: true}
	asked := State{Asked: true, Tag: 4}
	inCS := State{Asked: true, InCS: true, TokenHere: true, Tag: 4}
	for _, c := range []struct {
		name  string
		from  State
		in    proto.Input
		want  Action
		to    State
		enter bool
	}{
		{"enter without the token", up, proto.Input{Kind: proto.EnterCS, Tag: 7}, Ask, State{Asked: true, Tag: 7}, false},
		{"enter at the idle token", holder, proto.Input{Kind: proto.EnterCS, Tag: 7}, Done, State{Asked: true, InCS: true, TokenHere: true, Tag: 7}, true},
		{"enter twice", asked, proto.Input{Kind: proto.EnterCS, Tag: 9}, Done, asked, false},
		{"exit", inCS, proto.Input{Kind: proto.ExitCS}, Leave, State{TokenHere: true, Tag: 4}, false},
		{"exit outside", asked, proto.Input{Kind: proto.ExitCS}, Done, asked, false},
		{"receive", asked, proto.Input{Kind: proto.Receive}, Deliver, asked, false},
		{"timer", asked, proto.Input{Kind: proto.Fire}, Done, asked, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.from
			var out proto.Output
			if got := s.Gate(c.in, &out); got != c.want {
				t.Errorf("action %d, want %d", got, c.want)
			}
			if s != c.to {
				t.Errorf("state %+v, want %+v", s, c.to)
			}
			if out.Enter != c.enter || len(out.Msgs) != 0 {
				t.Errorf("output enter=%v msgs=%d, want enter=%v and no message", out.Enter, len(out.Msgs), c.enter)
			}
		})
	}
	if v := inCS.View(); !v.Up || !v.InCS || !v.Asked || !v.TokenHere || v.Tag != 4 || inCS.Waits() || !asked.Waits() {
		t.Errorf("view %+v, waits %v %v", v, inCS.Waits(), asked.Waits())
	}
}
