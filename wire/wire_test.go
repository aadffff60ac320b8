package wire

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/ocbench/ocbench/opencube"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
)

var sample = []proto.Message{
	{Type: scheme.Request, Cause: proto.Normal, From: 3, To: 1, J: proto.RefTo(3), Src: proto.RefTo(3), Stamp: 1, Tag: 7},
	{Type: scheme.Token, Cause: proto.Failure, From: 1, To: 3, Src: proto.RefTo(3), Stamp: 5<<32 | 2, Tag: 7},
	{Type: opencube.Test, Cause: proto.Failure, Phase: 5, From: 0, To: 31},
	{Type: opencube.Answer, Cause: proto.Failure, Reply: opencube.AnswerTryLater, From: 31, To: 0},
	{Type: opencube.Wait, Cause: proto.Liveness, From: 2, To: 4, J: proto.RefTo(9), Stamp: math.MaxUint64, Tag: math.MaxUint32},
}

// withPayload are messages with payloads: a token with a vector and a
// queue, one word, and the most words a record carries.
var withPayload = []proto.Message{
	{Type: scheme.Token, From: 1, To: 2, Src: proto.RefTo(2), Tag: 4, Payload: []int64{3, 0, 7, -1, math.MaxInt64, math.MinInt64}},
	{Type: scheme.Request, From: 0, To: 3, J: proto.RefTo(0), Src: proto.RefTo(0), Tag: 9, Payload: []int64{42}},
	{Type: scheme.Token, From: 3, To: 0, Src: proto.RefTo(0), Tag: 9, Payload: make([]int64, MaxPayload)},
}

func TestRoundTrip(t *testing.T) {
	buf := Encode(Header{Digest: 0xdeadbeef, Run: 3, Sent: 1.25}, sample)
	if len(buf) != HeaderSize+RecordSize*len(sample) {
		t.Fatalf("frame of %d messages is %d bytes", len(sample), len(buf))
	}
	h, got, err := Decode(buf, 32, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h.Run != 3 || h.Count != len(sample) || h.Sent != 1.25 || h.Digest != 0xdeadbeef {
		t.Errorf("header %+v", h)
	}
	if !reflect.DeepEqual(got, sample) {
		t.Errorf("decoded\n%+v\nwant\n%+v", got, sample)
	}
}

// TestEveryPhase: Phase is a byte whose meaning the algorithm gives (a
// search phase, naimi-trehel-ft's count of request sendings mod 256, the
// open-cube's chase hop limit up to 255): every value crosses the wire.
func TestEveryPhase(t *testing.T) {
	for p := 0; p < 256; p++ {
		m := sample[0]
		m.Phase = uint8(p)
		_, got, err := Decode(Encode(Header{}, []proto.Message{m}), 32, nil)
		if err != nil || len(got) != 1 || got[0].Phase != uint8(p) {
			t.Fatalf("phase %d: decoded %+v, %v", p, got, err)
		}
	}
}

// TestPayloadRoundTrip: payloads of every length up to MaxPayload come back
// word for word, mixed with messages without one (decoded with a nil
// payload), and a frame's length is the sum of its records'.
func TestPayloadRoundTrip(t *testing.T) {
	msgs := append(append([]proto.Message{}, sample...), withPayload...)
	buf := Encode(Header{Run: 2, Sent: 0.5}, msgs)
	size := HeaderSize
	for k := range msgs {
		size += RecordLen(&msgs[k])
	}
	if len(buf) != size || RecordLen(&withPayload[0]) != RecordSize+48 {
		t.Fatalf("frame of %d bytes, want %d", len(buf), size)
	}
	_, got, err := Decode(buf, 32, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, msgs) {
		t.Errorf("decoded\n%+v\nwant\n%+v", got, msgs)
	}
	// Decoding in place over messages that had payloads leaves none behind.
	_, got, err = Decode(Encode(Header{}, sample[:1]), 32, got[:0])
	if err != nil || got[0].Payload != nil {
		t.Errorf("payload %v left over (err %v)", got[0].Payload, err)
	}
}

func TestDecodeRejects(t *testing.T) {
	good := Encode(Header{Digest: 7, Sent: 0.5}, sample[:2])
	rec := HeaderSize // first record
	cases := []struct {
		name string
		edit func([]byte) []byte
	}{
		{"empty", func(b []byte) []byte { return nil }},
		{"short header", func(b []byte) []byte { return b[:HeaderSize-1] }},
		{"truncated record", func(b []byte) []byte { return b[:len(b)-1] }},
		{"trailing byte", func(b []byte) []byte { return append(b, 0) }},
		{"version", func(b []byte) []byte { b[0] = Version + 1; return b }},
		{"zero count", func(b []byte) []byte { SetCount(b, 0); return b }},
		{"count too large", func(b []byte) []byte { SetCount(b, 3); return b }},
		{"nan time", func(b []byte) []byte { copy(b[4:12], AppendHeader(nil, 7, 0, 2, math.NaN())[4:12]); return b }},
		{"type", func(b []byte) []byte { b[rec] = byte(proto.MaxMsgTypes); return b }},
		{"cause", func(b []byte) []byte { b[rec+1] = byte(proto.NumCauses); return b }},
		{"from", func(b []byte) []byte { b[rec+4] = 32; return b }},
		{"to negative", func(b []byte) []byte { b[rec+8+3] = 0xff; return b }},
		{"j", func(b []byte) []byte { b[rec+12] = 0xfe; b[rec+13], b[rec+14], b[rec+15] = 0xff, 0xff, 0xff; return b }},
		{"src", func(b []byte) []byte { b[rec+16] = 40; return b }},
		{"payload longer than the frame", func(b []byte) []byte { b[rec+32] = 1; return b }},
		{"payload over MaxPayload", func(b []byte) []byte {
			b[rec+32], b[rec+33] = byte((MaxPayload+1)&0xff), byte((MaxPayload+1)>>8)
			return append(b, make([]byte, 8*(MaxPayload+1))...)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.edit(append([]byte(nil), good...))
			prev := []proto.Message{sample[4]}
			_, got, err := Decode(b, 32, prev)
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Decode accepted a bad frame (err %v)", err)
			}
			if len(got) != 1 {
				t.Errorf("a rejected frame left %d messages, want the 1 already there", len(got))
			}
		})
	}
}

