package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// nonZero returns a non-zero value of type t, a different one for every
// n ≥ 1, growing with n for numbers: n for integers, n+0.25 for floats,
// "value n", true, a slice of one element, a map of one or two keys, a
// pointer to such a value, a struct of them.
func nonZero(t reflect.Type, n int) reflect.Value {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(n) + 0.25)
	case reflect.String:
		v.SetString(fmt.Sprintf("value %d", n))
	case reflect.Slice:
		v = reflect.Append(v, nonZero(t.Elem(), n))
	case reflect.Array:
		for i := range v.Len() {
			v.Index(i).Set(nonZero(t.Elem(), n))
		}
	case reflect.Map:
		v = reflect.MakeMap(t)
		v.SetMapIndex(nonZero(t.Key(), 1), nonZero(t.Elem(), n))
		v.SetMapIndex(nonZero(t.Key(), n), nonZero(t.Elem(), n))
	case reflect.Pointer:
		v = reflect.New(t.Elem())
		v.Elem().Set(nonZero(t.Elem(), n))
	case reflect.Struct:
		for i := range t.NumField() {
			v.Field(i).Set(nonZero(t.Field(i).Type, n))
		}
	default:
		panic("nonZero: " + t.String())
	}
	return v
}

// sum returns a+b for integers, floats, maps of them, and slices and
// arrays of those (element by element).
func sum(a, b reflect.Value) reflect.Value {
	v := reflect.New(a.Type()).Elem()
	switch {
	case a.CanInt():
		v.SetInt(a.Int() + b.Int())
	case a.CanUint():
		v.SetUint(a.Uint() + b.Uint())
	case a.Kind() == reflect.Slice || a.Kind() == reflect.Array:
		if a.Kind() == reflect.Slice {
			v = reflect.MakeSlice(a.Type(), max(a.Len(), b.Len()), max(a.Len(), b.Len()))
		}
		for i := range v.Len() {
			x, y := reflect.Zero(a.Type().Elem()), reflect.Zero(a.Type().Elem())
			if i < a.Len() {
				x = a.Index(i)
			}
			if i < b.Len() {
				y = b.Index(i)
			}
			v.Index(i).Set(sum(x, y))
		}
	case a.CanFloat():
		v.SetFloat(a.Float() + b.Float())
	case a.Kind() == reflect.Map:
		v = reflect.MakeMap(a.Type())
		for _, m := range []reflect.Value{a, b} {
			for it := m.MapRange(); it.Next(); {
				c := it.Value().Int()
				if old := v.MapIndex(it.Key()); old.IsValid() {
					c += old.Int()
				}
				v.SetMapIndex(it.Key(), reflect.ValueOf(c).Convert(a.Type().Elem()))
			}
		}
	default:
		panic("sum: " + a.Type().String())
	}
	return v
}

// A customCase says how to see that a custom field is not dropped: what
// run 2 has (default: the field non-zero) and which merged field must then
// differ from the merge of two runs without it (default: the field).
type customCase[T any] struct {
	set   func(*T)
	shows string
}

// leaves returns the fields of struct type t that carry a merge rule: its
// fields, and those of its embedded structs without a merge tag (groups),
// in order.
func leaves(t reflect.Type) []reflect.StructField {
	var fs []reflect.StructField
	for _, f := range reflect.VisibleFields(t) {
		if _, tagged := f.Tag.Lookup("merge"); !tagged && f.Anonymous && f.Type.Kind() == reflect.Struct {
			continue // a group: its fields are listed
		}
		if len(f.Index) > 1 && !groupPath(t, f.Index) {
			continue
		}
		fs = append(fs, f)
	}
	return fs
}

// groupPath reports whether every field on the path index into t but the
// last is an embedded struct without a merge tag.
func groupPath(t reflect.Type, index []int) bool {
	for _, i := range index[:len(index)-1] {
		f := t.Field(i)
		if _, tagged := f.Tag.Lookup("merge"); tagged || !f.Anonymous {
			return false
		}
		t = f.Type
	}
	return true
}

