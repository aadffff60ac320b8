package bench

import (
	"fmt"

	"github.com/ocbench/ocbench/results"
)

// Bounds of a Spec's inputs. Validate refuses values outside them, each with
// a one-line error (a FieldError) that names the field and the accepted range, so that no
// input asks for a run that cannot end: a think time of 1e308δ put the first
// request beyond any time the simulator reaches, and a crash gap of 1e308δ
// made the fault plan end at +Inf. A think time of 0 (the default N ×
// cs-time with --cs-time 0) let a node holding the token enter the critical
// section again at the same instant for ever: the command refuses it when
// the default or a preset sets it (Validate takes a Spec with Think and
// CSTime 0, which tests of other packages use). Within the bounds, every run
// also has a budget of steps and virtual time (budgetFor), which ends such a
// loop too.
const (
	// MaxTime is the largest time parameter, in δ: the poisson think time,
	// the CS time, the gap between crashes, the crash start, the downtime,
	// the root's CS estimate and the late factor. 1e6δ is 1000 s at the
	// default δ of 1 ms; a think time of 1e6δ already leaves a 32-node system
	// idle but for one request every 31,000δ.
	MaxTime = 1e6
	// MinThink is the smallest mean think time of the poisson workload, in
	// δ (the time a node's cycle of requests must take, so that the
	// workload moves virtual time on). It is also the smallest CS time of
	// the saturated workload with crashes, which issues requests until the
	// fault plan is over.
	MinThink = 1e-3
	// MinDelta and MaxDelta bound δ, in seconds.
	MinDelta, MaxDelta = 1e-9, 1e3
	// MaxCrashes is the largest number of crashes in a fault plan.
	MaxCrashes = 1000000
	// MinGap is the smallest mean (or fixed) gap between crashes and the
	// smallest downtime, in δ: a thousandth of the largest message delay,
	// the resolution at which the plan's times still spread crashes over
	// the run. Below it a plan piles its crashes at one instant: 10^6
	// crashes 1e-6δ apart (or 1e-300δ, with downtimes as short) start as
	// many failure searches in a fraction of δ, and the simulator stopped
	// the run as a message storm (81,920 messages in flight at N = 32)
	// blamed on the algorithm; at 1e-3δ the same plan runs (13 s).
	MinGap = 1e-3
)

// num formats a number for a message (results.Number).
func num(x float64) string { return results.Number(x) }

// FieldError is a spec that cannot run, for a reason that belongs to one
// of its fields: Field names it as a Go path in Spec ("Nodes",
// "Faults.Crashes", "Transient.Mode"; "Placement" for a runtime's
// placement). A program maps it to its own words (cmd/ocbench: the flag).
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }

// Unwrap returns the reason.
func (e *FieldError) Unwrap() error { return e.Err }

// fieldErr returns a FieldError of field, its reason formatted as by
// fmt.Errorf.
func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// inRange returns an error naming field unless lo ≤ x ≤ hi (lo < x when
// open), with what the accepted range is and its unit.
func inRange(field string, x, lo, hi float64, open bool, unit string) error {
	if (open && x > lo || !open && x >= lo) && x <= hi {
		return nil
	}
	left := "["
	if open {
		left = "("
	}
	return fieldErr(field, "%s is not in %s%s, %s] (%s)", num(x), left, num(lo), num(hi), unit)
}
