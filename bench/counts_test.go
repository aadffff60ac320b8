package bench

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/sim"
)

// bump makes v, a settable value, differ from what it was: numbers grow,
// a string or bool is set, a slice or array changes its first element (a
// slice gets one if it has none).
func bump(t *testing.T, v reflect.Value) {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 3)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 3)
	case reflect.Float64:
		v.SetFloat(v.Float() + 3.25)
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
		}
		bump(t, v.Index(0))
	case reflect.Array:
		bump(t, v.Index(0))
	default:
		t.Fatalf("bump: %s", v.Type())
	}
}

// reaches checks the record tag of every field of the counts type T (and
// of the structs it embeds): made different in bg(), the field changes the
// record's JSON field the tag names (record builds the record from a T);
// "-" declares a counter the record does not show. A counter without the
// tag fails: adding one says where it goes.
func reaches[T any](t *testing.T, bg func() *T, record func(*T) []byte) {
	typ := reflect.TypeFor[T]()
	for _, f := range reflect.VisibleFields(typ) {
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			continue // embedded: its fields are listed
		}
		key, ok := f.Tag.Lookup("record")
		if !ok {
			t.Errorf("%s.%s has no record tag: name the record's JSON field it reaches, or \"-\"", typ, f.Name)
			continue
		}
		if key == "-" {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			field := func(c *T) json.RawMessage {
				var m map[string]json.RawMessage
				if err := json.Unmarshal(record(c), &m); err != nil {
					t.Fatal(err)
				}
				return m[key]
			}
			c := bg()
			bump(t, reflect.ValueOf(c).Elem().FieldByIndex(f.Index))
			if before, after := field(bg()), field(c); bytes.Equal(before, after) {
				t.Errorf("%s.%s does not reach the record's %q: %s whether it is set or not", typ, f.Name, key, before)
			}
		})
	}
}

// TestCountsReachRecord: every counter of sim.Counts (every runtime's)
// and of sim.Stats (the simulator's, which embeds them) reaches the field
// of the record its record tag names (or is declared not recorded),
// through the record builders the runtimes use: Record (every runtime's
// Outcome) and record (the simulator's outcome). A counter dropped between
// the counts and the record fails here.
func TestCountsReachRecord(t *testing.T) {
	spec := Spec{Algorithm: "opencube", Nodes: 8, Requests: 4, Workload: "poisson", Seed: 1, FT: true,
		LateFraction: 0.1, Faults: faults.FaultPlan{Crashes: 1, Spacing: "exp", Every: 10, Down: 5, DownDist: "exp", Target: "random"}}
	plan, err := spec.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	spec = plan.Spec
	encode := func(r any) []byte {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	t.Run("sim.Stats", func(t *testing.T) {
		bg := func() *sim.Stats {
			var st sim.Stats
			st.Crashed(1)
			return &st
		}
		reaches(t, bg, func(st *sim.Stats) []byte {
			o := &outcome{stats: *st, issued: 1, served: 1, tags: []uint32{0}, stab: sim.Stab{Legit: true}}
			return encode(record(plan, o))
		})
	})
	t.Run("sim.Counts", func(t *testing.T) {
		bg := func() *sim.Counts {
			var c sim.Counts
			c.Crashed(1)
			return &c
		}
		reaches(t, bg, func(c *sim.Counts) []byte {
			return encode(Record(MustResolve(spec), &Outcome{Runtime: "sim", Ranks: 1, Issued: 1, Served: 1, Counts: *c}))
		})
	})
}
