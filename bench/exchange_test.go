package bench

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/sim"
)

// TestBoundaryRoundTrip: a report's numbers, its world view and messages
// come back as they were written.
func TestBoundaryRoundTrip(t *testing.T) {
	r := snapshot{Next: 0.25, InFlight: 3, InCS: 1, Holders: 1, Tokens: 0, Issued: 9, Served: 8, Abandoned: 1, Busy: 1,
		QuotaLeft: 4, Steps: 1234, Halted: 0, Waiting: 5, WaitingSince: 0.125, Candidates: []proto.NodeID{2, 7}, TokenDest: 3,
		tokenAt: sim.Mark{T: 0.5, Key: 77}}
	sums, mins := r.appendVector(nil, nil)
	if len(sums) != reportSums || len(mins) != reportMins {
		t.Fatalf("%d sums, %d mins", len(sums), len(mins))
	}
	got, err := fromVector(sums, mins, &r)
	if err != nil {
		t.Fatal(err)
	}
	var w snapshot
	if _, err := readWorld(appendWorld(nil, &r), 8, &w); err != nil {
		t.Fatal(err)
	}
	got.Candidates, got.TokenDest, got.tokenAt = w.Candidates, w.TokenDest, w.tokenAt
	if !reflect.DeepEqual(got, r) {
		t.Errorf("got %+v\nwant %+v", got, r)
	}
	none := snapshot{Next: math.Inf(1), Waiting: proto.Nil, WaitingSince: math.Inf(1), TokenDest: proto.Nil}
	sums, mins = none.appendVector(nil, nil)
	if back, _ := fromVector(sums, mins, &none); back.Waiting != proto.Nil || !math.IsInf(back.Next, 1) || !math.IsInf(back.WaitingSince, 1) {
		t.Errorf("no event, no waiting node: got %+v", back)
	}
	msgs := []sim.Remote{
		{T: 1.5, Sent: 1, Key: 42, Msg: proto.Message{Type: 1, From: 0, To: 6, Tag: 3}},
		{T: 2, Sent: 1.25, Key: 43, Msg: proto.Message{Type: 2, From: 1, To: 7, Payload: []int64{1, -2}, J: proto.RefTo(4)}},
	}
	b := AppendRemotes(nil, msgs, 9)
	back, rest, err := ReadRemotes(b, 8, 9)
	if err != nil || len(rest) != 0 || !reflect.DeepEqual(back, msgs) {
		t.Errorf("messages: got %+v, rest %d, err %v", back, len(rest), err)
	}
	if _, _, err := ReadRemotes(b, 8, 10); !errors.Is(err, ErrBoundary) {
		t.Errorf("another job's digest: err %v", err)
	}
	if _, _, err := ReadRemotes(b, 4, 9); !errors.Is(err, ErrBoundary) {
		t.Errorf("a node beyond N: err %v", err)
	}
}

// FuzzReadBoundary: malformed bytes are an error, never a panic.
func FuzzReadBoundary(f *testing.F) {
	r := snapshot{Candidates: []proto.NodeID{1}, TokenDest: 2}
	f.Add(appendWorld(nil, &r))
	f.Add(AppendRemotes(nil, []sim.Remote{{T: 1, Sent: 0.5, Key: 1, Msg: proto.Message{To: 3}}}, 0))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		var s snapshot
		readWorld(b, 8, &s)
		msgs, _, err := ReadRemotes(b, 8, 0)
		for _, m := range msgs {
			if err == nil && (m.Msg.To < 0 || m.Msg.To >= 8 || m.T < m.Sent) {
				t.Errorf("accepted %+v", m)
			}
		}
	})
}
