package sim

import (
	"slices"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
)

// Counts are the counters of one run that every runtime keeps, each once:
// the simulator in Stats (which embeds them), each rank of an MPI job in
// its report. Parts and ranks add up their Counts by the rule in each
// field's `merge` tag (Add: results.AddCounts, the reflection that merges
// records); the `record` tag names the field of the run's record (JSON)
// that bench's record builder writes from a counter, or "-" for the
// runtime's own bookkeeping (bench's TestCountsReachRecord checks both
// tags). Adding a metric that every runtime counts is adding a field here.
type Counts struct {
	// Steps counts the nodes' steps; Delivered the messages delivered,
	// and Dropped those that reached a node while it was down.
	Steps     int64 `merge:"sum" record:"steps"`
	Delivered int64 `merge:"sum" record:"-"`
	Dropped   int64 `merge:"sum" record:"messages_dropped"`
	// MaxDelay is the largest delivery delay seen, in seconds.
	MaxDelay float64 `merge:"max" record:"max_delay_delta"`
	// Sent counts the messages sent by type and cause: Sent[type][cause].
	Sent [proto.MaxMsgTypes][proto.NumCauses]int64 `merge:"sum" record:"messages_total"`
	// Events counts the algorithm's events (proto.Output.Events, named by
	// the algorithm). The simulator counts those of the steps up to the
	// last call of End (or Fault, or the last step that made the
	// legitimacy predicate hold, or 1024 steps before).
	Events [proto.MaxEvents]int64 `merge:"sum" record:"events"`
	// Suspicions counts the failures nodes suspected (proto.Suspicion).
	Suspicions int64 `merge:"sum" record:"suspicions"`
	// Waits are the waits of the served requests, from enter_cs to the
	// entry, in δ; Sync the synchronization delays, in δ. A runtime sets
	// both at the end of the run.
	Waits []float64 `merge:"append" record:"wait_delta"`
	Sync  []float64 `merge:"append" record:"sync_delay_delta"`
	// Crashes is the number of crashes injected; PerFailure counts the
	// failure-cause messages attributed to each crash (sent after it and
	// before the next), ByType the same by message type, and PreCrash the
	// failure-cause messages sent before the first crash. FirstEntry is,
	// per crash, the time from the crash to the first entry into the
	// critical section anywhere, in seconds (-1: none).
	//
	// CrashTimes and the three methods Crashed, Failure and Entered are the
	// one rule of crash attribution, which every runtime applies (see
	// Failure).
	Crashes    int                      `merge:"max" record:"failures"`
	PerFailure []float64                `merge:"sum" record:"overhead_samples"`
	ByType     [proto.MaxMsgTypes]int64 `merge:"sum" record:"overhead_by_type"`
	PreCrash   int64                    `merge:"sum" record:"failure_messages_before_first_crash"`
	FirstEntry []float64                `merge:"custom" record:"recovery_samples"` // the earliest on any rank: Add
	CrashTimes []float64                `json:"-" merge:"same" record:"-"`
	// SlotByType is ByType per crash, kept only by the counts of planned
	// crashes (Planned), so that DropSkipped can take a skipped first
	// crash's messages out of ByType.
	SlotByType [][]int64 `json:",omitempty" merge:"sum" record:"-"`
	// Recoveries is the number of crashed nodes that came back;
	// Abandoned the requests of nodes that crashed while they waited.
	Recoveries int   `merge:"sum" record:"recoveries"`
	Abandoned  int64 `merge:"sum" record:"requests_abandoned_by_crash"`
}

// Planned returns the empty counts of one rank of a distributed runtime,
// whose ranks do not see each other's crashes: every crash of the plan
// (at the times given, in seconds) is taken to happen at its planned time,
// and rank 0 removes those skipped at run time from the sum of the ranks'
// counts (DropSkipped). Since a crash happens at its planned time, this
// attributes every message as Crashed, called as crashes happen, does.
func Planned(crashes []float64) Counts {
	var c Counts
	for _, at := range crashes {
		c.Crashed(at)
	}
	c.SlotByType = make([][]int64, len(crashes))
	return c
}

// MessagesTotal returns the number of messages sent.
func (c *Counts) MessagesTotal() int64 {
	var t int64
	for _, byCause := range c.Sent {
		for _, n := range byCause {
			t += n
		}
	}
	return t
}

