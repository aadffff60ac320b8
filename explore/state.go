package explore

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/ocbench/ocbench/proto"
)

// flight is a message in flight: its entry in the explorer's table of
// messages (shared, never changed) and its window. In discrete time, lo
// and hi are the ticks left before it may arrive and before it must have
// arrived.
type flight struct {
	*message
	lo, hi uint8
	// old marks, in the stabilization search, a message in flight when
	// the current round began (Explorer.Stabilization).
	old bool
}

// message is an entry of the explorer's table of messages.
type message struct {
	enc []byte // the message's encoding (appendMessage)
	id  uint32 // its number in the table (internMsg)
	m   proto.Message
}

// timer is a timer set by a node, due in at ticks: its entry in the
// explorer's table of timers (shared, never changed) and at.
type timer struct {
	*timerSet
	at uint16
}

// timerSet is an entry of the explorer's table of timers.
type timerSet struct {
	enc  []byte // appendTimer
	id   uint32 // its number in the table (internTimer)
	node proto.NodeID
	t    proto.Timer
}

// ext is what the explorer keeps of a node beside its state: the requests
// it issued, and in discrete time the ticks it has spent in the critical
// section.
type ext struct {
	issued, cs uint8
}

// sys is a state of the whole system, decoded: its nodes' states (their
// numbers in the explorer's table of node states, and the nodes with their
// views), the explorer's counters, the messages in flight and the timers
// set.
type sys struct {
	ids     []uint32
	nodes   []proto.Node
	views   []proto.View
	ext     []ext
	msgs    []flight
	timers  []timer
	crashes uint8
	legit   bool
	closure string // legitimate before the last step, not after it
	// rounds is how many round events the last step counted (apply).
	rounds int32
}

// appendMessage appends m's canonical encoding to b.
func appendMessage(b []byte, m *proto.Message) []byte {
	b = append(b, byte(m.Type), byte(m.Cause), m.Phase, m.Reply)
	b = binary.LittleEndian.AppendUint32(b, uint32(m.From))
	b = binary.LittleEndian.AppendUint32(b, uint32(m.To))
	b = binary.LittleEndian.AppendUint32(b, uint32(m.J.Node()))
	b = binary.LittleEndian.AppendUint32(b, uint32(m.Src.Node()))
	b = binary.LittleEndian.AppendUint64(b, m.Stamp)
	b = binary.LittleEndian.AppendUint32(b, m.Tag)
	b = binary.AppendUvarint(b, uint64(len(m.Payload)))
	for _, w := range m.Payload {
		b = binary.LittleEndian.AppendUint64(b, uint64(w))
	}
	return b
}

func appendTimer(b []byte, node proto.NodeID, t *proto.Timer) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(node))
	b = append(b, t.Kind)
	b = binary.LittleEndian.AppendUint32(b, t.Seq)
	b = binary.LittleEndian.AppendUint32(b, uint32(t.Arg))
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(t.After))
}

// sortFlights puts messages in their canonical order: by encoding and
// window; with FIFO channels, by channel, keeping each channel's order.
func sortFlights(ms []flight, fifo bool) {
	if fifo {
		slices.SortStableFunc(ms, cmpChannel)
		return
	}
	slices.SortFunc(ms, cmpFlight)
}

// cmpChannel orders messages by channel.
func cmpChannel(a, b flight) int {
	if c := int(a.m.From) - int(b.m.From); c != 0 {
		return c
	}
	return int(a.m.To) - int(b.m.To)
}

// cmpFlight orders messages by encoding and window (two messages it finds
// equal are the same).
func cmpFlight(a, b flight) int {
	if a.message != b.message {
		if c := bytes.Compare(a.enc, b.enc); c != 0 {
			return c
		}
	}
	if c := int(a.lo) - int(b.lo); c != 0 {
		return c
	}
	if c := int(a.hi) - int(b.hi); c != 0 {
		return c
	}
	return boolCmp(a.old, b.old)
}

// insertFlight adds f to ms, in canonical order: what appending f and
// sorting (sortFlights) gives.
func insertFlight(ms []flight, f flight, fifo bool) []flight {
	if fifo {
		return insertSorted(ms, f, cmpChannel)
	}
	return insertSorted(ms, f, cmpFlight)
}