// checkRules checks the merge rule of every field of T: merge merges two
// values of T that are bg() except in the field under test.
func checkRules[T any](t *testing.T, bg func() *T, merge func(a, b *T) *T, custom map[string]customCase[T]) {
	typ := reflect.TypeFor[T]()
	for name := range custom {
		if f, ok := typ.FieldByName(name); !ok || f.Tag.Get("merge") != "custom" {
			t.Errorf("custom case %s: not a custom field of %s", name, typ.Name())
		}
	}
	fields := leaves(typ)
	if len(fields) == 0 {
		t.Fatalf("%s has no fields", typ.Name())
	}
	for _, f := range fields {
		i := f.Index
		rule, ok := f.Tag.Lookup("merge")
		if _, known := mergeRules[rule]; !ok || !known && rule != "custom" {
			t.Errorf("%s.%s: merge tag %q: no tag or unknown rule", typ.Name(), f.Name, rule)
			continue
		}
		t.Run(f.Name+"/"+rule, func(t *testing.T) {
			zero := reflect.Zero(f.Type)
			one, two := nonZero(f.Type, 1), nonZero(f.Type, 2)
			got := func(x, y reflect.Value) reflect.Value {
				a, b := bg(), bg()
				reflect.ValueOf(a).Elem().FieldByIndex(i).Set(x)
				reflect.ValueOf(b).Elem().FieldByIndex(i).Set(y)
				return reflect.ValueOf(merge(a, b)).Elem().FieldByIndex(i)
			}
			want := func(x, y, w reflect.Value) {
				t.Helper()
				if g := got(x, y); !reflect.DeepEqual(g.Interface(), w.Interface()) {
					t.Errorf("merge of %v and %v = %v, want %v", show(x), show(y), show(g), show(w))
				}
			}
			switch rule {
			case "same":
				want(one, one, one)
			case "sum":
				want(one, two, sum(one, two))
				want(zero, two, two)
			case "max":
				want(one, two, two)
				want(two, one, two)
			case "min":
				want(one, two, one)
				want(two, one, one)
			case "first":
				want(zero, two, two)
				want(one, two, one)
			case "any":
				want(zero, zero, zero)
				want(one, zero, one)
				want(zero, one, one)
			case "all":
				want(one, one, one)
				want(one, zero, zero)
				want(zero, one, zero)
			case "append":
				want(one, two, reflect.AppendSlice(one, two))
				want(zero, zero, zero)
			case "custom":
				c := custom[f.Name]
				shows := f
				if c.shows != "" {
					shows, _ = typ.FieldByName(c.shows)
				}
				pair := func(set bool) reflect.Value {
					a, b := bg(), bg()
					reflect.ValueOf(a).Elem().FieldByIndex(i).Set(zero)
					reflect.ValueOf(b).Elem().FieldByIndex(i).Set(zero)
					if set && c.set != nil {
						c.set(b)
					} else if set {
						reflect.ValueOf(b).Elem().FieldByIndex(i).Set(two)
					}
					return reflect.ValueOf(merge(a, b)).Elem().FieldByIndex(shows.Index)
				}
				without, with := pair(false), pair(true)
				if reflect.DeepEqual(without.Interface(), with.Interface()) {
					t.Errorf("dropped: merged %s is %v whether run 2 has it or not", shows.Name, show(with))
				}
			default:
				t.Fatalf("no test for rule %q", rule)
			}
		})
	}
}

func show(v reflect.Value) string {
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		return "&" + show(v.Elem())
	}
	return fmt.Sprintf("%+v", v.Interface())
}

// TestMergeRules checks the merge rule of every field of Run: two runs
// that differ only in that field merge as the rule says, and a custom
// field (or what Merge derives from it) is not dropped.
func TestMergeRules(t *testing.T) {
	bg := func() *Run { return goldenRuns()[0] }
	merge := func(a, b *Run) *Run { return Merge([]*Run{a, b}) }
	checkRules(t, bg, merge, map[string]customCase[Run]{
		"Seed":                  {shows: "Seeds"},
		"Seeds":                 {set: func(r *Run) { r.Seed = 99 }},
		"OverheadPerFailure":    {set: func(r *Run) { r.OverheadSamples = []float64{100} }},
		"OverheadByVictimPower": {set: func(r *Run) { r.VictimPowers = []int{1, 1, 1} }},
		"OverheadStratified":    {set: func(r *Run) { r.VictimPowers = []int{1, 1, 1} }},
		"DetectionPerRequest":   {set: func(r *Run) { r.MessagesByCause = map[string]int64{"liveness": 1000} }},
		"RecoveryDelta":         {set: func(r *Run) { r.RecoverySamples = []float64{100} }},
		"MsgsPerEntry":          {set: func(r *Run) { r.MessagesStable = 1000 }},
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
	checkRules(t, bg, merge, map[string]customCase[Stabilization]{
		"Rounds":         {set: over},
		"HopRounds":      {set: over},
		"Delta":          {set: over},
		"OverBound":      {set: over},
		"AsyncRounds":    {set: over},
		"OverAsyncBound": {set: over},
		"NotStabilized":  {set: func(s *Stabilization) { s.Runs = []StabRun{{Seed: 2}} }},
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
	for _, f := range leaves(reflect.TypeFor[Run]()) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		want = append(want, name)
	}
	b, err := json.Marshal(nonZero(reflect.TypeFor[Run](), 1).Interface())
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
