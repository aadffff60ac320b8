package trace

import (
	"bufio"
	"strconv"

	"github.com/ocbench/ocbench/proto"
)

// The events of a trace (its "ev" field). A trace has one JSON object per
// line per event, in time order:
//
//	{"t":…,"node":…,"ev":"request|enter|exit|crash|recover"}
//	{"t":…,"node":…,"ev":"send|recv|drop|destroy","type":…,"from":…,"to":…,"msg":…,"j":…,"tag":…[,"phase":…][,"reply":…][,"gen":…][,"payload":[…]]}
//	{"t":…,"node":…,"ev":"father","father":…}
//
// t is in seconds; msg numbers a message (its send, then its receipt or
// drop). The simulator writes it (Config.Trace), and so does rank 0 of an
// MPI run from every rank's events; Check checks one. Father lines are
// optional (the simulator writes them with Config.TraceTree, for the
// algorithms of the general token-and-tree scheme): a node's father
// pointer at time t, -1 for none (the root, or a node searching its
// father); a trace without them is complete for every other purpose.
const (
	Request = "request" // the node calls enter_cs
	Enter   = "enter"   // the node enters the critical section
	Exit    = "exit"    // the node is told to leave it (exit_cs)
	Send    = "send"    // the node sends a message
	Recv    = "recv"    // the node receives a message
	Drop    = "drop"    // a message reaches the node while it is down
	Crash   = "crash"   // the node crashes
	Recover = "recover" // the node recovers
	// Events of transient faults (a self-stabilizing algorithm's runs):
	// the system is hit (node -1), a node's state is scrambled, and the
	// system's configuration becomes legitimate (node -1).
	Fault      = "fault"
	Corrupt    = "corrupt"
	Legitimate = "legitimate"
	// Destroy: a transient fault takes a message out of its link (a
	// message line, at the destination; the message never arrives).
	Destroy = "destroy"
	// Father: the node's father pointer is now the line's "father" field
	// (-1: none). Only traces written with the father relation have it.
	Father = "father"
)

// head writes the start of a trace line: time, node and event, the
// event's closing quote left open.
func head(w *bufio.Writer, t float64, ev string, node proto.NodeID) {
	w.WriteString(`{"t":`)
	w.WriteString(strconv.FormatFloat(t, 'g', -1, 64))
	w.WriteString(`,"node":`)
	w.WriteString(strconv.Itoa(int(node)))
	w.WriteString(`,"ev":"`)
	w.WriteString(ev)
}

// WriteEvent writes the trace line of an event without a message
// (request, enter, exit, crash, recover) of node at time t. Errors are the
// writer's, reported by its Flush.
func WriteEvent(w *bufio.Writer, t float64, node proto.NodeID, ev string) {
	head(w, t, ev, node)
	w.WriteString("\"}\n")
}

// WriteMessage writes the trace line of a message event (send, recv,
// drop) of node at time t: message m, of the type named typeName, numbered
// id. Errors are the writer's, reported by its Flush.
func WriteMessage(w *bufio.Writer, t float64, node proto.NodeID, ev, typeName string, m *proto.Message, id uint64) {
	head(w, t, ev, node)
	w.WriteString(`","type":"`)
	w.WriteString(typeName)
	w.WriteString(`","from":`)
	w.WriteString(strconv.Itoa(int(m.From)))
	w.WriteString(`,"to":`)
	w.WriteString(strconv.Itoa(int(m.To)))
	w.WriteString(`,"msg":`)
	w.WriteString(strconv.FormatUint(id, 10))
	w.WriteString(`,"j":`)
	w.WriteString(strconv.Itoa(int(m.J.Node())))
	w.WriteString(`,"tag":`)
	w.WriteString(strconv.FormatUint(uint64(m.Tag), 10))
	if m.Phase != 0 {
		w.WriteString(`,"phase":`)
		w.WriteString(strconv.Itoa(int(m.Phase)))
	}
	if m.Reply != 0 {
		w.WriteString(`,"reply":`)
		w.WriteString(strconv.Itoa(int(m.Reply)))
	}
	if m.Stamp != 0 {
		w.WriteString(`,"gen":`)
		w.WriteString(strconv.FormatUint(m.Stamp, 10))
	}
	if len(m.Payload) > 0 {
		w.WriteString(`,"payload":[`)
		for k, v := range m.Payload {
			if k > 0 {
				w.WriteByte(',')
			}
			w.WriteString(strconv.FormatInt(v, 10))
		}
		w.WriteByte(']')
	}
	w.WriteString("}\n")
}

// WriteFather writes the trace line that says node's father pointer is
// father (proto.Nil: none) from time t on. Errors are the writer's,
// reported by its Flush.
func WriteFather(w *bufio.Writer, t float64, node, father proto.NodeID) {
	head(w, t, Father, node)
	w.WriteString(`","father":`)
	w.WriteString(strconv.Itoa(int(father)))
	w.WriteString("}\n")
}
