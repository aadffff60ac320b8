package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"

	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/safety"
)

// ErrNotTrace is wrapped by Check's errors about input that is no trace of
// any run, as opposed to a trace that breaks a check: a file with no
// events, one that cannot be read (a directory), or a node number no run
// has (node ids are below hypercube.MaxNodes, the largest N). Check
// refuses such a node number before it uses it, so that a crafted line
// cannot make it allocate the state of 2^31 nodes. `ocbench check-trace`
// exits with status 2 on it, 1 on a broken check.
var ErrNotTrace = errors.New("not a trace of any ocbench run")

// Summary is what Check found in a trace.
type Summary struct {
	Lines int64
	// Messages; destroyed: taken out of their link by a transient fault;
	// in flight: sent, neither received, dropped nor destroyed.
	Sent, Received, Dropped, Destroyed, InFlight int64
	Requests, Entries, Exits, Crashes, Recovers  int64
	Nodes                                        int // the highest node number seen, plus one
	// Fathers counts father lines (the father relation's changes).
	Fathers int64
	End     float64 // the time of the last event, seconds
	// MaxDelay is the longest time from a message's send to its receipt
	// or drop, seconds.
	MaxDelay float64
}

// traceLine is one line of a trace (the fields WriteEvent and
// WriteMessage write).
type traceLine struct {
	T       *float64 `json:"t"`
	Node    *int64   `json:"node"`
	Ev      string   `json:"ev"`
	Type    string   `json:"type"`
	From    *int64   `json:"from"`
	To      *int64   `json:"to"`
	Msg     *uint64  `json:"msg"` // present on a message line (0 is a number like any other)
	J       int64    `json:"j"`
	Tag     uint32   `json:"tag"`
	Phase   int64    `json:"phase"`
	Reply   int64    `json:"reply"`
	Stamp   uint64   `json:"gen"` // Message.Stamp
	Payload []int64  `json:"payload"`
	Father  *int64   `json:"father"` // a father line's pointer (-1: none)
}

// traceMsg is a message sent and not yet received or dropped: its send's
// line (without time and event) and when.
type traceMsg struct {
	line traceLine
	t    float64
	at   int64 // the send's line number
}

// traceNode is a node's state as the trace tells it.
type traceNode struct {
	down, waiting, inCS bool
	// corrupted: a transient fault scrambled the node since its last
	// request, which the fault may have wiped out: the runtime issues it
	// again (bench.InventedCS), and that request is the same one.
	corrupted bool
	// scrambled: a transient fault scrambled the node since its last
	// exit, and may have put it in the critical section: one exit
	// without an entry ends that invented stay (bench.InventedCS).
	scrambled bool
	// owed counts the exits due for stays that a crash ended: the
	// exit_cs of such a stay comes after the crash (while the node is
	// down or after its recovery) without an entry of its own.
	owed int
	// faults is the number of system-wide faults (node -1) seen at the
	// node's last exit: a later fault may have put it in the critical
	// section (an arbitrary initial configuration).
	faults int
}

// Check reads a trace (one JSON object per line: WriteEvent,
// WriteMessage) and checks what every trace of a correct run
// satisfies, whichever runtime wrote it:
//
//   - every line is an object of the trace's fields, with a known event,
//     a time, a node in 0..hypercube.MaxNodes−1 (-1 for an event of the
//     whole system), and for a message event its type, sender,
//     destination (both in that range) and number;
//   - times never decrease from a line to the next;
//   - a message is sent by its sender (node = from), once per number, by a
//     node that is up; it is received, dropped or destroyed (by a
//     transient fault) at most once, at its destination (node = to),
//     after its send, with the same fields as sent; received by a node
//     that is up, dropped at a node that is down;
//   - a node crashes when up and recovers when down; it requests the
//     critical section when up, with no request of its own pending and
//     not in the critical section; it enters only up and with a request
//     pending;
//   - mutual exclusion (safety.Mutex, from the entries and exits:
//     safety.Entries): no node enters the critical section while another
//     is in it (a stay ends with the node's exit or its crash);
//   - a father line (optional) names a node in 0..hypercube.MaxNodes−1
//     or -1 (none), and only a father line has the father field.
//
// Each node follows the automaton request → enter → exit: an exit needs
// an entry of the node's own since its last exit, with two exceptions
// that are steps of the runtime, not of the protocol: the exit_cs of a
// stay that a crash ended (one per such stay, due while the node is down
// or after its recovery), and the exit that ends a stay a transient fault
// invented (after a corruption of the node, or a fault of the whole
// system, since its last exit). Any other exit is refused, naming the
// node and the line. A message's number may be any uint64, 0 included:
// the field must be present. It returns the
// summary and the first failure, naming its line; a failure that wraps
// ErrNotTrace says the input is no trace at all (no events, unreadable, a
// node number beyond the largest N).
func Check(r io.Reader) (Summary, error) { return CheckWith(r, Options{}) }

