package sktoken

import (
	"strings"
	"testing"

	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

func id(v View) View { return v }

// TestFind: the token held or in flight, and each of Find's checks failing.
func TestFind(t *testing.T) {
	isToken := func(m *proto.Message) bool { return m.Type == 1 }
	token := func(to proto.NodeID, tag uint32) proto.Message { return proto.Message{Type: 1, To: to, Tag: tag} }
	for _, c := range []struct {
		name    string
		nodes   []View
		pending []proto.Message
		owner   proto.NodeID
		err     string
	}{
		{"held", []View{{}, {TokenHere: true}}, nil, 1, ""},
		{"in flight", []View{{}, {Asked: true, Tag: 4}}, []proto.Message{{Type: 0, To: 0}, token(1, 4)}, 1, ""},
		{"in the CS without it", []View{{InCS: true}, {TokenHere: true}}, nil, 0, "node 0 is in the critical section without the token"},
		{"none", []View{{}, {}}, []proto.Message{{Type: 0, To: 1}}, 0, "no token"},
		{"to a node not asking", []View{{TokenHere: true}, {}}, []proto.Message{token(1, 0)}, 0, "not waiting"},
		{"to a node in the CS", []View{{}, {TokenHere: true, Asked: true, InCS: true}}, []proto.Message{token(1, 0)}, 0, "not waiting"},
		{"with another serial", []View{{}, {Asked: true, Tag: 4}}, []proto.Message{token(1, 3)}, 0, "with tag 3, its request is 4"},
	} {
		got, err := Find(steptest.System(nil, c.pending), c.nodes, id, isToken)
		switch {
		case c.err == "" && (err != nil || got.Owner != c.owner || got.Flying != (len(c.pending) > 0)):
			t.Errorf("%s: %+v, %v; want owner %d", c.name, got, err, c.owner)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		}
	}
}

// TestHolderKnows: an up-to-date holder passes; a holder behind a node's
// request, or idle beside a waiting node, fails.
func TestHolderKnows(t *testing.T) {
	for _, c := range []struct {
		name  string
		nodes []View
		err   string
	}{
		{"up to date", []View{{TokenHere: true, Req: []int64{1, 2}}, {Req: []int64{1, 2}}}, ""},
		{"no holder", []View{{Req: []int64{0, 0}}, {Req: []int64{1, 2}}}, ""},
		{"behind", []View{{TokenHere: true, Req: []int64{1, 1}}, {Req: []int64{1, 2}}}, "the holder 0 has RN[1] = 1, node 1's own is 2"},
		{"idle", []View{{TokenHere: true, Req: []int64{1, 2}}, {Asked: true, Req: []int64{1, 2}}}, "node 1 waits while the holder 0 is idle"},
		{"in the CS", []View{{TokenHere: true, InCS: true, Asked: true, Req: []int64{1, 2}}, {Asked: true, Req: []int64{1, 2}}}, ""},
	} {
		err := HolderKnows(c.nodes, id, "RN")
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
}
