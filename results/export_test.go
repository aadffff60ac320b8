package results

import "testing"

// CheckCountsRules is checkRules for a counts type T of another package
// (sim.Counts, sim.Stats): merge merges two values of T that are bg()
// except in the field under test, and custom names how each custom field
// shows (set on the second value; shows: the field that must then differ).
func CheckCountsRules[T any](t *testing.T, bg func() *T, merge func(a, b *T) *T, custom map[string]func(*T)) {
	cs := map[string]customCase[T]{}
	for name, set := range custom {
		cs[name] = customCase[T]{set: set}
	}
	checkRules(t, bg, merge, cs)
}
