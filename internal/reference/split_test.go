package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/ocbench/ocbench/bench"
)

// placements of n nodes on p parts: blocks of consecutive ids (the
// hypercube's low dimensions inside a part) and round robin.
func placements(n, p int) map[string][]int {
	block, cyclic := make([]int, n), make([]int, n)
	for i := range block {
		block[i] = i * p / n
		cyclic[i] = i % p
	}
	return map[string][]int{"block": block, "cyclic": cyclic}
}

// TestSplitEqualsSimulator runs every reference case that can be split
// (bench.Splittable) as 2, 3 and 4 parts, in blocks and round robin, and
// requires the record to be the simulator's, field for field (wall-clock
// time aside): a seed is one run, whichever way its nodes are hosted.
func TestSplitEqualsSimulator(t *testing.T) {
	parts := []int{2, 3, 4}
	if testing.Short() {
		parts = []int{3}
	}
	eachSplittable(t, func(name string, spec bench.Spec, want string, wantTrace []byte) {
		for _, p := range parts {
			for place, owner := range placements(spec.Nodes, p) {
				t.Run(fmt.Sprintf("%s/%d-%s", name, p, place), func(t *testing.T) {
					sameAsSimulator(t, name, spec, want, wantTrace, func(s bench.Spec) (any, error) { return bench.RunSplit(s, owner) })
				})
			}
		}
	})
}

// eachSplittable calls f with every reference case that a split run can
// host (its min-delay raised to bench.MinVirtualDelay; bench.Splittable),
// in name order, with the simulator's record and trace of it; at least 20
// cases must be splittable.
func eachSplittable(t *testing.T, f func(name string, spec bench.Spec, want string, wantTrace []byte)) {
	t.Helper()
	all := cases()
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	sort.Strings(names)
	tested := 0
	for _, name := range names {
		spec := all[name]
		spec.MinDelay = max(spec.MinDelay, bench.MinVirtualDelay)
		filled, err := bench.Filled(spec)
		if err != nil || bench.Splittable(filled) != nil {
			continue
		}
		tested++
		var wantTrace bytes.Buffer
		spec.Trace = &wantTrace
		want := record(t, name, func() (any, error) { return bench.Run(spec) })
		f(name, spec, want, wantTrace.Bytes())
	}
	if tested < 20 {
		t.Errorf("only %d reference cases can be split", tested)
	}
}

// sameAsSimulator runs spec through run, with a trace, and requires the
// simulator's record want and trace wantTrace. When the simulator's run
// breaks an invariant, the parts see it at the next window boundary, so
// the records part there: run's must fail too.
func sameAsSimulator(t *testing.T, name string, spec bench.Spec, want string, wantTrace []byte, run func(bench.Spec) (any, error)) {
	t.Helper()
	var trace bytes.Buffer
	spec.Trace = &trace
	got := record(t, name, func() (any, error) { return run(spec) })
	if violated(t, want) {
		if !violated(t, got) {
			t.Errorf("the simulator's run fails, this one does not: %s", got)
		}
		return
	}
	if got != want {
		t.Errorf("record differs:\n got %s\nwant %s", firstDiff(got, want), firstDiff(want, got))
	}
	if !bytes.Equal(trace.Bytes(), wantTrace) {
		g, w := trace.String(), string(wantTrace)
		t.Errorf("merged trace differs (%d bytes, the simulator's %d):\n got %s\nwant %s", len(g), len(w), firstDiff(g, w), firstDiff(w, g))
	}
}

func record(t *testing.T, name string, f func() (any, error)) string {
	t.Helper()
	r, err := f()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "wall_seconds")
	b, err = json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// violated reports whether the record in JSON has a violation.
func violated(t *testing.T, rec string) bool {
	var r struct {
		Violation string `json:"violation"`
	}
	if err := json.Unmarshal([]byte(rec), &r); err != nil {
		t.Fatal(err)
	}
	return r.Violation != ""
}
