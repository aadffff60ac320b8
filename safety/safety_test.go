package safety

import (
	"testing"

	"github.com/ocbench/ocbench/proto"
)

// config is what a token checker sees of one configuration.
type config struct {
	held, inFlight int
	live           int // of the tokens in flight, the live ones
	liveCalled     bool
}

// TestMutex checks Mutex on sequences of configurations: the first that
// breaks it and its description.
func TestMutex(t *testing.T) {
	for _, c := range []struct {
		name string
		inCS []int
		at   int // the first broken, −1: none
		want string
	}{
		{"legal: one at a time", []int{0, 1, 0, 1, 1, 0}, -1, ""},
		{"illegal: two together", []int{0, 1, 2, 1}, 2, "2 nodes are in the critical section"},
		{"illegal: three together", []int{1, 3}, 1, "3 nodes are in the critical section"},
	} {
		t.Run(c.name, func(t *testing.T) {
			at, what := -1, ""
			for i, n := range c.inCS {
				if (Mutex{}).Broken(n) {
					at, what = i, Mutex{}.What(n)
					break
				}
			}
			if at != c.at || what != c.want {
				t.Errorf("broken at %d (%q), want %d (%q)", at, what, c.at, c.want)
			}
		})
	}
	if got, want := (Mutex{}).Entered(3, 1), "node 3 entered the critical section while 1 other node(s) were in it"; got != want {
		t.Errorf("Entered: %q, want %q", got, want)
	}
}

// TestKExclusion checks KExclusion on sequences of the units in use.
func TestKExclusion(t *testing.T) {
	for _, c := range []struct {
		name  string
		ell   int
		units []int
		at    int
		want  string
	}{
		{"legal: up to ℓ", 3, []int{0, 2, 3, 1, 3, 0}, -1, ""},
		{"illegal: one unit over", 3, []int{1, 3, 4}, 2, "4 units in use by the nodes in the critical section, ℓ = 3"},
		{"illegal: ℓ = 1 is mutual exclusion", 1, []int{1, 0, 2}, 2, "2 units in use by the nodes in the critical section, ℓ = 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := KExclusion{Ell: c.ell}
			at, what := -1, ""
			for i, u := range c.units {
				if k.Broken(u) {
					at, what = i, k.What(u)
					break
				}
			}
			if at != c.at || what != c.want {
				t.Errorf("broken at %d (%q), want %d (%q)", at, what, c.at, c.want)
			}
		})
	}
}

// TestToken checks Token on sequences of configurations, with and
// without crashes: the tokens counted, the first configuration that
// breaks the rule and its description, and that the live tokens are
// counted only when the rule needs them.
func TestToken(t *testing.T) {
	for _, c := range []struct {
		name    string
		crashes bool
		seq     []config
		at      int
		want    string
	}{
		{"legal: the token passes", false, []config{{held: 1}, {inFlight: 1}, {held: 1}}, -1, ""},
		{"illegal: a second token", false, []config{{held: 1}, {held: 1, inFlight: 1}}, 1, "2 tokens exist (1 held, 1 in flight)"},
		{"illegal: the token lost", false, []config{{inFlight: 1}, {}}, 1, "0 tokens exist (0 held, 0 in flight)"},
		{"legal with crashes: no token (a crash destroyed it)", true, []config{{held: 1}, {}, {held: 1}}, -1, ""},
		{"legal with crashes: a stale copy in flight", true,
			[]config{{held: 1}, {held: 1, inFlight: 1, live: 0, liveCalled: true}}, -1, ""},
		{"illegal with crashes: two live tokens", true,
			[]config{{inFlight: 1}, {held: 1, inFlight: 2, live: 1, liveCalled: true}}, 1, "2 tokens exist (1 held, 2 in flight)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := Token{Type: 7, Crashes: c.crashes}
			at, what := -1, ""
			for i, cf := range c.seq {
				called := false
				n := k.Count(cf.held, cf.inFlight, func() int { called = true; return cf.live })
				if called != cf.liveCalled {
					t.Errorf("configuration %d: live counted: %v, want %v", i, called, cf.liveCalled)
				}
				if k.Broken(n) {
					at, what = i, k.What(n, cf.held, cf.inFlight)
					break
				}
			}
			if at != c.at || what != c.want {
				t.Errorf("broken at %d (%q), want %d (%q)", at, what, c.at, c.want)
			}
		})
	}
}

