package rank

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"syscall"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/results"
	"github.com/ocbench/ocbench/safety"
	"github.com/ocbench/ocbench/sim"
	"github.com/ocbench/ocbench/workload"
)

// rankReport is what one rank sends rank 0 about one run: its counts, the
// simulator's Counts, and what only the MPI runtime measures. Rank 0 adds
// up the ranks' reports by the rule in each field's `merge` tag
// (addReports); of the custom ones, the counts and the messages per
// request are added up by hand, the others are per rank (assemble).
type rankReport struct {
	sim.Counts `merge:"custom"` // added up by Counts.Add, onto the plan's counts
	Rank       int              `json:"rank" merge:"custom"`
	Host       string           `json:"host" merge:"custom"`
	Intra      int64            `merge:"sum"`
	Inter      int64            `merge:"sum"`
	Hops       int64            `merge:"sum"`
	// PerTag counts the normal messages sent for each request serial.
	PerTag    map[uint32]int64 `merge:"custom"`
	Issued    []uint32         `merge:"append"`
	Served    int64            `merge:"sum"`
	StuckWhy  string           `merge:"first"`
	CS        []workload.Stay  `merge:"append"`
	MinDelay  float64          `merge:"custom"` // below 0: this rank's clock is behind a sender's by at least as much
	OverDelta int64            `merge:"sum"`
	// Broken counts messages that nodes sent to no node, BrokenWhy says
	// the first: safety violations.
	Broken    int64   `merge:"sum"`
	BrokenWhy string  `merge:"first"`
	Malformed int64   `merge:"sum"`
	BadFrame  string  `merge:"first"`
	AfterStop int64   `merge:"sum"`
	CPU       float64 `merge:"custom"`
	LateStart float64 `merge:"max"`
	// Skipped lists the targeted crashes skipped at run time (target.go).
	Skipped []int `json:",omitempty" merge:"append"`
}

// total returns the number of messages the rank's nodes sent.
func (r *rankReport) total() int64 { return r.MessagesTotal() }

