package steptest

import (
	"testing"

	"github.com/ocbench/ocbench/proto"
)

// TestFull: Full prints every field of a message, with the net's numbering
// and nil for no node.
func TestFull(t *testing.T) {
	types := []proto.MessageType{{Name: "request"}, {Name: "token", Token: true}, {Name: "test", Arg: "phase"}, {Name: "wait"}}
	cases := []struct {
		base proto.NodeID
		m    proto.Message
		want string
	}{
		{1, proto.Message{Type: 0, From: 6, To: 4, J: 7, Src: 7, Tag: 8},
			"request(8) 7→5 {cause normal, phase 0, reply 0, j 8, src 8, gen 0, tag 8}"},
		{0, proto.Message{Type: 1, Cause: proto.Failure, From: 2, To: 3, J: proto.Nil, Src: 3, Gen: 1<<32 | 3, Tag: 5},
			"token(nil) 2→3 {cause failure, phase 0, reply 0, j nil, src 3, gen 4294967299, tag 5}"},
		{1, proto.Message{Type: 2, Cause: proto.Failure, Phase: 3, From: 0, To: 4, J: proto.Nil, Src: proto.Nil},
			"test(3) 1→5 {cause failure, phase 3, reply 0, j nil, src nil, gen 0, tag 0}"},
		{1, proto.Message{Type: 3, Cause: proto.Liveness, Phase: 2, From: 0, To: 1, J: 0, Src: proto.Nil, Gen: 4, Tag: 9},
			"wait(1) 1→2 {cause liveness, phase 2, reply 0, j 1, src nil, gen 4, tag 9}"},
		{1, proto.Message{Type: 1, From: 0, To: 1, J: proto.Nil, Src: 1, Tag: 3, Payload: []int64{2, 0, -1}},
			"token(nil) 1→2 {cause normal, phase 0, reply 0, j nil, src 2, gen 0, tag 3, payload [2 0 -1]}"},
	}
	for _, c := range cases {
		n := &Net{T: t, Base: c.base, Types: types}
		if got := n.Full(c.m); got != c.want {
			t.Errorf("Full = %q, want %q", got, c.want)
		}
	}
}
