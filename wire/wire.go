// Package wire is the binary encoding of the messages that MPI ranks exchange:
// a compact, versioned frame that carries a batch of proto.Messages from one
// rank to another, validated field by field on decode.
//
// A frame is little-endian:
//
//	offset  size  field
//	0       1     version (Version)
//	1       1     run: which of the concurrent runs of the job the messages belong to
//	2       2     count: number of records, ≥ 1
//	4       8     sent: the sender's clock when the frame was sent, seconds (float64)
//	12      4     digest: a hash of the job the ranks agreed on (build, flags, specs)
//	16      …     count records
//
// and a record is 34 bytes and its payload:
//
//	0  1  type       proto.MsgType, below proto.MaxMsgTypes (the run checks its algorithm's)
//	1  1  cause      proto.Cause
//	2  1  phase      search phase of a test
//	3  1  reply      reply code
//	4  4  from       int32 node id
//	8  4  to         int32 node id
//	12 4  j          int32 node id or -1
//	16 4  src        int32 node id or -1
//	20 8  gen        uint64 token generation
//	28 4  tag        uint32 request serial
//	32 2  words      w, the payload's length in 8-byte words, ≤ MaxPayload
//	34 8w payload    int64 words
//
// Decode rejects a frame of another version, a frame whose length is not
// exactly that of its records, and any record with a field out of range for
// the run's number of nodes, so a malformed or truncated frame is dropped
// whole and never reaches a node. The receiver compares the digest with its
// own job's (Header.Digest): a frame of another build or configuration is
// dropped too. Version 1 had no payload (bytes 32 and 33 were zero);
// version 2 had no digest (a 12-byte header).
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ocbench/ocbench/proto"
)

// Version is the version of the frame format written by Append.
const Version = 3

// Sizes of the frame header and of one record without its payload, in
// bytes.
const (
	HeaderSize = 16
	RecordSize = 34
)

// MaxPayload is the most payload words a record carries: a record with the
// most fits in a frame below 4 KiB (Open MPI's shared-memory eager limit)
// with its header.
const MaxPayload = 480

// RecordLen returns the length of m's record, in bytes.
func RecordLen(m *proto.Message) int { return RecordSize + 8*len(m.Payload) }

// MaxRecords is the largest number of records in one frame.
const MaxRecords = math.MaxUint16

// ErrMalformed is wrapped by every decoding error.
var ErrMalformed = errors.New("malformed frame")

// Header is the frame header.
type Header struct {
	Digest uint32
	Run    uint8
	Count  int
	Sent   float64
}

// AppendHeader appends a frame header for count records to buf, for the
// job of the given digest.
func AppendHeader(buf []byte, digest uint32, run uint8, count int, sent float64) []byte {
	buf = append(buf, Version, run)
	buf = binary.LittleEndian.AppendUint16(buf, uint16(count))
	buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(sent))
	return binary.LittleEndian.AppendUint32(buf, digest)
}

// SetCount overwrites the record count of the frame that starts buf.
func SetCount(buf []byte, count int) {
	binary.LittleEndian.PutUint16(buf[2:], uint16(count))
}

// SetSent overwrites the send time of the frame that starts buf.
func SetSent(buf []byte, sent float64) {
	binary.LittleEndian.PutUint64(buf[4:], math.Float64bits(sent))
}

// AppendMessage appends one record to buf; m carries at most MaxPayload
// payload words (more are a caller's error, refused by Decode).
func AppendMessage(buf []byte, m *proto.Message) []byte {
	n, size := len(buf), RecordLen(m)
	buf = slices.Grow(buf, size)[:n+size]
	b := buf[n : n+size : n+size]
	b[0], b[1], b[2], b[3] = byte(m.Type), byte(m.Cause), m.Phase, m.Reply
	le := binary.LittleEndian
	le.PutUint32(b[4:], uint32(m.From))
	le.PutUint32(b[8:], uint32(m.To))
	le.PutUint32(b[12:], uint32(m.J.Node())) // -1 for none
	le.PutUint32(b[16:], uint32(m.Src.Node()))
	le.PutUint64(b[20:], m.Stamp)
	le.PutUint32(b[28:], m.Tag)
	le.PutUint16(b[32:], uint16(len(m.Payload)))
	for k, w := range m.Payload {
		le.PutUint64(b[RecordSize+8*k:], uint64(w))
	}
	return buf
}

// Encode returns a frame of msgs (1 ≤ len(msgs) ≤ MaxRecords) with the
// header h (its Count is len(msgs)).
func Encode(h Header, msgs []proto.Message) []byte {
	size := HeaderSize
	for k := range msgs {
		size += RecordLen(&msgs[k])
	}
	buf := make([]byte, 0, size)
	buf = AppendHeader(buf, h.Digest, h.Run, len(msgs), h.Sent)
	for k := range msgs {
		buf = AppendMessage(buf, &msgs[k])
	}
	return buf
}

