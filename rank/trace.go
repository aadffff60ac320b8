package rank

import (
	"bufio"
	"bytes"
	"encoding/gob"
	"fmt"
	"io"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/trace"
)

// Traces under MPI (--trace FILE).
//
// Every rank records the events of its nodes in the crash run (run 0, as
// the simulator traces the crash run and not its baseline), each with the
// time of the rank's clock, in the order it handles them. A message is
// named by its channel, the sender's and the receiver's ranks, and its
// place in that channel: MPI keeps the order of the frames between two
// ranks, and a rank keeps the order of its own queue, so the sender and
// the receiver count the same place without a word on the wire.
//
// After the run, the ranks gather their records on rank 0, which merges
// them into one time line: it writes, over and over, the earliest event at
// the head of a rank's record, except that a receipt (or drop) waits until
// its send is written, and each rank's events keep their order. A time
// below the previous line's is written as the previous line's, so times
// never decrease. The ranks' clocks are paired at the start (design.md,
// "Time"); they disagree by no more than the record's clock disagreement
// (measured_min_delay_delta below 0 bounds it from below), which bounds
// how far an event's place can be from its true order and the shift of the
// times rewritten. Messages are numbered 1, 2, … in the merged order of
// their sends, and written with the simulator's encoder
// (trace.WriteMessage), so `ocbench check-trace` reads either.

// traceRec is one event of a rank's record.
type traceRec struct {
	T    float64
	Ev   uint8 // index in traceEvents
	Node proto.NodeID
	ID   uint64 // message events: channel and place (traceID)
	Msg  proto.Message
}

// traceEvents are the events of a record, by traceRec.Ev.
var traceEvents = [...]string{trace.Request, trace.Enter, trace.Exit, trace.Send, trace.Recv, trace.Drop, trace.Crash, trace.Recover}

// Indices of traceEvents.
const (
	trRequest = iota
	trEnter
	trExit
	trSend
	trRecv
	trDrop
	trCrash
	trRecover
)

// tracer is a rank's record of run 0's events.
type tracer struct {
	recs       []traceRec
	sent, recv []uint64 // messages sent to each rank, received from each rank
}

// traceID names the n-th message (n = 1, 2, …) from rank src to rank dst
// of size ranks.
func traceID(src, dst, size int, n uint64) uint64 {
	return (n*uint64(size)+uint64(src))*uint64(size) + uint64(dst)
}

// traceEvent records an event without a message of node id.
func (in *instance) traceEvent(ev uint8, id proto.NodeID, now float64) {
	in.tr.recs = append(in.tr.recs, traceRec{T: now, Ev: ev, Node: id})
}

// traceInput records the event of an input, if it has one (the
// simulator's: enter_cs, exit_cs, crash and recover).
func (in *instance) traceInput(id proto.NodeID, kind proto.InputKind, now float64) {
	switch kind {
	case proto.EnterCS:
		in.traceEvent(trRequest, id, now)
	case proto.ExitCS:
		in.traceEvent(trExit, id, now)
	case proto.Crash:
		in.traceEvent(trCrash, id, now)
	case proto.Recover:
		in.traceEvent(trRecover, id, now)
	}
}

// traceSend records the send of m to a node of rank dst.
func (in *instance) traceSend(m *proto.Message, dst int, now float64) {
	t := in.tr
	t.sent[dst]++
	c := *m
	c.Payload = append([]int64(nil), m.Payload...) // nodes may reuse it
	t.recs = append(t.recs, traceRec{T: now, Ev: trSend, Node: m.From, ID: traceID(in.j.rank, dst, in.j.size, t.sent[dst]), Msg: c})
}

// traceDeliver records the receipt (or drop, at a node down) of m.
func (in *instance) traceDeliver(m *proto.Message, drop bool, now float64) {
	t := in.tr
	src := in.rankOf(m.From)
	t.recv[src]++
	ev := uint8(trRecv)
	if drop {
		ev = trDrop
	}
	c := *m
	c.Payload = append([]int64(nil), m.Payload...)
	t.recs = append(t.recs, traceRec{T: now, Ev: ev, Node: m.To, ID: traceID(src, in.j.rank, in.j.size, t.recv[src]), Msg: c})
}

// gatherTrace gathers every rank's record of in on rank 0, which merges
// them and writes the trace to w. Every rank calls it.
func gatherTrace(comm Comm, in *instance, w io.Writer) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(in.tr.recs); err != nil {
		return fmt.Errorf("rank %d: encoding the trace: %w", in.j.rank, err)
	}
	in.tr.recs = nil
	parts, err := comm.Gather(buf.Bytes())
	if err != nil {
		return fmt.Errorf("rank: gathering the trace to rank 0: %w", err)
	}
	if comm.Rank() != 0 {
		return nil
	}
	recs := make([][]traceRec, len(parts))
	for r, p := range parts {
		if err := gob.NewDecoder(bytes.NewReader(p)).Decode(&recs[r]); err != nil {
			return fmt.Errorf("rank: decoding the trace of rank %d: %w", r, err)
		}
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	mergeTrace(recs, func(t float64, r *traceRec, id uint64) {
		ev := traceEvents[r.Ev]
		if r.Ev == trSend || r.Ev == trRecv || r.Ev == trDrop {
			trace.WriteMessage(bw, t, r.Node, ev, in.typeName(r.Msg.Type), &r.Msg, id)
		} else {
			trace.WriteEvent(bw, t, r.Node, ev)
		}
	})
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("--trace: %w", err)
	}
	return nil
}

// mergeTrace merges the ranks' records into one time line (see the
// comment at the top of this file) and calls emit with each event, its
// time in the merged trace and its message's number (0 for events without
// a message). It returns the largest amount by which a time was raised.
func mergeTrace(recs [][]traceRec, emit func(t float64, r *traceRec, id uint64)) float64 {
	next := make([]int, len(recs))
	ids := map[uint64]uint64{} // channel and place → number, for messages sent but not yet received
	var number uint64
	last, raised := 0.0, 0.0
	first := true
	for {
		best, blocked := -1, -1
		for r, k := range next {
			if k == len(recs[r]) {
				continue
			}
			e := &recs[r][k]
			if e.Ev == trRecv || e.Ev == trDrop {
				if _, ok := ids[e.ID]; !ok {
					if blocked < 0 || e.T < recs[blocked][next[blocked]].T {
						blocked = r
					}
					continue
				}
			}
			if best < 0 || e.T < recs[best][next[best]].T {
				best = r
			}
		}
		if best < 0 {
			best = blocked // a receipt whose send is in no record: written, the checker will say
		}
		if best < 0 {
			return raised
		}
		e := &recs[best][next[best]]
		next[best]++
		t := e.T
		if !first && t < last {
			raised = max(raised, last-t)
			t = last
		}
		first, last = false, t
		var id uint64
		switch e.Ev {
		case trSend:
			number++
			id = number
			ids[e.ID] = id
		case trRecv, trDrop:
			var ok bool
			if id, ok = ids[e.ID]; ok {
				delete(ids, e.ID)
			} else {
				number++
				id = number
			}
		}
		emit(t, e, id)
	}
}