// insertSorted adds x to s, sorted by cmp, after the elements cmp finds
// equal to it: what appending x and sorting stably gives.
func insertSorted[T any](s []T, x T, cmp func(a, b T) int) []T {
	s = append(s, x)
	i := len(s) - 1
	for ; i > 0 && cmp(s[i-1], x) > 0; i-- {
		s[i] = s[i-1]
	}
	s[i] = x
	return s
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// cmpTimer orders timers by encoding and tick (two timers it finds equal
// are the same).
func cmpTimer(a, b timer) int {
	if a.timerSet != b.timerSet {
		if c := bytes.Compare(a.enc, b.enc); c != 0 {
			return c
		}
	}
	return int(a.at) - int(b.at)
}

// insertTimer adds t to ts, in canonical order (by cmpTimer): what
// appending t and sorting gives.
func insertTimer(ts []timer, t timer) []timer { return insertSorted(ts, t, cmpTimer) }

// appendState appends the canonical encoding of s (sorted) to b: a
// message or a timer is its number in the explorer's tables (one number
// an encoding), with its window.
func appendState(b []byte, s *sys) []byte {
	n := len(b)
	b = slices.Grow(b, 2+6*len(s.ids)+2*binary.MaxVarintLen32+(binary.MaxVarintLen32+3)*len(s.msgs)+(binary.MaxVarintLen32+2)*len(s.timers))
	b = b[:cap(b)]
	fl := byte(0)
	if s.legit {
		fl = 1
	}
	b[n], b[n+1] = s.crashes, fl
	n += 2
	for i, id := range s.ids {
		x := s.ext[i]
		b[n], b[n+1] = x.issued, x.cs
		binary.LittleEndian.PutUint32(b[n+2:], id)
		n += 6
	}
	n += binary.PutUvarint(b[n:], uint64(len(s.msgs)))
	for _, f := range s.msgs {
		n += putUvarint32(b[n:], f.id)
		old := byte(0)
		if f.old {
			old = 1
		}
		b[n], b[n+1], b[n+2] = f.lo, f.hi, old
		n += 3
	}
	n += binary.PutUvarint(b[n:], uint64(len(s.timers)))
	for _, t := range s.timers {
		n += putUvarint32(b[n:], t.id)
		binary.LittleEndian.PutUint16(b[n:], t.at)
		n += 2
	}
	return b[:n]
}

// putUvarint32 is binary.PutUvarint for a uint32, with a short path for
// the small numbers that most are.
func putUvarint32(b []byte, x uint32) int {
	if x < 0x80 {
		b[0] = byte(x)
		return 1
	}
	return binary.PutUvarint(b, uint64(x))
}

// readState parses appendState's encoding into s (its slices alias b and
// the explorer's tables), without looking the nodes up.
func (e *Explorer) readState(b []byte, s *sys) bool {
	n := e.cfg.Nodes
	if len(b) < 2 {
		return false
	}
	s.crashes, s.legit = b[0], b[1] == 1
	b = b[2:]
	s.ids, s.ext = s.ids[:0], s.ext[:0]
	for range n {
		if len(b) < 6 {
			return false
		}
		s.ext = append(s.ext, ext{b[0], b[1]})
		s.ids = append(s.ids, binary.LittleEndian.Uint32(b[2:]))
		b = b[6:]
	}
	nm, k := binary.Uvarint(b)
	if k <= 0 {
		return false
	}
	b = b[k:]
	s.msgs = s.msgs[:0]
	for range nm {
		id, k := binary.Uvarint(b)
		if k <= 0 || len(b)-k < 3 {
			return false
		}
		p := e.msgAt(id)
		if p == nil {
			return false
		}
		s.msgs = append(s.msgs, flight{message: p, lo: b[k], hi: b[k+1], old: b[k+2] == 1})
		b = b[k+3:]
	}
	nt, k := binary.Uvarint(b)
	if k <= 0 {
		return false
	}
	b = b[k:]
	s.timers = s.timers[:0]
	for range nt {
		id, k := binary.Uvarint(b)
		if k <= 0 || len(b)-k < 2 {
			return false
		}
		p := e.timerAt(id)
		if p == nil {
			return false
		}
		s.timers = append(s.timers, timer{timerSet: p, at: binary.LittleEndian.Uint16(b[k:])})
		b = b[k+2:]
	}
	return len(b) == 0
}

// itemTable numbers the distinct messages and timers met, by encoding
// (shared by the workers; an entry never changes once added): a state
// names each message in flight and each timer by its number.
type itemTable struct {
	mu       sync.Mutex
	msgs     []*message
	msgIdx   map[string]uint32
	timers   []*timerSet
	timerIdx map[string]uint32
}

// internMsg returns the table's entry of message m, encoded as enc.
func (e *Explorer) internMsg(enc []byte, m proto.Message) *message {
	t := e.items
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.msgIdx[string(enc)]
	if !ok {
		id = uint32(len(t.msgs))
		t.msgIdx[string(enc)] = id
		t.msgs = append(t.msgs, &message{enc: enc, id: id, m: m})
	}
	return t.msgs[id]
}

// internTimer returns the table's entry of node's timer x, encoded as enc.
func (e *Explorer) internTimer(enc []byte, node proto.NodeID, x proto.Timer) *timerSet {
	t := e.items
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.timerIdx[string(enc)]
	if !ok {
		id = uint32(len(t.timers))
		t.timerIdx[string(enc)] = id
		t.timers = append(t.timers, &timerSet{enc: enc, id: id, node: node, t: x})
	}
	return t.timers[id]
}

// msgAt returns message id, or nil if there is none.
func (e *Explorer) msgAt(id uint64) *message {
	if id >= uint64(len(e.msgs)) {
		e.items.mu.Lock()
		e.msgs = e.items.msgs
		e.items.mu.Unlock()
		if id >= uint64(len(e.msgs)) {
			return nil
		}
	}
	return e.msgs[id]
}

// timerAt returns timer id, or nil if there is none.
func (e *Explorer) timerAt(id uint64) *timerSet {
	if id >= uint64(len(e.timers)) {
		e.items.mu.Lock()
		e.timers = e.items.timers
		e.items.mu.Unlock()
		if id >= uint64(len(e.timers)) {
			return nil
		}
	}
	return e.timers[id]
}

// hash64 hashes a state's encoding (a multiply-xorshift hash in the
// manner of wyhash; it need not be cryptographic, only well mixed).
func hash64(b []byte) uint64 {
	const p0, p1, p2 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db, 0x8ebc6af09c88c6e3
	h := uint64(len(b)) ^ p0
	for len(b) >= 16 {
		h = mix(binary.LittleEndian.Uint64(b)^p1, binary.LittleEndian.Uint64(b[8:])^h)
		b = b[16:]
	}
	if len(b) >= 8 {
		h = mix(binary.LittleEndian.Uint64(b)^p1, h^p2)
		b = b[8:]
	}
	var t uint64
	for i, c := range b {
		t |= uint64(c) << (8 * i)
	}
	return mix(t^p2, h^p1)
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}
