// Package field provides the errors of a run's inputs that cannot run: an
// Error names the input's field (a Go path in bench.Spec, "Faults.Crashes")
// and says why, with the accepted range or values, so that a program maps
// it to its own words (cmd/ocbench: the flag). It also holds the bound
// shared by the time fields of every package that validates a part of a
// spec (MaxTime).
package field

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ocbench/ocbench/results"
)

// MaxTime is the largest time parameter, in δ: the poisson think time, the
// CS time, the gap between crashes, the crash start, the downtime, the
// root's CS estimate, the late factor and the gap between corruption
// events. 1e6δ is 1000 s at the default δ of 1 ms; a think time of 1e6δ
// already leaves a 32-node system idle but for one request every 31,000δ.
const MaxTime = 1e6

// Error is an input that cannot run, for a reason that belongs to one of
// its fields: Field names it as a Go path in bench.Spec ("Nodes",
// "Faults.Crashes", "Transient.Mode"; "Placement" for a runtime's
// placement).
type Error struct {
	Field string
	Err   error
}

func (e *Error) Error() string { return e.Field + ": " + e.Err.Error() }

// Unwrap returns the reason.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an Error of field, its reason formatted as by fmt.Errorf.
func Errorf(field, format string, args ...any) error {
	return &Error{Field: field, Err: fmt.Errorf(format, args...)}
}

// InRange returns an Error naming field unless lo ≤ x ≤ hi (lo < x when
// open), with the accepted range and its unit.
func InRange(field string, x, lo, hi float64, open bool, unit string) error {
	if (open && x > lo || !open && x >= lo) && x <= hi {
		return nil
	}
	left := "["
	if open {
		left = "("
	}
	return Errorf(field, "%s is not in %s%s, %s] (%s)", Num(x), left, Num(lo), Num(hi), unit)
}

// OneOf returns nil if v is one of allowed, else an error that lists them
// ("unknown what "v" (allowed: a, b)").
func OneOf[T ~string](what string, v T, allowed []T) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return fmt.Errorf("unknown %s %q (allowed: %s)", what, v, Join(allowed))
}

// Join returns the values of an enumeration separated by ", ".
func Join[T ~string](xs []T) string {
	s := make([]string, len(xs))
	for k, x := range xs {
		s[k] = string(x)
	}
	return strings.Join(s, ", ")
}

// Num formats a number for a message (results.Number).
func Num(x float64) string { return results.Number(x) }
