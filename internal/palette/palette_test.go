package palette

import (
	"slices"
	"testing"

	"github.com/ocbench/ocbench/algo"
	_ "github.com/ocbench/ocbench/algo/all"
)

// TestEveryName: every registered algorithm has a slot, no two share a
// style; every message type has a slot, no algorithm has two types of one
// colour (the token's excepted: every token type is TokenColor).
func TestEveryName(t *testing.T) {
	seen := map[Style]string{}
	for _, n := range algo.Names() {
		if !slices.Contains(Algorithms, n) {
			t.Errorf("algorithm %s has no slot in Algorithms: add it at the end", n)
		}
		s := Algorithm(n)
		if other, ok := seen[s]; ok {
			t.Errorf("%s and %s share the style %v", n, other, s)
		}
		seen[s] = n
		a, _ := algo.Lookup(n)
		colors := map[string]string{}
		for _, ty := range a.MessageTypes() {
			if IsToken(ty.Name) {
				continue
			}
			if _, ok := messageSlot[ty.Name]; !ok {
				t.Errorf("%s's message type %s has no slot in messageSlot", n, ty.Name)
			}
			c := Message(ty.Name)
			if other, ok := colors[c]; ok {
				t.Errorf("%s's message types %s and %s share the colour %s", n, ty.Name, other, c)
			}
			colors[c] = ty.Name
		}
	}
}

// TestFixedByName: a name's style does not depend on what else is asked,
// nor on the order; unknown names get one too.
func TestFixedByName(t *testing.T) {
	for _, c := range []struct{ name, color string }{
		{"request", MessageColors[0]}, {"token", TokenColor}, {"CToken", TokenColor}, {"enquiry", MessageColors[2]},
	} {
		if got := Message(c.name); got != c.color {
			t.Errorf("Message(%q) = %s, want %s", c.name, got, c.color)
		}
	}
	if Algorithm("opencube") != (Style{Color: SeriesColors[0], Shape: 0}) || Algorithm("raymond") != (Style{Color: SeriesColors[0], Shape: 3}) {
		t.Errorf("opencube %v, raymond %v: not their slots' styles", Algorithm("opencube"), Algorithm("raymond"))
	}
	a, m := Algorithm("no-such"), Message("no-such")
	for range 3 {
		Algorithm("another")
		Message("another")
		if Algorithm("no-such") != a || Message("no-such") != m {
			t.Error("an unknown name's style changes with what else is asked")
		}
	}
	if !slices.Contains(SeriesColors, a.Color) || !slices.Contains(MessageColors, m) {
		t.Errorf("an unknown name's style %v, %s is not from the palette", a, m)
	}
}
