package bench

import (
	"github.com/ocbench/ocbench/algo/kexcl"
	"github.com/ocbench/ocbench/internal/field"
)

// Bounds of a Spec's inputs. Validate refuses values outside them, each with
// a one-line error (a field.Error) that names the field and the accepted range, so that no
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
	// MinThink is the smallest mean think time of the poisson workload, in
	// δ (the time a node's cycle of requests must take, so that the
	// workload moves virtual time on). It is also the smallest CS time of
	// the saturated workload with crashes, which issues requests until the
	// fault plan is over.
	MinThink = 1e-3
	// MinDelta and MaxDelta bound δ, in seconds.
	MinDelta, MaxDelta = 1e-9, 1e3
)

// DefaultEll is ℓ, the units of a k-exclusion run, when --ell is not
// given; K (--k-max) defaults to ℓ.
const DefaultEll = kexcl.DefaultEll

// MaxEll bounds --ell (the tokens of a k-exclusion run).
const MaxEll = 1 << 16

// MaxThink is the largest mean think time of the poisson workload on n
// nodes with a CS time of csTime δ: field.MaxTime, or the default think
// time N × cs-time where it is larger (N ≥ 2^20 at a CS time of 1δ), so
// that the default, which keeps the offered load the same at every N, runs
// at every N.
func MaxThink(n int, csTime float64) float64 { return max(field.MaxTime, float64(n)*csTime) }
