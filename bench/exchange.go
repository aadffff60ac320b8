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

// The boundary's numbers and bytes: what a part of a run gives the others
// at a window boundary, its report (ownReport, appendVector, and appendWorld when a
// targeted crash is due) and its messages for their nodes (AppendRemotes),
// which a runtime carries as it likes (MPI: one reduction per window, and
// frames between ranks). Decoding checks every length and every message
// (wire.Decode), so a malformed buffer is an error, never a panic.

// ErrBoundary is wrapped by every error of ReadBoundary.
var ErrBoundary = errors.New("malformed boundary report")

// Sums and Mins: a part's report as numbers to add up (the first
// reportSums) and numbers whose minimum counts (the next reportMins), for a
// runtime that combines reports in one reduction (rank.Comm.SumMin): times
// as the bits of their float64 (non-negative, so ordered alike), no node
// as MaxInt64. Candidates and the token in flight, which a targeted crash
// needs (Part.needsWorld), travel apart (appendWorld).
const (
	reportSums = 12
	reportMins = 3
)

// appendVector appends r's numbers: sums to sums, minimums to mins.
func (r *snapshot) appendVector(sums, mins []int64) ([]int64, []int64) {
	storms := int64(0)
	if r.Storm != "" {
		storms = 1
	}
	sums = append(sums, r.InFlight, r.InCS, r.Holders, r.Tokens, r.Issued, r.Served, r.Abandoned, r.Busy, r.QuotaLeft, r.Steps, r.Halted, storms)
	waiting := int64(math.MaxInt64)
	if r.Waiting != proto.Nil {
		waiting = int64(r.Waiting)
	}
	mins = append(mins, int64(math.Float64bits(r.Next)), int64(math.Float64bits(r.WaitingSince)), waiting)
	return sums, mins
}

// fromVector returns the snapshot whose numbers are sums and mins (the
// whole run's, appendVector's added up); local is this part's own report,
// whose storm, if any, describes the run's.
func fromVector(sums, mins []int64, local *snapshot) (snapshot, error) {
	if len(sums) != reportSums || len(mins) != reportMins {
		return snapshot{}, fmt.Errorf("%w: %d sums and %d minimums", ErrBoundary, len(sums), len(mins))
	}
	s := snapshot{InFlight: sums[0], InCS: sums[1], Holders: sums[2], Tokens: sums[3], Issued: sums[4], Served: sums[5],
		Abandoned: sums[6], Busy: sums[7], QuotaLeft: sums[8], Steps: sums[9], Halted: sums[10],
		Next: math.Float64frombits(uint64(mins[0])), WaitingSince: math.Float64frombits(uint64(mins[1])),
		Waiting: proto.Nil, TokenDest: proto.Nil}
	if mins[2] != math.MaxInt64 {
		s.Waiting = proto.NodeID(mins[2])
	}
	if sums[11] > 0 {
		s.Storm = local.Storm
		if s.Storm == "" {
			s.Storm = "message storm on another rank; the run was stopped"
		}
	}
	return s, nil
}

// needsWorld reports whether the controller's next call needs the world
// view (snapshot.Candidates, TokenDest): a targeted crash. Valid after
// ownReport; every part of a run says the same.
func (p *Part) needsWorld() bool { return p.world }

// appendWorld appends r's world view (candidates, token in flight).
func appendWorld(buf []byte, r *snapshot) []byte {
	le := binary.LittleEndian
	buf = le.AppendUint32(buf, uint32(len(r.Candidates)))
	for _, c := range r.Candidates {
		buf = le.AppendUint32(buf, uint32(c))
	}
	buf = le.AppendUint32(buf, uint32(r.TokenDest))
	buf = le.AppendUint64(buf, math.Float64bits(r.tokenAt.T))
	buf = le.AppendUint64(buf, r.tokenAt.Key)
	buf = le.AppendUint32(buf, uint32(len(r.Reissues)))
	for _, x := range r.Reissues {
		buf = le.AppendUint32(buf, uint32(x.Node))
		buf = append(buf, b2u8(x.Waiting))
		buf = le.AppendUint32(buf, x.Tag)
	}
	buf = AppendRemotes(buf, r.Flight, 0)
	buf = le.AppendUint32(buf, uint32(len(r.Nodes)))
	for _, x := range r.Nodes {
		buf = le.AppendUint32(buf, uint32(x.Node))
		buf = append(buf, b2u8(x.FaultCS), b2u8(x.InCS), b2u8(x.Waiting))
		buf = le.AppendUint32(buf, x.Tag)
	}
	return buf
}

