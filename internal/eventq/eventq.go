// Package eventq is the event queue of ocbench's runtimes: a binary
// min-heap of (time, key) entries, each naming its event by an index into
// the runtime's own table of events. Equal times are ordered by the key,
// which the runtime gives (the simulator: the order of scheduling), so that
// a run replays identically. It is hand-written so that pushing and
// popping box no value in an interface.
package eventq

// Item is an entry of the queue: the event's time T, the Key that orders
// equal times, and the index Idx of the event in the runtime's table.
type Item struct {
	T   float64
	Key uint64
	Idx int32
}

// Before reports whether a comes before b: earlier, or as early with a
// smaller key.
func (a Item) Before(b Item) bool {
	return a.T < b.T || (a.T == b.T && a.Key < b.Key)
}

// Queue is a binary min-heap of Items; its zero value is empty. Min is
// q[0].
type Queue []Item

// Push adds x.
func (q *Queue) Push(x Item) {
	*q = append(*q, x)
	s := *q
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s[i].Before(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

// Pop removes and returns the first Item; the queue must not be empty.
func (q *Queue) Pop() Item {
	s := *q
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(s) {
			break
		}
		m := l
		if r := l + 1; r < len(s) && s[r].Before(s[l]) {
			m = r
		}
		if !s[m].Before(s[i]) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*q = s
	return top
}
