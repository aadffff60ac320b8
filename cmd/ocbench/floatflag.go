package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/pflag"
)

// floatRange is the range of a float flag, as its help and its refusals
// name it: [lo, hi], (lo, hi] when openLo, in unit.
type floatRange struct {
	lo, hi float64
	openLo bool
	unit   string // e.g. "δ"; empty: none
	text   string // the range in words, when no interval says it (lo, hi then unused)
}

func (r floatRange) String() string {
	if r.text != "" {
		return r.text
	}
	left := "["
	if r.openLo {
		left = "("
	}
	s := fmt.Sprintf("%s%s, %s]", left, num(r.lo), num(r.hi))
	if r.unit != "" {
		s += " (" + r.unit + ")"
	}
	return s
}

// contains reports whether x is in the interval (always, for a range in words).
func (r floatRange) contains(x float64) bool {
	if r.text != "" {
		return true
	}
	return (r.openLo && x > r.lo || !r.openLo && x >= r.lo) && x <= r.hi
}

// flagValueError is a float flag's refusal of its value: the message
// follows the flag's name ("--timeout: NaN is not in [0, 100]").
type flagValueError struct{ msg string }

func (e *flagValueError) Error() string { return e.msg }

// parseFloat is the one parser of every float flag of every subcommand: a
// number, never NaN, never ±Inf (every range is finite), and, when strict,
// in r. A flag that is not strict leaves a finite value out of r to the
// validation of the run, which knows whether the flag applies and what its
// 0 means (bench.Spec.Validate).
func parseFloat(s string, r floatRange, strict bool) (float64, error) {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, &flagValueError{fmt.Sprintf("%q is not a number", s)}
	}
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || strict && !r.contains(x) {
		return 0, &flagValueError{fmt.Sprintf("%s is not in %s", num(x), r)}
	}
	return x, nil
}

// floatFlag is a float64 flag parsed by parseFloat.
type floatFlag struct {
	v      *float64
	r      floatRange
	strict bool
}

func (f floatFlag) String() string {
	if f.v == nil {
		return "0"
	}
	return strconv.FormatFloat(*f.v, 'g', -1, 64)
}

func (f floatFlag) Set(s string) error {
	x, err := parseFloat(s, f.r, f.strict)
	if err != nil {
		return err
	}
	*f.v = x
	return nil
}

// Type is pflag's name of a float64 flag, so the help reads the same.
func (f floatFlag) Type() string { return "float64" }

// floatVar defines a float flag in fs that refuses what parseFloat refuses:
// every float flag of ocbench is one.
func floatVar(fs *pflag.FlagSet, p *float64, name string, value float64, r floatRange, strict bool, usage string) {
	*p = value
	fs.Var(floatFlag{p, r, strict}, name, usage)
}