// readWorld reads what appendWorld wrote for a run of n nodes into s (its
// Add adds it up) and returns the rest of buf.
func readWorld(buf []byte, n int, s *snapshot) ([]byte, error) {
	r := &boundaryReader{b: buf}
	k := r.count(n, "candidates")
	for ; k > 0 && r.err == nil; k-- {
		s.Candidates = append(s.Candidates, r.node(n, false))
	}
	s.TokenDest = r.node(n, true)
	s.tokenAt.T = r.f64()
	s.tokenAt.Key = r.u64()
	k = r.count(n, "re-issues")
	for ; k > 0 && r.err == nil; k-- {
		x := reissueAnswer{Node: r.node(n, false)}
		if b := r.take(1); b != nil {
			x.Waiting = b[0] != 0
		}
		x.Tag = r.u32()
		s.Reissues = append(s.Reissues, x)
	}
	if r.err != nil {
		return r.b, r.err
	}
	flight, rest, err := ReadRemotes(r.b, n, 0)
	if err != nil {
		return rest, err
	}
	s.Flight = append(s.Flight, flight...)
	r.b = rest
	k = r.count(n, "workloads")
	for ; k > 0 && r.err == nil; k-- {
		x := nodeWorkload{Node: r.node(n, false)}
		if b := r.take(3); b != nil {
			x.FaultCS, x.InCS, x.Waiting = b[0] != 0, b[1] != 0, b[2] != 0
		}
		x.Tag = r.u32()
		s.Nodes = append(s.Nodes, x)
	}
	return r.b, r.err
}

// AppendRemotes appends messages between parts to buf, for the job of
// digest (wire.Header.Digest).
func AppendRemotes(buf []byte, msgs []sim.Remote, digest uint32) []byte {
	le := binary.LittleEndian
	buf = le.AppendUint32(buf, uint32(len(msgs)))
	for k := range msgs {
		m := &msgs[k]
		buf = le.AppendUint64(buf, math.Float64bits(m.T))
		buf = le.AppendUint64(buf, math.Float64bits(m.Sent))
		buf = le.AppendUint64(buf, m.Key)
		n := len(buf)
		buf = le.AppendUint32(buf, 0)
		buf = wire.AppendHeader(buf, digest, 0, 1, m.Sent)
		buf = wire.AppendMessage(buf, &m.Msg)
		le.PutUint32(buf[n:], uint32(len(buf)-n-4))
	}
	return buf
}

// RemoteLen returns the length of m in AppendRemotes's encoding.
func RemoteLen(m *sim.Remote) int { return 28 + wire.HeaderSize + wire.RecordLen(&m.Msg) }

// ReadRemotes reads what AppendRemotes wrote, for a run of n nodes of the
// job of digest, and returns the messages and the rest of buf.
func ReadRemotes(buf []byte, n int, digest uint32) ([]sim.Remote, []byte, error) {
	r := &boundaryReader{b: buf}
	count := int(r.u32())
	if r.err == nil && count > len(r.b)/(28+wire.HeaderSize+wire.RecordSize) {
		r.err = fmt.Errorf("%w: %d messages in %d bytes", ErrBoundary, count, len(r.b))
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	msgs := make([]sim.Remote, 0, count)
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
		msgs = append(msgs, m)
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	return msgs, r.b, nil
}

// boundaryReader reads a boundary's bytes, keeping the first error.
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

// count reads the length of a list of at most one entry per node (n nodes):
// a longer one is malformed (what names the entries in the error), and is
// refused before anything is allocated for it.
func (r *boundaryReader) count(n int, what string) int {
	k := int(r.u32())
	if r.err == nil && k > n {
		r.err = fmt.Errorf("%w: %d %s of %d nodes", ErrBoundary, k, what, n)
	}
	return k
}

func (r *boundaryReader) node(n int, nilOK bool) proto.NodeID {
	id := proto.NodeID(int32(r.u32()))
	if r.err == nil && !(id >= 0 && int(id) < n || nilOK && id == proto.Nil) {
		r.err = fmt.Errorf("%w: node %d of %d", ErrBoundary, id, n)
	}
	return id
}
