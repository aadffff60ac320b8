package sim

import "testing"

// TestRounds drives the asynchronous-round counter through steps with
// known delivery times and checks where rounds begin.
func TestRounds(t *testing.T) {
	type step struct {
		now  float64
		post []float64 // delivery times of the messages the step sends
	}
	cases := []struct {
		name  string
		steps []step
		want  int64
	}{
		{"one step", []step{{0, nil}}, 1},
		{"steps at one time with nothing in flight: one round", []step{{0, nil}, {0, nil}, {0, nil}}, 1},
		{"nothing in flight: the round ends at the next later step", []step{{0, nil}, {5, nil}}, 1},
		{"and the step after that begins the next", []step{{0, nil}, {5, nil}, {6, nil}}, 2},
		// A chain of messages: a hop a round.
		{"a chain of three hops", []step{{0, []float64{1}}, {1, []float64{2}}, {2, []float64{3}}, {3, nil}}, 3},
		// Two messages sent at 0 (due 1 and 2): the round ends with the
		// later; a message sent at 1 (due 1.5) is received in that round
		// too, being due before its end; one sent at 2 is the next round's.
		{"a round waits for its last message", []step{{0, []float64{1, 2}}, {1, []float64{1.5}}, {1.5, nil}, {2, []float64{3}}, {3, nil}}, 2},
		// A timer's wait with nothing in flight is one round.
		{"a long timer gap", []step{{0, []float64{1}}, {1, nil}, {100, nil}}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r rounds
			for _, s := range c.steps {
				r.step(s.now)
				for _, due := range s.post {
					r.due = max(r.due, due)
				}
			}
			if r.begun != c.want {
				t.Errorf("%d rounds, want %d", r.begun, c.want)
			}
		})
	}
}