// DecodeHeader validates the frame's version and its length against the
// shortest records, and returns its header.
func DecodeHeader(buf []byte) (Header, error) {
	if len(buf) < HeaderSize {
		return Header{}, fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrMalformed, len(buf), HeaderSize)
	}
	if buf[0] != Version {
		return Header{}, fmt.Errorf("%w: version %d, this ocbench reads version %d (mixed ocbench builds in one job?)", ErrMalformed, buf[0], Version)
	}
	le := binary.LittleEndian
	h := Header{Run: buf[1], Count: int(le.Uint16(buf[2:])), Sent: math.Float64frombits(le.Uint64(buf[4:])), Digest: le.Uint32(buf[12:])}
	if h.Count == 0 {
		return Header{}, fmt.Errorf("%w: no records", ErrMalformed)
	}
	if least := HeaderSize + RecordSize*h.Count; len(buf) < least {
		return Header{}, fmt.Errorf("%w: %d bytes for %d records, want at least %d", ErrMalformed, len(buf), h.Count, least)
	}
	if math.IsNaN(h.Sent) || math.IsInf(h.Sent, 0) {
		return Header{}, fmt.Errorf("%w: send time %v", ErrMalformed, h.Sent)
	}
	return h, nil
}

// Decode validates a whole frame for a run of n nodes and appends its
// messages to msgs. On error it returns msgs unchanged: a frame is accepted
// or dropped whole.
func Decode(buf []byte, n int, msgs []proto.Message) (Header, []proto.Message, error) {
	h, err := DecodeHeader(buf)
	if err != nil {
		return h, msgs, err
	}
	base := len(msgs)
	msgs = slices.Grow(msgs, h.Count)[:base+h.Count] // decoded in place
	off := HeaderSize
	for k := range h.Count {
		size, err := decodeRecord(buf[off:], n, &msgs[base+k])
		if err != nil {
			return h, msgs[:base], fmt.Errorf("%w: record %d of %d: %v", ErrMalformed, k+1, h.Count, err)
		}
		off += size
	}
	if off != len(buf) {
		return h, msgs[:base], fmt.Errorf("%w: %d bytes after the %d records", ErrMalformed, len(buf)-off, h.Count)
	}
	return h, msgs, nil
}

// decodeRecord decodes the record at the start of b into m, and returns its
// length.
func decodeRecord(b []byte, n int, m *proto.Message) (int, error) {
	if len(b) < RecordSize {
		return 0, fmt.Errorf("%d bytes left for a record of at least %d", len(b), RecordSize)
	}
	m.Type, m.Cause, m.Phase, m.Reply = proto.MsgType(b[0]), proto.Cause(b[1]), b[2], b[3]
	le := binary.LittleEndian
	m.From = int32(le.Uint32(b[4:]))
	m.To = int32(le.Uint32(b[8:]))
	m.J = proto.RefTo(int32(le.Uint32(b[12:])))
	m.Src = proto.RefTo(int32(le.Uint32(b[16:])))
	m.Stamp = le.Uint64(b[20:])
	m.Tag = le.Uint32(b[28:])
	words := int(le.Uint16(b[32:]))
	size := RecordSize + 8*words
	if words > MaxPayload {
		return 0, fmt.Errorf("payload of %d words, more than %d", words, MaxPayload)
	}
	if len(b) < size {
		return 0, fmt.Errorf("%d bytes left for a record of %d (payload of %d words)", len(b), size, words)
	}
	m.Payload = nil
	if words > 0 {
		m.Payload = make([]int64, words)
		for k := range m.Payload {
			m.Payload[k] = int64(le.Uint64(b[RecordSize+8*k:]))
		}
	}
	return size, checkRecord(m, n, b)
}

// checkRecord validates the fields of a decoded record (b holds its raw
// bytes, for the error).
func checkRecord(m *proto.Message, n int, b []byte) error {
	switch {
	case m.Type >= proto.MaxMsgTypes:
		return fmt.Errorf("message type %d", b[0])
	case m.Cause >= proto.NumCauses:
		return fmt.Errorf("cause %d", b[1])
	case m.From < 0 || int(m.From) >= n:
		return fmt.Errorf("sender %d of %d nodes", m.From, n)
	case m.To < 0 || int(m.To) >= n:
		return fmt.Errorf("destination %d of %d nodes", m.To, n)
	case m.J.Node() < proto.Nil || int(m.J.Node()) >= n:
		return fmt.Errorf("j = %d of %d nodes", m.J.Node(), n)
	case m.Src.Node() < proto.Nil || int(m.Src.Node()) >= n:
		return fmt.Errorf("src = %d of %d nodes", m.Src.Node(), n)
	}
	return nil
}
