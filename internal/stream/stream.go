// Package stream names the seeded random streams of a run. Every purpose
// draws from a stream of its own (math/rand/v2's PCG with the run's seed
// and the stream's number), so that adding crashes to a run does not
// change its workload, and a seed replays the same run in every runtime.
// The numbers are part of what a seed means: changing one changes every
// recorded run that draws from it.
package stream

// The streams.
const (
	// Workload is the sequential workload's requesters and the workload's
	// other draws.
	Workload = 1
	// Faults is the crash plan: times, downtimes, random victims.
	Faults = 3
	// Targets is the victims of targeted crashes.
	Targets = 4
	// Transient is the transient faults: corruption times and the
	// arbitrary initial configuration.
	Transient = 5
	// Edit is an edit's draws; its seed is the edit's own.
	Edit = 7
	// Climb is the worst-case climb's edits.
	Climb = 8
)
