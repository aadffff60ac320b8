package main

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/internal/field"
	"github.com/ocbench/ocbench/rank"
)

// specFields returns the paths of t's fields, nested structs of ocbench's
// packages walked into ("Faults.Crashes").
func specFields(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Kind() == reflect.Struct && strings.HasPrefix(f.Type.PkgPath(), "github.com/ocbench/ocbench/") {
			out = append(out, specFields(f.Type, prefix+f.Name+".")...)
			continue
		}
		out = append(out, prefix+f.Name)
	}
	return out
}

// TestEveryFieldHasAFlag: every field of bench.Spec that a user sets maps
// to a flag of the command, and every flag mapped exists; so an error
// about any field names the flag to change.
func TestEveryFieldHasAFlag(t *testing.T) {
	notFlags := map[string]bool{"Trace": true, "Progress": true} // set by --trace, and by the progress display
	fs := newFlags(&options{})
	for _, f := range specFields(reflect.TypeFor[bench.Spec](), "") {
		if notFlags[f] {
			continue
		}
		flag, ok := flagOf[f]
		if !ok {
			t.Errorf("Spec.%s has no flag in flagOf", f)
			continue
		}
		if fs.Lookup(strings.TrimPrefix(flag, "--")) == nil {
			t.Errorf("Spec.%s maps to %s, which is not a flag", f, flag)
		}
	}
}

// TestFlagError: a field error, alone or inside a runtime's validation
// error, comes out naming the flag.
func TestFlagError(t *testing.T) {
	bad := bench.Spec{Algorithm: "opencube", Nodes: 12, Requests: 1, Workload: "poisson"}
	_, _, mpiErr := rank.Check(bench.Spec{Algorithm: "opencube", Nodes: 8, Requests: 1, Workload: "each"}, "block", 2)
	for _, c := range []struct {
		err  error
		want string
	}{
		{bad.Validate(), "--nodes: "},
		{mpiErr, "--workload: each is computed in one process"},
		{&field.Error{Field: "Ranks", Err: errors.New("3 ranks")}, "mpirun -np: 3 ranks"},
		{errors.New("plain"), "plain"},
	} {
		if got := flagError(c.err); got == nil || !strings.HasPrefix(got.Error(), c.want) {
			t.Errorf("flagError(%v) = %v, want %q…", c.err, got, c.want)
		}
	}
}
