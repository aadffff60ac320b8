// Package view turns an event trace (package trace's format, written by
// `ocbench --trace` under the simulator or MPI) into one self-contained
// HTML page: a space-time diagram of the run drawn on a canvas, the
// father relation as it stands at the time under the cursor, and
// controls to play, step, zoom and search. The page's script and style
// are embedded in the binary and inlined in the page: it fetches
// nothing.
package view

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"math/bits"
	"strconv"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/internal/palette"
	"github.com/ocbench/ocbench/trace"
)

//go:embed assets/page.html
var pageHTML string

//go:embed assets/view.css
var pageCSS string

//go:embed assets/view.js
var pageJS string

var page = template.Must(template.New("page").Parse(pageHTML))

// ErrEmpty is returned (wrapped) by Read for a trace without events.
var ErrEmpty = errors.New("no events (an empty trace: a trace has one line per event, and every run has events)")

// The kinds of events in Data.Kind: a trace line's "ev".
const (
	KindRequest = iota
	KindEnter
	KindExit
	KindSend
	KindRecv
	KindDrop
	KindCrash
	KindRecover
	KindFather
	KindFault
	KindCorrupt
	KindLegitimate
	KindDestroy
)

// kinds maps a trace event to its kind; the page's script has the same
// numbering.
var kinds = map[string]int8{
	trace.Request: KindRequest, trace.Enter: KindEnter, trace.Exit: KindExit,
	trace.Send: KindSend, trace.Recv: KindRecv, trace.Drop: KindDrop,
	trace.Crash: KindCrash, trace.Recover: KindRecover, trace.Father: KindFather,
	trace.Fault: KindFault, trace.Corrupt: KindCorrupt, trace.Legitimate: KindLegitimate,
	trace.Destroy: KindDestroy,
}

// Data is what the page draws: the trace's lines in columns (event k is
// T[k], Kind[k], Node[k], Arg[k]) and its messages by the order of their
// sends. Arg is, for a message event, the message's index in the Msg
// columns; for a father line, the father (-1: none); else 0.
type Data struct {
	Title string  `json:"title"`
	Nodes int     `json:"nodes"`
	End   float64 `json:"end"`
	// Delta is the run's δ in seconds: the page gives the trace's times
	// (seconds) in δ, the unit of the run's tables. Read sets the
	// simulator's default, bench.DefaultDelta.
	Delta float64 `json:"delta"`

	T    []float64 `json:"t"`
	Kind []int8    `json:"kind"`
	Node []int32   `json:"node"`
	Arg  []int64   `json:"arg"`

	// Types names the message types; TokenTypes are the indices of the
	// types taken for a token (named "token" or "…token…", any case).
	Types      []string `json:"types"`
	TokenTypes []int    `json:"tokenTypes"`
	// TypeColors are the types' colours (CSS), fixed by their names
	// (palette.Message): a type has the same colour in every page.
	TypeColors []string `json:"typeColors"`
	// The messages, by send: the trace's number (a string: numbers reach
	// 2^63), type index, sender, destination, and the event indices of
	// the send and of the receipt, drop or destruction (-1: still in
	// flight at the end).
	MsgID   []string `json:"msgId"`
	MsgType []int16  `json:"msgType"`
	MsgFrom []int32  `json:"msgFrom"`
	MsgTo   []int32  `json:"msgTo"`
	MsgSend []int32  `json:"msgSend"`
	MsgEnd  []int32  `json:"msgEnd"`

	// Fathers says whether the trace has father lines; without them the
	// page says the tree is not recorded.
	Fathers bool `json:"fathers"`
	// Warning is the first check that the trace breaks (trace.Check),
	// shown on the page; empty if it passes.
	Warning string `json:"warning"`
}

// line is one trace line, as Read decodes it.
type line struct {
	T      *float64 `json:"t"`
	Node   *int64   `json:"node"`
	Ev     string   `json:"ev"`
	Type   string   `json:"type"`
	From   *int64   `json:"from"`
	To     *int64   `json:"to"`
	Msg    *uint64  `json:"msg"`
	Father *int64   `json:"father"`
}

