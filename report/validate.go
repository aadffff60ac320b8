package report

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/results"
)

// MaxValue bounds the magnitude of every number of a saved run: no run's
// count, time or mean comes near it (a run has fewer than 2^32 requests of
// at most N = 2^26 nodes, and times of at most 1e6δ each), and plotting
// values beyond it only makes unreadable axes.
const MaxValue = 1e18

// signed are the fields (JSON names, at any depth) whose numbers may be
// negative: the differential overhead (a run may send fewer messages than
// its baseline), the lower end of a confidence interval, the smallest
// measured delay (negative when the ranks' clocks disagree), and the false
// suspicions (-1: not judged). Every other number of a saved run is a
// count, a time, a size or a mean of them, at least 0.
var signed = map[string]float64{
	"overhead_differential":    -MaxValue,
	"ci95_low":                 -MaxValue,
	"measured_min_delay_delta": -MaxValue,
	"false_suspicions":         -1,
}

// nameRe is what an algorithm's or a workload's name may be: the report
// names figures and files after them.
var nameRe = regexp.MustCompile(`^[a-z0-9][a-z0-9._+-]{0,63}$`)

// Validate checks every field of a saved run that the report reads before
// it uses any: every number is finite, at most MaxValue in magnitude, and
// not negative (but for the signed fields); a run's N is in 2..2^26
// (hypercube.MaxNodes; a power of two but for the algorithms that run on
// any N); its algorithm and workload are names (no spaces, slashes or
// markup); the victims' powers are at most ⌊log2 N⌋. It
// returns the first bad field, named by its JSON path ("runs[0].nodes").
// A crafted file could otherwise make the plots loop for ever (N = 0, a
// mean of 1e308) or panic (N = −8).
func Validate(s *results.Saved) error {
	if s == nil {
		return errors.New("no saved run")
	}
	if err := walk("", reflect.ValueOf(s).Elem(), 0); err != nil {
		return err
	}
	for k, r := range s.Runs {
		at := func(field string) string { return fmt.Sprintf("runs[%d].%s", k, field) }
		if r == nil {
			return fmt.Errorf("%s: a run is null", fmt.Sprintf("runs[%d]", k))
		}
		if r.Nodes < 2 || r.Nodes > hypercube.MaxNodes {
			return fmt.Errorf("%s: %d is not in 2..2^%d", at("nodes"), r.Nodes, bitsOf(hypercube.MaxNodes))
		}
		p := bits.Len(uint(r.Nodes)) - 1 // ⌊log2 N⌋: N is a power of two but for the algorithms that run on any N
		if !nameRe.MatchString(r.Algorithm) {
			return fmt.Errorf("%s: %q is not an algorithm's name (lower-case letters, digits, '.', '_', '+', '-')", at("algorithm"), r.Algorithm)
		}
		if !nameRe.MatchString(r.Workload) {
			return fmt.Errorf("%s: %q is not a workload's name (lower-case letters, digits, '.', '_', '+', '-')", at("workload"), r.Workload)
		}
		if i := slices.IndexFunc(r.VictimPowers, func(v int) bool { return v > p }); i >= 0 {
			return fmt.Errorf("%s: %d is more than log2 N = %d", at(fmt.Sprintf("victim_powers[%d]", i)), r.VictimPowers[i], p)
		}
		if pv := r.Parity; pv != nil && pv.PValue > 1 {
			return fmt.Errorf("%s: %s is not a probability in [0, 1]", at("parity.p_value"), num(pv.PValue))
		}
	}
	return nil
}

// bitsOf returns log2 of a power of two.
func bitsOf(n int) int {
	p, _ := hypercube.Log2(n)
	return p
}

// maxDepth bounds walk's recursion (the saved run's types nest 4 deep).
const maxDepth = 16

// walk checks every number in v (a value of the saved run's types) and
// returns an error naming the first bad one by its JSON path.
func walk(path string, v reflect.Value, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%s: nested too deep", path)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return walk(path, v.Elem(), depth+1)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" && f.Anonymous && f.Type.Kind() == reflect.Struct {
				// a group of fields, flattened in JSON
				if err := walk(path, v.Field(i), depth+1); err != nil {
					return err
				}
				continue
			}
			if name == "" {
				name = f.Name
			}
			p := name
			if path != "" {
				p = path + "." + name
			}
			if err := walk(p, v.Field(i), depth+1); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := walk(fmt.Sprintf("%s[%d]", path, i), v.Index(i), depth+1); err != nil {
				return err
			}
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		for _, k := range keys {
			if err := walk(fmt.Sprintf("%s[%q]", path, fmt.Sprint(k)), v.MapIndex(k), depth+1); err != nil {
				return err
			}
		}
	case reflect.Float32, reflect.Float64:
		return number(path, v.Float())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if x := v.Int(); x < 0 {
			return number(path, float64(x))
		}
	}
	return nil
}

// number checks one number at path: finite, |x| ≤ MaxValue, and at least
// the field's lower bound (0 unless signed).
func number(path string, x float64) error {
	lo := 0.0
	for _, part := range strings.Split(path, ".") {
		name, _, _ := strings.Cut(part, "[")
		if b, ok := signed[name]; ok {
			lo = b
		}
	}
	if math.IsNaN(x) || math.IsInf(x, 0) || x < lo || x > MaxValue {
		return fmt.Errorf("%s: %s is not in [%s, %s]", path, num(x), num(lo), num(MaxValue))
	}
	return nil
}

// num formats a number for a message (results.Number).
func num(x float64) string { return results.Number(x) }