// TestTokenLive checks which messages in flight are live tokens.
func TestTokenLive(t *testing.T) {
	k := Token{Type: 7, Crashes: true}
	for _, c := range []struct {
		name       string
		m          proto.Message
		toUp       bool
		toGen      uint64
		carry, liv bool
	}{
		{"a token to a node up, same generation", proto.Message{Type: 7, Stamp: 3}, true, 3, true, true},
		{"a token of a newer generation", proto.Message{Type: 7, Stamp: 4}, true, 3, true, true},
		{"a stale token", proto.Message{Type: 7, Stamp: 2}, true, 3, true, false},
		{"a token to a node down", proto.Message{Type: 7, Stamp: 3}, false, 0, true, false},
		{"another type", proto.Message{Type: 1}, true, 0, false, true},
	} {
		if got := k.Carries(&c.m); got != c.carry {
			t.Errorf("%s: Carries %v, want %v", c.name, got, c.carry)
		}
		if got := k.Live(&c.m, c.toUp, c.toGen); got != c.liv {
			t.Errorf("%s: Live %v, want %v", c.name, got, c.liv)
		}
	}
}

// edge is an entry (units > 0) or exit (units < 0) of stay key.
type edge struct{ key, units int }

// TestEntries checks Entries on sequences of entries and exits, under
// mutual exclusion (ell 0) and k-exclusion: every breach, in order.
func TestEntries(t *testing.T) {
	for _, c := range []struct {
		name  string
		ell   int
		seq   []edge
		want  []Breach
		wants []int // the index in seq of each breach
	}{
		{"mutex legal: one after the other", 0, []edge{{1, 1}, {1, -1}, {2, 1}, {2, -1}, {1, 1}}, nil, nil},
		{"mutex legal: the exit of a stay a crash ended", 0, []edge{{1, 1}, {1, -1}, {1, -1}, {2, 1}}, nil, nil},
		{"mutex illegal: an entry while another is in", 0, []edge{{1, 1}, {2, 1}, {1, -1}, {3, 1}},
			[]Breach{{Other: 1, InCS: 2}, {Other: 2, InCS: 2}}, []int{1, 3}},
		{"mutex illegal: the earliest entered is named", 0, []edge{{4, 1}, {5, 1}, {6, 1}},
			[]Breach{{Other: 4, InCS: 2}, {Other: 4, InCS: 3}}, []int{1, 2}},
		{"k-exclusion legal: up to ℓ units", 3, []edge{{1, 2}, {2, 1}, {1, -2}, {3, 2}, {2, -1}, {4, 1}}, nil, nil},
		{"k-exclusion illegal: over ℓ", 3, []edge{{1, 2}, {2, 1}, {3, 1}, {1, -2}, {4, 1}},
			[]Breach{{Units: 4}}, []int{2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := NewEntries(c.ell)
			var got []Breach
			var at []int
			for i, ed := range c.seq {
				if ed.units < 0 {
					e.Exit(ed.key, -ed.units)
					continue
				}
				if b, ok := e.Enter(ed.key, ed.units); ok {
					got, at = append(got, b), append(at, i)
				}
			}
			if len(got) != len(c.want) {
				t.Fatalf("breaches %+v at %v, want %+v at %v", got, at, c.want, c.wants)
			}
			for i := range got {
				if got[i] != c.want[i] || at[i] != c.wants[i] {
					t.Errorf("breach %d: %+v at %d, want %+v at %d", i, got[i], at[i], c.want[i], c.wants[i])
				}
			}
		})
	}
}
