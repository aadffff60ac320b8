package explore

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/trace"
)

// numberMessages sets MsgID and SentIDs along path: messages are numbered
// 1, 2, … in the order sent, and a delivery takes the number of the
// earliest message in flight equal to it (equal messages cannot be told
// apart).
func numberMessages(path []Step) {
	type numbered struct {
		m  proto.Message
		id uint64
	}
	var inFlight []numbered
	next := uint64(1)
	for k := range path {
		st := &path[k]
		if st.Kind == Deliver {
			for i, f := range inFlight {
				if sameMessage(&f.m, &st.Msg) {
					st.MsgID = f.id
					inFlight = slices.Delete(inFlight, i, i+1)
					break
				}
			}
		}
		st.SentIDs = st.SentIDs[:0]
		for _, m := range st.Sent {
			st.SentIDs = append(st.SentIDs, next)
			inFlight = append(inFlight, numbered{m, next})
			next++
		}
	}
}

func sameMessage(a, b *proto.Message) bool {
	return a.Type == b.Type && a.Cause == b.Cause && a.Phase == b.Phase && a.Reply == b.Reply &&
		a.From == b.From && a.To == b.To && a.J == b.J && a.Src == b.Src && a.Stamp == b.Stamp &&
		a.Tag == b.Tag && slices.Equal(a.Payload, b.Payload)
}

// stepTime is the time of step k of a path, in seconds, with δ = delta:
// its tick in discrete time (D ticks a δ), else k·δ.
func stepTime(st *Step, k, ticks int, delta float64) float64 {
	if ticks > 0 {
		return float64(st.Tick) * delta / float64(ticks)
	}
	return float64(k+1) * delta
}

// WriteTrace writes path as an event trace in package trace's format (the
// simulator's: `ocbench check-trace` reads it), with δ = delta seconds and
// D = ticks ticks a δ (0: one step every δ).
func WriteTrace(w io.Writer, alg proto.Algorithm, path []Step, ticks int, delta float64) error {
	numberMessages(path)
	types := alg.MessageTypes()
	name := func(t proto.MsgType) string {
		if int(t) < len(types) {
			return types[t].Name
		}
		return fmt.Sprintf("type%d", t)
	}
	bw := bufio.NewWriter(w)
	for k := range path {
		st := &path[k]
		t := stepTime(st, k, ticks, delta)
		switch st.Kind {
		case Deliver:
			ev := trace.Recv
			if st.Dropped {
				ev = trace.Drop
			}
			trace.WriteMessage(bw, t, st.Msg.To, ev, name(st.Msg.Type), &st.Msg, st.MsgID)
		case Request:
			trace.WriteEvent(bw, t, st.Node, trace.Request)
		case Exit:
			trace.WriteEvent(bw, t, st.Node, trace.Exit)
		case Crash:
			trace.WriteEvent(bw, t, st.Node, trace.Crash)
		case Recover:
			trace.WriteEvent(bw, t, st.Node, trace.Recover)
		}
		for i := range st.Sent {
			trace.WriteMessage(bw, t, st.Node, trace.Send, name(st.Sent[i].Type), &st.Sent[i], st.SentIDs[i])
		}
		if st.Enter {
			trace.WriteEvent(bw, t, st.Node, trace.Enter)
		}
	}
	return bw.Flush()
}

// Describe writes path as a numbered message sequence, one line a step
// (ticks are shown in discrete time; a tick's own line is left out).
func Describe(w io.Writer, alg proto.Algorithm, path []Step, ticks int) {
	numberMessages(path)
	types := alg.MessageTypes()
	msg := func(m *proto.Message, id uint64) string {
		name := fmt.Sprintf("type%d", m.Type)
		if int(m.Type) < len(types) {
			name = types[m.Type].Name
		}
		var extra []string
		if !m.J.IsNil() {
			extra = append(extra, "j="+m.J.String())
		}
		if m.Phase != 0 {
			extra = append(extra, fmt.Sprintf("phase=%d", m.Phase))
		}
		if m.Reply != 0 {
			extra = append(extra, fmt.Sprintf("reply=%d", m.Reply))
		}
		if m.Stamp != 0 {
			extra = append(extra, fmt.Sprintf("stamp=%d", m.Stamp))
		}
		if m.Tag != 0 {
			extra = append(extra, fmt.Sprintf("tag=%d", m.Tag))
		}
		if len(m.Payload) > 0 {
			extra = append(extra, fmt.Sprint("payload=", m.Payload))
		}
		s := fmt.Sprintf("#%d %s %d→%d", id, name, m.From, m.To)
		if len(extra) > 0 {
			s += " (" + strings.Join(extra, " ") + ")"
		}
		return s
	}
	k := 0
	for i := range path {
		st := &path[i]
		if st.Kind == Tick {
			continue
		}
		k++
		var b strings.Builder
		fmt.Fprintf(&b, "  %3d.", k)
		if ticks > 0 {
			fmt.Fprintf(&b, " tick %d:", st.Tick)
		}
		switch st.Kind {
		case Deliver:
			if st.Dropped {
				fmt.Fprintf(&b, " %s is lost: node %d is down", msg(&st.Msg, st.MsgID), st.Msg.To)
			} else {
				fmt.Fprintf(&b, " node %d receives %s", st.Msg.To, msg(&st.Msg, st.MsgID))
			}
		case Fire:
			fmt.Fprintf(&b, " node %d's timer fires (kind %d, seq %d, %gδ)", st.Node, st.Timer.Kind, st.Timer.Seq, st.Timer.After)
		case Request:
			fmt.Fprintf(&b, " node %d requests the critical section (tag %d)", st.Node, st.Tag)
		case Exit:
			fmt.Fprintf(&b, " node %d leaves the critical section", st.Node)
		case Crash:
			fmt.Fprintf(&b, " node %d crashes", st.Node)
		case Recover:
			fmt.Fprintf(&b, " node %d recovers", st.Node)
		}
		for j := range st.Sent {
			fmt.Fprintf(&b, "; sends %s", msg(&st.Sent[j], st.SentIDs[j]))
		}
		if st.Enter {
			fmt.Fprintf(&b, "; node %d enters the critical section", st.Node)
		}
		fmt.Fprintln(w, b.String())
	}
}
