package results

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestKeys: every column of every table has a key that no other column of
// its table has, and the default tables name only existing keys.
func TestKeys(t *testing.T) {
	tables := []struct {
		name     string
		cols     []Column
		priority []string
	}{
		{"failure-free", FailureFreeColumns, FailureFreeDefault},
		{"crash", CrashColumns, CrashDefault},
		{"stabilization", StabilizationColumns, StabilizationDefault},
	}
	for _, tb := range tables {
		seen := map[string]bool{}
		for _, k := range Keys(tb.cols) {
			if seen[k] || k == "" || strings.ContainsAny(k, " ,()") {
				t.Errorf("%s: key %q repeated or not a name", tb.name, k)
			}
			seen[k] = true
		}
		for _, k := range tb.priority {
			if !seen[k] {
				t.Errorf("%s: the default names %q, which is no column", tb.name, k)
			}
		}
	}
	for head, want := range map[string]string{"msg/CS mean": "msg/cs-mean", "overhead/failure (msg)": "overhead/failure",
		"false susp.": "false-susp", "ℓ": "ell", "δ max": "delta-max", "N": "N", "sync p99 (δ)": "sync-p99"} {
		if got := (Column{Head: head}).Key(); got != want {
			t.Errorf("key of %q = %q, want %q", head, got, want)
		}
	}
}

// TestFit: the fitted table is at most the width, keeps the columns in the
// table's order, takes them by priority, and names the ones left out.
func TestFit(t *testing.T) {
	runs := []*Run{{Algorithm: "ricart-agrawala-token", Nodes: 4096, Requests: Requests{MsgsPerRequest: Summary{Mean: 12.5, P99: 20, Max: 30}}}}
	for _, width := range []int{30, 60, 100, 1000} {
		cols, left := Fit(FailureFreeColumns, FailureFreeDefault, runs, width)
		var b bytes.Buffer
		if err := WriteFitted(&b, []string{strings.Repeat("a header word ", 20)}, cols, runs, width, left); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if n := utf8.RuneCountInString(l); n > max(width, 42) { // algorithm and N always show
				t.Errorf("width %d: a line of %d runes: %q", width, n, l)
			}
		}
		var keys []string
		for _, c := range cols {
			keys = append(keys, c.Head)
		}
		if keys[0] != "algorithm" || keys[1] != "N" {
			t.Errorf("width %d: columns %v, want algorithm and N first", width, keys)
		}
		if width == 1000 && len(left) != 0 {
			t.Errorf("width 1000: left out %v", left)
		}
		if width == 60 && (keys[2] != "msg/CS" || len(left) == 0 || !strings.Contains(b.String(), "not shown")) {
			t.Errorf("width 60: columns %v, left %v; want msg/CS third and a note of those left out", keys, left)
		}
	}
}

// TestWrapComment: a long comment line breaks at spaces into lines of at
// most the width, which keep every word in order.
func TestWrapComment(t *testing.T) {
	line := "# " + strings.Repeat("δ-word ", 40) + "end"
	for _, width := range []int{20, 50, 100} {
		got := WrapComment(line, width)
		for i, l := range got {
			if utf8.RuneCountInString(l) > width || !strings.HasPrefix(l, "#") || (i > 0 && !strings.HasPrefix(l, "#   ")) {
				t.Errorf("width %d: line %q", width, l)
			}
		}
		var words []string
		for _, l := range got {
			words = append(words, strings.Fields(strings.TrimPrefix(l, "#"))...)
		}
		if strings.Join(words, " ") != strings.TrimSpace(strings.TrimPrefix(line, "#")) {
			t.Errorf("width %d: words lost or moved", width)
		}
	}
	if got := WrapComment("# short", 100); len(got) != 1 || got[0] != "# short" {
		t.Errorf("a short line changed: %q", got)
	}
}

// TestDeltaVerdict: a δ broken under MPI in wall-clock time puts the
// failure protocol's safety at stake only when one runs.
func TestDeltaVerdict(t *testing.T) {
	for _, c := range []struct {
		ft   bool
		want string
	}{{true, "the failure protocol's safety rests on δ"}, {false, "safety does not rest on δ"}} {
		r := &Run{Algorithm: "kofl", Nodes: 16, Runtime: "mpi", MPI: MPI{Clock: "wall", DelaysOverDelta: 3}, Delays: Delays{MaxDelayDelta: 1.5}, Crash: Crash{FaultTolerant: c.ft}}
		var b bytes.Buffer
		if err := WriteTable(&b, nil, FailureFreeColumns, []*Run{r}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("fault tolerant %v: %q, want %q", c.ft, b.String(), c.want)
		}
	}
}

// TestSavedName: a saved run's name says what ran: up to three
// algorithms by name, more by their number; a partial run says so.
func TestSavedName(t *testing.T) {
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	mk := func(partial bool, algos ...string) *Saved {
		s := &Saved{Environment: Environment{Seed: 1, Partial: partial}}
		for _, a := range algos {
			s.Runs = append(s.Runs, &Run{Algorithm: a, Nodes: 32})
		}
		return s
	}
	for _, c := range []struct {
		s    *Saved
		want string
	}{
		{mk(false, "opencube"), "20260102T030405Z-opencube-N32-seed1"},
		{mk(false, "opencube", "raymond", "lamport"), "20260102T030405Z-opencube_raymond_lamport-N32-seed1"},
		{mk(false, "opencube", "mishra-srimani", "naimi-trehel-ft", "nishio"), "20260102T030405Z-4-algorithms-N32-seed1"},
		{mk(true, "opencube"), "20260102T030405Z-opencube-N32-partial-seed1"},
	} {
		if got := baseName(c.s, when); got != c.want {
			t.Errorf("baseName = %q, want %q", got, c.want)
		}
	}
}
