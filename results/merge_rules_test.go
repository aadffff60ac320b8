package results

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/results/mergetest"
)

// TestMergeRules checks the merge rule of every field of Run: two runs
// that differ only in that field merge as the rule says, and a custom
// field (or what Merge derives from it) is not dropped.
func TestMergeRules(t *testing.T) {
	bg := func() *Run { return goldenRuns()[0] }
	merge := func(a, b *Run) *Run { return Merge([]*Run{a, b}) }
	mergetest.CheckRules(t, bg, merge, map[string]mergetest.Custom[Run]{
		"Seed":                  {Shows: "Seeds"},
		"Seeds":                 {Set: func(r *Run) { r.Seed = 99 }},
		"OverheadPerFailure":    {Set: func(r *Run) { r.OverheadSamples = []float64{100} }},
		"OverheadByVictimPower": {Set: func(r *Run) { r.VictimPowers = []int{1, 1, 1} }},
		"OverheadStratified":    {Set: func(r *Run) { r.VictimPowers = []int{1, 1, 1} }},
		"DetectionPerRequest":   {Set: func(r *Run) { r.MessagesByCause = map[string]int64{"liveness": 1000} }},
		"RecoveryDelta":         {Set: func(r *Run) { r.RecoverySamples = []float64{100} }},
		"MsgsPerEntry":          {Set: func(r *Run) { r.MessagesStable = 1000 }},
	})
}

// TestMergeStabilizationRules is TestMergeRules for the stabilization of
// self-stabilizing runs.
func TestMergeStabilizationRules(t *testing.T) {
	bg := func() *Stabilization { return goldenRuns()[0].Stabilization }
	merge := func(a, b *Stabilization) *Stabilization {
		ra, rb := goldenRuns()[0], goldenRuns()[0]
		ra.Stabilization, rb.Stabilization = a, b
		return Merge([]*Run{ra, rb}).Stabilization
	}
	over := func(s *Stabilization) {
		s.Runs = []StabRun{{Seed: 2, Stabilized: true, Rounds: 100, HopRounds: 90, Delta: 1000, AsyncRounds: 5000}}
	}
	mergetest.CheckRules(t, bg, merge, map[string]mergetest.Custom[Stabilization]{
		"Rounds":         {Set: over},
		"HopRounds":      {Set: over},
		"Delta":          {Set: over},
		"OverBound":      {Set: over},
		"AsyncRounds":    {Set: over},
		"OverAsyncBound": {Set: over},
		"NotStabilized":  {Set: func(s *Stabilization) { s.Runs = []StabRun{{Seed: 2}} }},
	})
}

// TestMergePlanChecks: a field without a merge tag, with an unknown rule,
// or with a rule that does not fit its type is refused.
func TestMergePlanChecks(t *testing.T) {
	for _, c := range []struct {
		name string
		typ  reflect.Type
	}{
		{"no tag", reflect.TypeFor[struct{ A int }]()},
		{"unknown rule", reflect.TypeFor[struct {
			A int `merge:"mean"`
		}]()},
		{"sum of strings", reflect.TypeFor[struct {
			A string `merge:"sum"`
		}]()},
		{"max of a slice", reflect.TypeFor[struct {
			A []int `merge:"max"`
		}]()},
		{"all of an int", reflect.TypeFor[struct {
			A int `merge:"all"`
		}]()},
		{"append to a map", reflect.TypeFor[struct {
			A map[string]int `merge:"append"`
		}]()},
		{"sum of a map of strings", reflect.TypeFor[struct {
			A map[string]string `merge:"sum"`
		}]()},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("mustPlan(%v) did not panic", c.typ)
				}
			}()
			mustPlan(c.typ)
		})
	}
}

// TestRunGroupsFlat: Run's groups of fields are flat in JSON, every field
// under its own name in the order of the fields (a name twice in two
// groups would make encoding/json drop both, silently).
func TestRunGroupsFlat(t *testing.T) {
	var want []string
	for _, f := range mergetest.Leaves(reflect.TypeFor[Run]()) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		want = append(want, name)
	}
	b, err := json.Marshal(mergetest.NonZero(reflect.TypeFor[Run](), 1).Interface())
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var got []string
	if _, err := dec.Token(); err != nil { // {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("JSON keys of a record with every field set:\n%q\nwant the fields' JSON names in order:\n%q", got, want)
	}
}