// Crashed records a crash at time t (seconds), after every crash recorded
// so far.
func (c *Counts) Crashed(at float64) {
	c.Crashes++
	c.CrashTimes = append(c.CrashTimes, at)
	c.PerFailure = append(c.PerFailure, 0)
	c.FirstEntry = append(c.FirstEntry, -1)
}

// latest returns the index of the latest crash at or before time now, or -1.
func (c *Counts) latest(now float64) int {
	k := len(c.CrashTimes) - 1
	for k >= 0 && c.CrashTimes[k] > now {
		k--
	}
	return k
}

// CrashesBy returns the number of crashes recorded at or before time now.
func (c *Counts) CrashesBy(now float64) int { return c.latest(now) + 1 }

// Failure attributes the failure-cause message m, sent at time now, to the
// latest crash at or before now (PerFailure, ByType), or to PreCrash before
// the first: the classified overhead per failure.
func (c *Counts) Failure(m *proto.Message, now float64) {
	if k := c.latest(now); k >= 0 {
		c.PerFailure[k]++
		c.ByType[m.Type]++
		if c.SlotByType != nil {
			if c.SlotByType[k] == nil {
				c.SlotByType[k] = make([]int64, proto.MaxMsgTypes)
			}
			c.SlotByType[k][m.Type]++
		}
	} else {
		c.PreCrash++
	}
}

// Entered notes an entry into the critical section at time now: the first
// entry after a crash (and after every crash before it that has none yet)
// gives that crash's FirstEntry, the time to recovery.
func (c *Counts) Entered(now float64) {
	for k := c.latest(now); k >= 0 && c.FirstEntry[k] < 0; k-- {
		c.FirstEntry[k] = now - c.CrashTimes[k]
	}
}

// DropSkipped removes from counts made by Planned (the ranks' sum) the
// planned crashes that were skipped at run time (their victim was down,
// or too few nodes were up): the failure-cause messages attributed to a
// skipped crash go to the crash before it (or before the first crash), as
// if it had never been planned.
func (c *Counts) DropSkipped(skipped []int) {
	skipped = slices.Compact(slices.Sorted(slices.Values(skipped)))
	for x := len(skipped) - 1; x >= 0; x-- {
		k := skipped[x]
		if k < 0 || k >= len(c.PerFailure) {
			continue
		}
		var types []int64
		if k < len(c.SlotByType) {
			types = c.SlotByType[k]
			c.SlotByType = slices.Delete(c.SlotByType, k, k+1)
		}
		if k > 0 {
			c.PerFailure[k-1] += c.PerFailure[k]
			if types != nil {
				if c.SlotByType[k-1] == nil {
					c.SlotByType[k-1] = make([]int64, proto.MaxMsgTypes)
				}
				for m, n := range types {
					c.SlotByType[k-1][m] += n
				}
			}
		} else {
			c.PreCrash += int64(c.PerFailure[k])
			for m, n := range types {
				c.ByType[m] -= n
			}
		}
		c.PerFailure = slices.Delete(c.PerFailure, k, k+1)
		if k < len(c.FirstEntry) {
			c.FirstEntry = slices.Delete(c.FirstEntry, k, k+1)
		}
		if k < len(c.CrashTimes) {
			c.CrashTimes = slices.Delete(c.CrashTimes, k, k+1)
		}
		c.Crashes--
	}
}

// Add adds o, another part's or rank's counts of the same run, to c by the
// rules of the fields' merge tags (results.AddCounts): counts add up,
// waits join, the crashes are the same; and a crash's first entry is the
// earliest anywhere.
func (c *Counts) Add(o *Counts) {
	results.AddCounts(c, o)
	c.addFirstEntries(o)
}

// addFirstEntries merges o's FirstEntry into c's: per crash, the earliest
// of those that are not -1 (none).
func (c *Counts) addFirstEntries(o *Counts) {
	for k, v := range o.FirstEntry {
		for k >= len(c.FirstEntry) {
			c.FirstEntry = append(c.FirstEntry, -1)
		}
		if v >= 0 && (c.FirstEntry[k] < 0 || v < c.FirstEntry[k]) {
			c.FirstEntry[k] = v
		}
	}
}

// Event returns the count of the event called name among events, the
// algorithm's (proto.Algorithm.Events; 0 if none has that name).
func (c *Counts) Event(events []string, name string) int64 {
	for e, n := range events {
		if n == name {
			return c.Events[e]
		}
	}
	return 0
}
