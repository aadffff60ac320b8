// Package mergetest checks the merge rules of a struct type whose fields
// carry `merge` tags (results.Merge, results.AddCounts): that every field
// has a known rule and that merging two values that differ in one field
// gives what the rule says. results' tests check Run and the counts types
// with it; a runtime's own counts type (rank's report) is checked the same
// way.
package mergetest

import (
	"fmt"
	"reflect"
	"testing"
)

// rules are the merge rules (results.Merge's package doc).
var rules = map[string]bool{"same": true, "sum": true, "max": true, "min": true, "first": true,
	"any": true, "all": true, "append": true, "custom": true}

// NonZero returns a non-zero value of type t, a different one for every
// n ≥ 1, growing with n for numbers: n for integers, n+0.25 for floats,
// "value n", true, a slice of one element, a map of one or two keys, a
// pointer to such a value, a struct of them.
func NonZero(t reflect.Type, n int) reflect.Value {
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
		v = reflect.Append(v, NonZero(t.Elem(), n))
	case reflect.Array:
		for i := range v.Len() {
			v.Index(i).Set(NonZero(t.Elem(), n))
		}
	case reflect.Map:
		v = reflect.MakeMap(t)
		v.SetMapIndex(NonZero(t.Key(), 1), NonZero(t.Elem(), n))
		v.SetMapIndex(NonZero(t.Key(), n), NonZero(t.Elem(), n))
	case reflect.Pointer:
		v = reflect.New(t.Elem())
		v.Elem().Set(NonZero(t.Elem(), n))
	case reflect.Struct:
		for i := range t.NumField() {
			v.Field(i).Set(NonZero(t.Field(i).Type, n))
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

// A Custom case says how to see that a custom field is not dropped: what
// the second value has (Set; default: the field non-zero) and which merged
// field must then differ from the merge of two values without it (Shows;
// default: the field). Kept declares a field the merge leaves out, which
// the caller reads from each value (per part, per rank): it must then be
// zero in the merge.
type Custom[T any] struct {
	Set   func(*T)
	Shows string
	Kept  bool
}

// Leaves returns the fields of struct type t that carry a merge rule: its
// fields, and those of its embedded structs without a merge tag (groups),
// in order.
func Leaves(t reflect.Type) []reflect.StructField {
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

// CheckRules checks the merge rule of every field of T: merge merges two
// values of T that are bg() except in the field under test.
func CheckRules[T any](t *testing.T, bg func() *T, merge func(a, b *T) *T, custom map[string]Custom[T]) {
	typ := reflect.TypeFor[T]()
	for name := range custom {
		if f, ok := typ.FieldByName(name); !ok || f.Tag.Get("merge") != "custom" {
			t.Errorf("custom case %s: not a custom field of %s", name, typ.Name())
		}
	}
	fields := Leaves(typ)
	if len(fields) == 0 {
		t.Fatalf("%s has no fields", typ.Name())
	}
	for _, f := range fields {
		i := f.Index
		rule, ok := f.Tag.Lookup("merge")
		if !ok || !rules[rule] {
			t.Errorf("%s.%s: merge tag %q: no tag or unknown rule", typ.Name(), f.Name, rule)
			continue
		}
		t.Run(f.Name+"/"+rule, func(t *testing.T) {
			zero := reflect.Zero(f.Type)
			one, two := NonZero(f.Type, 1), NonZero(f.Type, 2)
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
				if c.Kept {
					a, b := bg(), bg()
					reflect.ValueOf(a).Elem().FieldByIndex(i).Set(one)
					reflect.ValueOf(b).Elem().FieldByIndex(i).Set(two)
					if g := reflect.ValueOf(merge(a, b)).Elem().FieldByIndex(i); !g.IsZero() {
						t.Errorf("kept per part, but merged to %v", show(g))
					}
					return
				}
				shows := f
				if c.Shows != "" {
					shows, _ = typ.FieldByName(c.Shows)
				}
				pair := func(set bool) reflect.Value {
					a, b := bg(), bg()
					reflect.ValueOf(a).Elem().FieldByIndex(i).Set(zero)
					reflect.ValueOf(b).Elem().FieldByIndex(i).Set(zero)
					if set && c.Set != nil {
						c.Set(b)
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