// FuzzDecode checks that no input makes Decode panic, that what it accepts is
// valid for the run, and that it re-encodes to the same bytes.
func FuzzDecode(f *testing.F) {
	f.Add(Encode(Header{}, sample), 32)
	f.Add(Encode(Header{Digest: 1 << 31, Run: 1, Sent: 3.5}, sample[:1]), 4)
	f.Add([]byte{Version, 0, 1, 0}, 2)
	f.Add(Encode(Header{Run: 2, Sent: 1}, withPayload), 4)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		if n < 1 || n > 1<<26 {
			n = 32
		}
		h, msgs, err := Decode(b, n, nil)
		if err != nil {
			if !errors.Is(err, ErrMalformed) || len(msgs) != 0 {
				t.Fatalf("error %v with %d messages", err, len(msgs))
			}
			return
		}
		for _, m := range msgs {
			if int(m.To) >= n || m.To < 0 || m.Type >= proto.MaxMsgTypes {
				t.Fatalf("accepted invalid %+v", m)
			}
		}
		if again := Encode(h, msgs); string(again) != string(b) {
			t.Fatalf("re-encoding differs")
		}
	})
}

func BenchmarkEncodeDecode(b *testing.B) {
	var msgs []proto.Message
	b.ReportAllocs()
	buf := make([]byte, 0, 256)
	for i := 0; i < b.N; i++ {
		buf = AppendHeader(buf[:0], 0, 0, 1, 1)
		buf = AppendMessage(buf, &sample[0])
		var err error
		if _, msgs, err = Decode(buf, 32, msgs[:0]); err != nil {
			b.Fatal(err)
		}
	}
}
