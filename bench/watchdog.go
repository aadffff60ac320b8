package bench

// Watchdog is a run's liveness watch, one definition for every runtime.
// Every Period it asks the workload whether it has stalled
// (Workload.Stalled: nothing served since the previous tick while a
// request has waited a whole period, or a count that can no longer close)
// and, if so, calls Stuck once and stops ticking. The first tick only
// notes what was served: a stall is judged over a whole period.
//
// The simulator watches a run whose nodes set timers (a failure protocol,
// a self-stabilizing algorithm): any other run that stalls runs out of
// events, which the simulator sees. A distributed runtime cannot see that
// across its ranks, so each rank watches its own nodes in every run; in
// wall-clock time with a Period of several WatchPeriods (a descheduled
// rank is not a stalled algorithm).
type Watchdog struct {
	// Host schedules the ticks (Host.After).
	Host Host
	// Work is the workload watched: the hosted nodes' requests.
	Work *Workload
	// Period is the time between ticks, and the wait that counts as a
	// stall, in seconds; Delta is δ, for the description.
	Period, Delta float64
	// Over reports that the watch is over (the workload ended, or the run
	// stopped): the tick does nothing and schedules no other.
	Over func() bool
	// Judged, if not nil, reports whether the run can be judged now: a
	// self-stabilizing algorithm promises nothing before it stabilizes,
	// so a tick before then judges nothing and the next starts afresh.
	Judged func() bool
	// Poll, if not nil, is called at every tick that goes on (the
	// simulator's budget check).
	Poll func()
	// Stuck receives the stall's description, once.
	Stuck func(why string)

	last int64 // served at the previous tick (-1: judge afresh)
}

// Start schedules the first tick, one Period from now.
func (w *Watchdog) Start() {
	w.last = -1
	w.Host.After(w.Period, w.tick)
}

func (w *Watchdog) tick() {
	if w.Over() {
		return
	}
	if w.Poll != nil {
		w.Poll()
	}
	if w.Judged != nil && !w.Judged() {
		w.last = -1
		w.Host.After(w.Period, w.tick)
		return
	}
	if why := w.Work.Stalled(w.last, w.Period, w.Delta); why != "" {
		w.Stuck(why)
		return
	}
	w.last = w.Work.Served()
	w.Host.After(w.Period, w.tick)
}
