package bench

import "math"

// budget is the most a simulated run may take: steps (every input a node
// processes: a delivery, a timer, an enter_cs or exit, a crash, a
// recovery) and virtual time. A run that reaches either is stopped and
// reported as a liveness violation, with the command that replays it, so that
// no spec can make a run go on for ever (Validate's bounds keep the budget
// itself finite).
type budget struct {
	steps   int64
	virtual float64 // seconds
}

// budgetSlack is how many times what a run needs its budget allows.
const budgetSlack = 16

// budgetFor returns the budget of a run of spec (filled) whose workload
// issues requests until the time until (seconds): budgetSlack times a
// generous estimate of what the workload and the fault plan need.
//
// Time, in δ: every request served one after the other, each a CS and a
// path of requests and tokens (2·log2 N + 4 messages, each up to δ, or up
// to the late factor); the poisson workload's think times (every node's
// think times one after the other: ⌈R/N⌉ + 1 of them, four times their
// mean); the fault plan (until), a recovery per crash; the settle time, the
// repair pass and four periods of the watchdog (which must see a stall
// before the budget does).
//
// Steps: per request, its messages (and with ℓ units, ℓ(N + 4) more) and
// the failure protocol's timers and beats while it waits (at most N
// requests ahead of it); per crash, the
// searches it causes (every node testing half the others at worst, N²/2
// messages, and their answers); and a node's share of the steps per δ of
// the time above, for the timers of the failure protocol.
func budgetFor(spec Spec, until float64) budget {
	p := ceilLog2(spec.Nodes)
	n, r := float64(spec.Nodes), float64(spec.Requests)
	crashes := float64(spec.Faults.Crashes)
	hop := 1.0 // the longest delay, in δ
	if spec.LateFraction > 0 {
		hop = spec.LateFactor
	}
	path := float64(2*p+4) * hop
	serve := spec.CSTime + path
	need := r*serve + crashes*(float64(4*p+12)*hop+spec.CSEstimate) +
		(until+Settle(spec)+4*WatchPeriod(spec))/spec.Delta
	if spec.Workload == "poisson" {
		need += 4 * (math.Ceil(r/n) + 1) * spec.Think
	}
	if spec.Repair {
		need += n * (serve + Settle(spec)/spec.Delta)
	}
	steps := r*(path+4)*(1+n) + crashes*(n*n+8*n) + n*need
	if spec.Repair {
		steps += n * (path + 4) * (1 + n)
	}
	// A k-exclusion request moves up to ℓ tokens, each a message, and a
	// traversal counts them (kofl: about 5ℓ messages per request at N = 8).
	steps += r * float64(spec.Ell) * (n + 4)
	return budget{
		steps:   int64(math.Min(budgetSlack*(steps+1e5), math.MaxInt64/2)),
		virtual: budgetSlack * need * spec.Delta,
	}
}

// The budget is checked at every window boundary (Part.observe), against
// the whole run's steps and the virtual time; within a window, each part
// stops at the budget's steps (sim.Config.MaxSteps), which catches a loop
// at one instant of virtual time (a CS time of 0 could make one) that no
// boundary would end.