func (in *instance) report() *rankReport {
	r := &in.stats
	r.Rank = in.j.rank
	r.Host, _ = os.Hostname()
	r.Sent = in.sent
	r.Malformed, r.BadFrame, r.AfterStop, r.StuckWhy = in.malformed, in.malformedErr, in.afterStop, in.stuck
	if in.wl != nil {
		r.Served, r.Abandoned = in.wl.Served(), in.wl.Abandoned()
		r.Waits = make([]float64, len(in.wl.Waits()))
		for k, w := range in.wl.Waits() {
			r.Waits[k] = w / in.delta
		}
	}
	r.PerTag = map[uint32]int64{}
	for t, c := range in.perTag {
		if c > 0 {
			r.PerTag[uint32(t)] = int64(c)
		}
	}
	return r
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// gather sends every rank's reports to rank 0, which gets them per run, in
// rank order.
func gather(comm Comm, reps []*rankReport) ([][]*rankReport, error) {
	buf, err := json.Marshal(reps)
	if err != nil {
		return nil, fmt.Errorf("rank: encoding the rank's counters: %w", err)
	}
	parts, err := comm.Gather(buf)
	if err != nil {
		return nil, fmt.Errorf("rank: gathering counters to rank 0: %w", err)
	}
	if comm.Rank() != 0 {
		return nil, nil
	}
	out := make([][]*rankReport, len(reps))
	for r, p := range parts {
		var got []*rankReport
		if err := json.Unmarshal(p, &got); err != nil || len(got) != len(reps) {
			return nil, fmt.Errorf("rank: decoding the counters of rank %d: %v", r, err)
		}
		for k := range out {
			out[k] = append(out[k], got[k])
		}
	}
	return out, nil
}

// addReports returns the sum of the ranks' reports of one run, whose
// controller is ctl: by the merge tags of rankReport's fields
// (results.SumCounts), the counts onto those the run starts from
// (Controller.Counts, then Counts.Add), and the
// messages per request serial; what is per rank (the rank, its host, its
// CPU time, its earliest delivery) is zero, read from each report.
func addReports(ctl *bench.Controller, reps []*rankReport) *rankReport {
	sum := results.SumCounts(reps)
	sum.Counts = ctl.Counts()
	sum.PerTag = map[uint32]int64{}
	for _, rep := range reps {
		sum.Counts.Add(&rep.Counts)
		for tag, c := range rep.PerTag {
			sum.PerTag[tag] += c
		}
	}
	return sum
}

// assemble builds the run's record on rank 0 from every rank's report:
// bench.Record of the ranks' sum, and what only the MPI runtime measures.
func assemble(in *instance, reps []*rankReport) *results.Run {
	s := in.spec
	sum := addReports(in.ctl, reps)
	t, perTag := sum.Counts, sum.PerTag
	out := &bench.Outcome{Runtime: "mpi", Ranks: len(reps), Checks: "cs-intervals", Stuck: sum.StuckWhy}
	tags, cs := sum.Issued, sum.CS
	sort.Slice(tags, func(a, b int) bool { return tags[a] < tags[b] })
	// A request issued again after a transient fault wiped it out
	// (bench.InventedCS) is one request.
	tags = slices.Compact(tags)
	perReq := make([]float64, len(tags))
	for k, tag := range tags {
		perReq[k] = float64(perTag[tag])
	}
	if s.FT {
		// Ranks cannot tell a false suspicion from a true one (the node
		// suspected may be on another rank): without crashes every
		// suspicion is false; with crashes they are not judged (-1).
		t.Suspicions, out.FalseSuspicions = bench.Event(&t, in.res, "suspicions"), -1
		if s.Faults.Crashes == 0 {
			out.FalseSuspicions = t.Suspicions
		}
	}
	in.ctl.DropSkipped(&t, sum.Skipped)
	sort.Slice(cs, func(a, b int) bool { return cs[a].Enter < cs[b].Enter })
	for _, x := range workload.SyncDelaysOf(cs) {
		t.Sync = append(t.Sync, x/s.Delta)
	}
	out.Issued, out.Served, out.Counts, out.PerRequest = int64(len(tags)), sum.Served, t, perReq
	minDelay := measuredMinDelay(reps, s.Delta)
	overlaps := overlapping(cs, s, minDelay)
	out.Safety = append(out.Safety, overlaps...)
	if sum.Broken > 0 {
		out.Safety = append(out.Safety, bench.Finding{Count: int(sum.Broken), Why: sum.BrokenWhy})
	}
	r := bench.Record(in.res, out)
	bench.FillKExclusion(r, in.res, tags)
	r.MeasuredMinDelayDelta = minDelay
	r.Placement = in.place.Name()
	r.Clock = "wall"
	r.MessagesIntraRank, r.MessagesInterRank = sum.Intra, sum.Inter
	r.DelaysOverDelta, r.MalformedFrames, r.MalformedExample = sum.OverDelta, sum.Malformed, sum.BadFrame
	r.StartSkewDelta = max(0, sum.LateStart/s.Delta)
	hosts := map[string]bool{}
	for _, rep := range reps {
		r.CPUSecondsPerRank = append(r.CPUSecondsPerRank, rep.CPU)
		hosts[rep.Host] = true
	}
	for h := range hosts {
		r.Hosts = append(r.Hosts, h)
	}
	sort.Strings(r.Hosts)
	if r.MessagesTotal > 0 {
		r.HopsPerMessage = float64(sum.Hops) / float64(r.MessagesTotal)
	}
	if ell, _ := bench.Units(s); ell == 0 {
		r.OverlappingCS = int64(len(overlaps))
	}
	return r
}

// measuredMinDelay returns the smallest delivery delay any rank measured, in
// δ (nil if none delivered): below 0, clocks disagree by at least as much.
func measuredMinDelay(reps []*rankReport, delta float64) *float64 {
	var m *float64
	for _, rep := range reps {
		if rep.Delivered > 0 && (m == nil || rep.MinDelay/delta < *m) {
			v := rep.MinDelay / delta
			m = &v
		}
	}
	return m
}

// overlapping checks mutual exclusion on the stays in the critical section
// of every rank (cs, sorted by entry): no two overlap; for a k-exclusion
// algorithm, the units in use stay within ℓ instead (kexclusion.go), except
// with transient faults, where safety holds only after stabilization, which
// ranks cannot see. minDelay is the smallest delay measured, in δ.
func overlapping(cs []workload.Stay, s bench.Spec, minDelay *float64) []bench.Finding {
	if ell, _ := bench.Units(s); ell > 0 {
		if s.Transient.On() {
			return nil
		}
		if over, why := checkUnits(cs, ell); over > 0 {
			return []bench.Finding{{Count: over, Why: fmt.Sprintf("%s (seed %d)", why, s.Seed)}}
		}
		return nil
	}
	var out []bench.Finding
	breaches(cs, 0, func(k int, b safety.Breach) {
		f := bench.Finding{Count: 1}
		if len(out) == 0 {
			c, last := cs[k], cs[b.Other] // the first overlap: the only other stay under way
			end := "left"
			if last.Crashed {
				end = "crashed"
			}
			f.Why = fmt.Sprintf("node %d entered the critical section at t=%.6fs while node %d was in it (from t=%.6fs; it %s at t=%.6fs; seed %d)",
				c.Node, c.Enter, last.Node, last.Enter, end, last.Out, s.Seed)
			if m := minDelay; m != nil && *m < 0 && last.Out-c.Enter <= -*m*s.Delta {
				f.Why += fmt.Sprintf("; the ranks' clocks disagree by at least %.1f µs (a delivery measured a negative delay), more than this overlap", -*m*s.Delta*1e6)
			}
		}
		out = append(out, f)
	})
	return out
}

// breaches checks the stays in the critical section of every rank (cs)
// with safety's checker of mutual exclusion (ell 0: each stay uses one
// unit) or of k-exclusion (ell > 0: each uses its Units; one that uses
// none is left out), and calls f with each entry that breaks it: its
// stay's index in cs and the breach. The checker sees the entries and
// exits in time order; at one instant, exits first (a stay that ends as
// another begins does not overlap it), then entries by the units they
// use, fewest first, then in cs's order; a stay that ends as it begins
// exits right after its entry.
func breaches(cs []workload.Stay, ell int, f func(k int, b safety.Breach)) {
	type edge struct {
		t     float64
		units int // < 0: an exit
		k     int // the stay's index in cs
	}
	units := func(c workload.Stay) int {
		if ell == 0 {
			return 1
		}
		return c.Units
	}
	var es []edge
	for k, c := range cs {
		if u := units(c); u > 0 {
			es = append(es, edge{c.Enter, u, k})
			if c.Out > c.Enter {
				es = append(es, edge{c.Out, -u, k})
			}
		}
	}
	slices.SortStableFunc(es, func(a, b edge) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.units, b.units))
	})
	in := safety.NewEntries(ell)
	for _, e := range es {
		if e.units < 0 {
			in.Exit(e.k, -e.units)
			continue
		}
		if b, broken := in.Enter(e.k, e.units); broken {
			f(e.k, b)
		}
		if c := cs[e.k]; c.Out <= c.Enter {
			in.Exit(e.k, e.units)
		}
	}
}
