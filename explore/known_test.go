package explore

import (
	"testing"
)

// reference is a plain breadth-first search over the explorer's own
// transitions, one goroutine, every state kept whole in a map: what the
// parallel search with fingerprints (and levels, path logs, a step cache)
// must count.
type reference struct {
	states, transitions, terminal int64
	depth                         int
}

func referenceSearch(t *testing.T, cfg Config) reference {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	inits, err := e.initial()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var cur, next [][]byte
	for _, s := range inits {
		e.legitimate(s)
		b := appendState(nil, s)
		if !seen[string(b)] {
			seen[string(b)] = true
			cur = append(cur, b)
		}
	}
	var r reference
	var s, c sys
	for ; len(cur) > 0; r.depth++ {
		next = next[:0]
		for _, enc := range cur {
			if !e.readState(enc, &s) {
				t.Fatal(errCorrupt)
			}
			if err := e.decodeNodes(&s); err != nil {
				t.Fatal(err)
			}
			as := e.actions(&s, nil)
			if len(as) == 0 {
				r.terminal++
			}
			for _, a := range as {
				r.transitions++
				if err := e.apply(&s, a, &c, nil); err != nil {
					t.Fatal(err)
				}
				e.legitimate(&c)
				b := appendState(nil, &c)
				if !seen[string(b)] {
					seen[string(b)] = true
					next = append(next, b)
				}
			}
		}
		cur, next = next, cur
	}
	r.depth--
	r.states = int64(len(seen))
	return r
}