// Read reads a trace into the page's data. It refuses, naming the line,
// what cannot be drawn: a line that is not a JSON object of the trace's
// fields, an unknown event, a time that is not a number or goes back, a
// node number outside 0..hypercube.MaxNodes−1, a receipt or drop of a
// message never sent or already received (dropped, destroyed), and a
// trace without events. A
// trace that breaks one of trace.Check's other checks (mutual exclusion,
// a node that sends while down, …) is drawn, with the first such failure
// in Data.Warning: that is a run worth looking at.
func Read(r io.Reader) (*Data, error) {
	var raw bytes.Buffer
	d := &Data{Title: "trace", Delta: bench.DefaultDelta, Types: []string{}, TokenTypes: []int{}, MsgID: []string{}, MsgType: []int16{},
		MsgFrom: []int32{}, MsgTo: []int32{}, MsgSend: []int32{}, MsgEnd: []int32{}}
	sc := bufio.NewScanner(io.TeeReader(r, &raw))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	types := map[string]int{}
	open := map[uint64]int32{} // message number → index, while in flight
	sent := map[uint64]bool{}
	last := math.Inf(-1)
	maxNode := int64(-1)
	n := 0
	for sc.Scan() {
		n++
		fail := func(format string, args ...any) (*Data, error) {
			return nil, fmt.Errorf("trace line %d: %s", n, fmt.Sprintf(format, args...))
		}
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			return fail("empty line")
		}
		var l line
		if err := json.Unmarshal(b, &l); err != nil {
			return fail("not a trace event (one JSON object per line): %v", err)
		}
		if l.T == nil || l.Node == nil || l.Ev == "" {
			return fail("t, node and ev are needed")
		}
		kind, ok := kinds[l.Ev]
		if !ok {
			return fail("unknown event %q", l.Ev)
		}
		t := *l.T
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return fail("time %v", t)
		}
		if t < last {
			return fail("time %v before the previous line's %v", t, last)
		}
		last = t
		node := *l.Node
		system := node == -1 && (kind == KindFault || kind == KindLegitimate)
		if !system {
			if err := nodeID("node", node); err != nil {
				return fail("%v", err)
			}
			maxNode = max(maxNode, node)
		}
		var arg int64
		switch kind {
		case KindSend, KindRecv, KindDrop, KindDestroy:
			if l.Type == "" || l.From == nil || l.To == nil || l.Msg == nil {
				return fail("a %s needs type, from, to and msg", l.Ev)
			}
			for _, f := range []struct {
				name string
				id   int64
			}{{"from", *l.From}, {"to", *l.To}} {
				if err := nodeID(f.name, f.id); err != nil {
					return fail("%v", err)
				}
				maxNode = max(maxNode, f.id)
			}
			id := *l.Msg
			if kind == KindSend {
				if sent[id] {
					return fail("message %d sent twice", id)
				}
				sent[id] = true
				ty, ok := types[l.Type]
				if !ok {
					ty = len(d.Types)
					if ty >= math.MaxInt16 {
						return fail("more than %d message types", math.MaxInt16)
					}
					types[l.Type] = ty
					d.Types = append(d.Types, l.Type)
				}
				k := int32(len(d.MsgID))
				open[id] = k
				d.MsgID = append(d.MsgID, strconv.FormatUint(id, 10))
				d.MsgType = append(d.MsgType, int16(ty))
				d.MsgFrom = append(d.MsgFrom, int32(*l.From))
				d.MsgTo = append(d.MsgTo, int32(*l.To))
				d.MsgSend = append(d.MsgSend, int32(len(d.T)))
				d.MsgEnd = append(d.MsgEnd, -1)
				arg = int64(k)
				break
			}
			k, ok := open[id]
			switch {
			case !ok && sent[id]:
				return fail("message %d received, dropped or destroyed twice", id)
			case !ok:
				return fail("message %d %s before it is sent", id, l.Ev)
			}
			delete(open, id)
			d.MsgEnd[k] = int32(len(d.T))
			arg = int64(k)
		case KindFather:
			if l.Father == nil {
				return fail("a father line needs the father field")
			}
			if f := *l.Father; f != -1 {
				if err := nodeID("father", f); err != nil {
					return fail("%v", err)
				}
				maxNode = max(maxNode, f)
			}
			arg = *l.Father
			d.Fathers = true
		}
		if len(d.T) >= math.MaxInt32 {
			return fail("more than %d events", math.MaxInt32)
		}
		d.T = append(d.T, t)
		d.Kind = append(d.Kind, kind)
		d.Node = append(d.Node, int32(node))
		d.Arg = append(d.Arg, arg)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("trace line %d: %w", n+1, err)
	}
	if len(d.T) == 0 {
		return nil, ErrEmpty
	}
	d.Nodes = int(maxNode + 1)
	d.End = last
	for k, name := range d.Types {
		if palette.IsToken(name) {
			d.TokenTypes = append(d.TokenTypes, k)
		}
		d.TypeColors = append(d.TypeColors, palette.Message(name))
	}
	if _, err := trace.Check(bytes.NewReader(raw.Bytes())); err != nil {
		d.Warning = "check-trace: " + err.Error()
		if _, kerr := trace.CheckWith(bytes.NewReader(raw.Bytes()), trace.Options{KExclusion: true}); kerr == nil {
			d.Warning = "several nodes are in the critical section together: right for a k-out-of-ℓ exclusion algorithm (kofl, raymond-kex), a violation of mutual exclusion for the others (check-trace: " + err.Error() + ")"
		}
	}
	return d, nil
}

// nodeID refuses a node number outside 0..hypercube.MaxNodes−1.
func nodeID(field string, id int64) error {
	if id >= 0 && id < hypercube.MaxNodes {
		return nil
	}
	return fmt.Errorf("%s %d is not in 0..2^%d−1 (the largest N)", field, id, bits.Len(hypercube.MaxNodes)-1)
}

// Write writes the page of d to w: one HTML document with its style,
// script and data inline.
func Write(w io.Writer, d *Data) error {
	data, err := json.Marshal(d) // escapes <, > and &: safe inside <script>
	if err != nil {
		return fmt.Errorf("view: encoding the data: %w", err)
	}
	err = page.Execute(w, struct {
		Title string
		CSS   template.CSS
		JS    template.JS
		Data  template.JS
	}{d.Title, template.CSS(pageCSS), template.JS(pageJS), template.JS(data)})
	if err != nil {
		return fmt.Errorf("view: writing the page: %w", err)
	}
	return nil
}