// Options say what kind of run a trace is of.
type Options struct {
	// KExclusion: several nodes may be in the critical section together
	// (a k-out-of-ℓ exclusion algorithm): mutual exclusion is not checked
	// (the trace does not say how many units a node uses), the rest is.
	KExclusion bool
}

// CheckWith is Check for a trace of the kind opt says. Events of
// transient faults are accepted: a fault and legitimacy are events of the
// whole system (node -1), a corruption scrambles a node's state.
func CheckWith(r io.Reader, opt Options) (Summary, error) {
	var sum Summary
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	flight := map[uint64]traceMsg{}
	used := map[uint64]bool{}       // numbers of messages sent
	nodes := map[int64]*traceNode{} // by id: a trace names few nodes, or all of a large N
	var excl *safety.Entries        // mutual exclusion, from the entries and exits (nil: not checked)
	if !opt.KExclusion {
		excl = safety.NewEntries(0)
	}
	last := math.Inf(-1)
	faults := 0 // system-wide faults seen
	for sc.Scan() {
		sum.Lines++
		n := sum.Lines
		fail := func(format string, args ...any) (Summary, error) {
			return sum, fmt.Errorf("trace line %d: %s", n, fmt.Sprintf(format, args...))
		}
		raw := sc.Bytes()
		if len(bytes.TrimSpace(raw)) == 0 {
			return fail("empty line")
		}
		var l traceLine
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return fail("not a trace event: %v", err)
		}
		if dec.More() {
			return fail("more than one object")
		}
		if l.T == nil || l.Node == nil || l.Ev == "" {
			return fail("t, node and ev are needed")
		}
		t, id := *l.T, *l.Node
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return fail("time %v", t)
		}
		if t < last {
			return fail("time %v before the previous line's %v", t, last)
		}
		last, sum.End = t, t
		if id == -1 && (l.Ev == Fault || l.Ev == Legitimate) {
			if l.Ev == Fault {
				faults++
			}
			continue // an event of the whole system
		}
		if err := nodeID("node", id); err != nil {
			return sum, fmt.Errorf("trace line %d: %w", n, err)
		}
		nd := nodes[id]
		if nd == nil {
			nd = &traceNode{}
			nodes[id] = nd
		}
		sum.Nodes = max(sum.Nodes, int(id)+1)
		isMsg := l.Ev == Send || l.Ev == Recv || l.Ev == Drop || l.Ev == Destroy
		if isMsg && (l.Type == "" || l.From == nil || l.To == nil || l.Msg == nil) {
			return fail("a %s needs type, from, to and msg", l.Ev)
		}
		if isMsg {
			for _, f := range []struct {
				name string
				id   int64
			}{{"from", *l.From}, {"to", *l.To}} {
				if err := nodeID(f.name, f.id); err != nil {
					return sum, fmt.Errorf("trace line %d: %w", n, err)
				}
			}
		}
		if !isMsg && (l.Type != "" || l.From != nil || l.To != nil || l.Msg != nil) {
			return fail("a %s has message fields", l.Ev)
		}
		if (l.Ev == Father) != (l.Father != nil) {
			return fail("a father line, and only a father line, has the father field (ev %s)", l.Ev)
		}
		switch l.Ev {
		case Send:
			msg := *l.Msg
			switch {
			case *l.From != id:
				return fail("node %d sends a message from node %d", id, *l.From)
			case used[msg]:
				return fail("message %d sent twice", msg)
			case nd.down:
				return fail("node %d sends message %d while down", id, msg)
			}
			used[msg] = true
			key := l
			key.T, key.Node, key.Ev, key.Msg = nil, nil, "", nil
			flight[msg] = traceMsg{key, t, n}
			sum.Sent++
		case Recv, Drop, Destroy:
			msg := *l.Msg
			m, ok := flight[msg]
			switch {
			case !ok && used[msg]:
				return fail("message %d received, dropped or destroyed twice", msg)
			case !ok:
				return fail("message %d %s before it is sent", msg, l.Ev)
			case *l.To != id:
				return fail("message %d to node %d %s at node %d", msg, *l.To, l.Ev, id)
			case !sameMessage(&m.line, &l):
				return fail("message %d differs from its send (line %d)", msg, m.at)
			case l.Ev == Destroy:
				// a transient fault: whether the node is up or down
			case l.Ev == Recv && nd.down:
				return fail("node %d receives message %d while down", id, msg)
			case l.Ev == Drop && !nd.down:
				return fail("message %d dropped at node %d, which is up", msg, id)
			}
			delete(flight, msg)
			sum.MaxDelay = max(sum.MaxDelay, t-m.t)
			switch l.Ev {
			case Recv:
				sum.Received++
			case Drop:
				sum.Dropped++
			default:
				sum.Destroyed++
			}
		case Crash:
			if nd.down {
				return fail("node %d crashes while down", id)
			}
			owed := nd.owed
			if nd.inCS || nd.mayLeave(faults) {
				owed++ // the stay's exit comes after the crash
			}
			*nd = traceNode{down: true, owed: owed, faults: nd.faults}
			if excl != nil {
				excl.Exit(int(id), 1) // a crash ends its stay
			}
			sum.Crashes++
		case Recover:
			if !nd.down {
				return fail("node %d recovers while up", id)
			}
			nd.down = false
			sum.Recovers++
		case Request:
			switch {
			case nd.down:
				return fail("node %d requests the critical section while down", id)
			case (nd.waiting || nd.inCS) && !nd.corrupted:
				return fail("node %d requests the critical section again before it left it", id)
			}
			if !nd.waiting {
				sum.Requests++ // a request issued again after a fault is the same one
			}
			nd.waiting, nd.corrupted = true, false
		case Enter:
			if nd.down || !nd.waiting {
				return fail("node %d enters the critical section without a request pending (down: %v)", id, nd.down)
			}
			if excl != nil {
				if b, broken := excl.Enter(int(id), 1); broken {
					return fail("node %d enters the critical section while node %d is in it", id, b.Other)
				}
			}
			nd.waiting, nd.inCS = false, true
			sum.Entries++
		case Exit:
			switch {
			case nd.inCS:
				if excl != nil {
					excl.Exit(int(id), 1)
				}
			case nd.owed > 0:
				nd.owed-- // the exit of a stay a crash ended
			case nd.mayLeave(faults):
				// the end of a stay a transient fault invented
			default:
				return fail("node %d exits the critical section without an entry (no enter of its own since its last exit, and no crash or transient fault that could explain one)", id)
			}
			nd.inCS, nd.scrambled, nd.faults = false, false, faults
			sum.Exits++
		case Father:
			if f := *l.Father; f != -1 {
				if err := nodeID("father", f); err != nil {
					return sum, fmt.Errorf("trace line %d: %w", n, err)
				}
			}
			sum.Fathers++
		case Corrupt:
			if nd.down {
				return fail("node %d's state is corrupted while down", id)
			}
			nd.corrupted, nd.scrambled = true, true
		default:
			return fail("unknown event %q", l.Ev)
		}
	}
	if err := sc.Err(); err != nil {
		return sum, fmt.Errorf("trace line %d: %w (%w)", sum.Lines+1, err, ErrNotTrace)
	}
	if sum.Lines == 0 {
		return sum, fmt.Errorf("no events: %w (a trace has one line per event, and every run has events)", ErrNotTrace)
	}
	sum.InFlight = int64(len(flight))
	return sum, nil
}

// mayLeave reports whether a transient fault may have put the node in
// the critical section since its last exit: a corruption of its state,
// or a fault of the whole system (faults counts those seen so far).
func (nd *traceNode) mayLeave(faults int) bool { return nd.scrambled || faults > nd.faults }

// nodeID refuses a node number (the line's node, or a message's from or
// to) outside 0..hypercube.MaxNodes−1 with an error wrapping ErrNotTrace.
func nodeID(field string, id int64) error {
	if id >= 0 && id < hypercube.MaxNodes {
		return nil
	}
	p := bits.Len(hypercube.MaxNodes) - 1
	return fmt.Errorf("%s %d is not in 0..2^%d−1 (the largest N is 2^%d): %w", field, id, p, p, ErrNotTrace)
}

// sameMessage reports whether a receipt's fields are its send's (times,
// nodes and events aside).
func sameMessage(sent, got *traceLine) bool {
	return sent.Type == got.Type && *sent.From == *got.From && *sent.To == *got.To && sent.J == got.J &&
		sent.Tag == got.Tag && sent.Phase == got.Phase && sent.Reply == got.Reply && sent.Stamp == got.Stamp &&
		slices.Equal(sent.Payload, got.Payload)
}
