package bench

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/sim"
	"github.com/ocbench/ocbench/wire"
)

// The boundary's bytes: what a part of a run sends the others at a window
// boundary, its Report and its messages for their nodes, in a little-endian
// encoding that a runtime carries as it likes (MPI: one all-gather per
// window). Decoding checks every length and every message (wire.Decode), so
// a malformed buffer is an error, never a panic.

// ErrBoundary is wrapped by every error of ReadBoundary.
var ErrBoundary = errors.New("malformed boundary report")

// AppendBoundary appends a part's report r and its outgoing messages to buf.
// digest is the job's (wire.Header.Digest).
func AppendBoundary(buf []byte, r *Snapshot, msgs []sim.Remote, digest uint32) []byte {
	le := binary.LittleEndian
	f := func(x float64) { buf = le.AppendUint64(buf, math.Float64bits(x)) }
	i := func(x int64) { buf = le.AppendUint64(buf, uint64(x)) }
	f(r.Next)
	for _, x := range []int64{r.InFlight, r.InCS, r.Holders, r.Tokens, r.Issued, r.Served, r.Abandoned, r.Busy, r.QuotaLeft, r.Steps, r.Halted} {
		i(x)
	}
	buf = le.AppendUint32(buf, uint32(r.Waiting))
	f(r.WaitingSince)
	buf = le.AppendUint32(buf, uint32(len(r.Storm)))
	buf = append(buf, r.Storm...)
	buf = le.AppendUint32(buf, uint32(len(r.Candidates)))
	for _, c := range r.Candidates {
		buf = le.AppendUint32(buf, uint32(c))
	}
	buf = le.AppendUint32(buf, uint32(r.TokenDest))
	f(r.tokenAt.T)
	buf = le.AppendUint64(buf, r.tokenAt.Key)
	buf = le.AppendUint32(buf, uint32(len(msgs)))
	for k := range msgs {
		m := &msgs[k]
		f(m.T)
		f(m.Sent)
		buf = le.AppendUint64(buf, m.Key)
		n := len(buf)
		buf = le.AppendUint32(buf, 0)
		buf = wire.AppendHeader(buf, digest, 0, 1, m.Sent)
		buf = wire.AppendMessage(buf, &m.Msg)
		le.PutUint32(buf[n:], uint32(len(buf)-n-4))
	}
	return buf
}

// boundaryReader reads a boundary's bytes.
type boundaryReader struct {
	b   []byte
	err error
}

func (r *boundaryReader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = fmt.Errorf("%w: %d bytes wanted, %d left", ErrBoundary, n, len(r.b))
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *boundaryReader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *boundaryReader) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *boundaryReader) f64() float64 { return math.Float64frombits(r.u64()) }

func (r *boundaryReader) node(n int, nilOK bool) proto.NodeID {
	id := proto.NodeID(int32(r.u32()))
	if r.err == nil && !(id >= 0 && int(id) < n || nilOK && id == proto.Nil) {
		r.err = fmt.Errorf("%w: node %d of %d", ErrBoundary, id, n)
	}
	return id
}

// ReadBoundary reads what AppendBoundary wrote for a run of n nodes and
// returns the report, the messages for the nodes hosts says are here, and
// the rest of buf. The messages must be of the job of digest.
func ReadBoundary(buf []byte, n int, digest uint32, hosts func(proto.NodeID) bool) (Snapshot, []sim.Remote, []byte, error) {
	r := &boundaryReader{b: buf}
	var s Snapshot
	s.Next = r.f64()
	for _, p := range []*int64{&s.InFlight, &s.InCS, &s.Holders, &s.Tokens, &s.Issued, &s.Served, &s.Abandoned, &s.Busy, &s.QuotaLeft, &s.Steps, &s.Halted} {
		*p = int64(r.u64())
	}
	s.Waiting = r.node(n, true)
	s.WaitingSince = r.f64()
	s.Storm = string(r.take(int(r.u32())))
	k := int(r.u32())
	if r.err == nil && k > n {
		r.err = fmt.Errorf("%w: %d candidates of %d nodes", ErrBoundary, k, n)
	}
	for ; k > 0 && r.err == nil; k-- {
		s.Candidates = append(s.Candidates, r.node(n, false))
	}
	s.TokenDest = r.node(n, true)
	s.tokenAt.T = r.f64()
	s.tokenAt.Key = r.u64()
	count := int(r.u32())
	if r.err == nil && count > len(r.b)/(24+4+wire.HeaderSize+wire.RecordSize) {
		r.err = fmt.Errorf("%w: %d messages in %d bytes", ErrBoundary, count, len(r.b))
	}
	var msgs []sim.Remote
	for ; count > 0 && r.err == nil; count-- {
		m := sim.Remote{T: r.f64(), Sent: r.f64(), Key: r.u64()}
		frame := r.take(int(r.u32()))
		if r.err != nil {
			break
		}
		h, got, err := wire.Decode(frame, n, nil)
		switch {
		case err != nil:
			r.err = fmt.Errorf("%w: %w", ErrBoundary, err)
		case h.Digest != digest:
			r.err = fmt.Errorf("%w: a message of another job (digest %08x, not %08x)", ErrBoundary, h.Digest, digest)
		case len(got) != 1:
			r.err = fmt.Errorf("%w: %d messages in one record's frame", ErrBoundary, len(got))
		case !(m.T >= m.Sent) || math.IsInf(m.T, 0):
			r.err = fmt.Errorf("%w: a message delivered at %v, sent at %v", ErrBoundary, m.T, m.Sent)
		}
		if r.err != nil {
			break
		}
		m.Msg = got[0]
		if hosts(m.Msg.To) {
			msgs = append(msgs, m)
		}
	}
	if r.err != nil {
		return s, nil, nil, r.err
	}
	return s, msgs, r.b, nil
}
