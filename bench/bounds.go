package bench

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
