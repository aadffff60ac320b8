package rank

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"syscall"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
)

// rankReport is what one rank sends rank 0 about one run: its tally, as
// the simulator's, and what only the MPI runtime measures.
type rankReport struct {
	bench.Tally
	Rank  int    `json:"rank"`
	Host  string `json:"host"`
	Intra int64
	Inter int64
	Hops  int64
	// PerTag counts the normal messages sent for each request serial.
	PerTag    map[uint32]uint32
	Issued    []uint32
	Served    int64
	StuckWhy  string
	CS        []bench.Stay
	Steps     int64
	Delivered int64
	Dropped   int64
	MaxDelay  float64
	MinDelay  float64 // below 0: this rank's clock is behind a sender's by at least as much
	OverDelta int64
	// Broken counts messages that nodes sent to no node, BrokenWhy says
	// the first: safety violations.
	Broken    int64
	BrokenWhy string
	Malformed int64
	BadFrame  string
	AfterStop int64
	CPU       float64
	LateStart float64
	// Skipped lists the targeted crashes skipped at run time (target.go).
	Skipped []int `json:",omitempty"`
}

func (r *rankReport) total() int64 {
	var t int64
	for _, row := range r.Sent {
		for _, v := range row {
			t += v
		}
	}
	return t
}

func (in *instance) report() *rankReport {
	r := &in.stats
	r.Rank = in.j.rank
	r.Host, _ = os.Hostname()
	r.Sent = make([][]int64, proto.MaxMsgTypes)
	for t := range r.Sent {
		r.Sent[t] = append([]int64(nil), in.sent[t][:]...)
	}
	r.Malformed, r.BadFrame, r.AfterStop, r.StuckWhy = in.malformed, in.malformedErr, in.afterStop, in.stuck
	if in.wl != nil {
		r.Served, r.Abandoned = in.wl.Served(), in.wl.Abandoned()
		r.Waits = make([]float64, len(in.wl.Waits()))
		for k, w := range in.wl.Waits() {
			r.Waits[k] = w / in.delta
		}
	}
	r.PerTag = map[uint32]uint32{}
	for t, c := range in.perTag {
		if c > 0 {
			r.PerTag[uint32(t)] = c
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

// assemble builds the run's record on rank 0 from every rank's report.
func assemble(in *instance, reps []*rankReport) *results.Run {
	s := in.spec
	var issued, served int64
	perTag := map[uint32]int64{}
	var tags []uint32
	var cpu []float64
	var cs []bench.Stay
	hosts := map[string]bool{}
	r := bench.NewRecord(s, "mpi", len(reps), "cs-intervals", 0, 0)
	r.Placement = in.place.Name()
	t := bench.NewPlannedTally(in.plan)
	var hopSum int64
	var bad []string
	var skipped []int
	for _, rep := range reps {
		t.Add(&rep.Tally)
		skipped = append(skipped, rep.Skipped...)
		issued += int64(len(rep.Issued))
		served += rep.Served
		tags = append(tags, rep.Issued...)
		for tag, c := range rep.PerTag {
			perTag[tag] += int64(c)
		}
		cs = append(cs, rep.CS...)
		cpu = append(cpu, rep.CPU)
		hosts[rep.Host] = true
		r.MessagesIntraRank += rep.Intra
		r.MessagesInterRank += rep.Inter
		hopSum += rep.Hops
		r.Steps += rep.Steps
		r.MessagesDropped += rep.Dropped
		r.MaxDelayDelta = max(r.MaxDelayDelta, rep.MaxDelay/s.Delta)
		if rep.Delivered > 0 && (r.MeasuredMinDelayDelta == nil || rep.MinDelay/s.Delta < *r.MeasuredMinDelayDelta) {
			v := rep.MinDelay / s.Delta
			r.MeasuredMinDelayDelta = &v
		}
		r.DelaysOverDelta += rep.OverDelta
		r.MalformedFrames += rep.Malformed
		r.StartSkewDelta = max(r.StartSkewDelta, rep.LateStart/s.Delta)
		if rep.BadFrame != "" {
			bad = append(bad, rep.BadFrame)
		}
		if rep.StuckWhy != "" && r.Violation == "" {
			r.LivenessViolations++
			r.Violation = rep.StuckWhy
		}
	}
	r.RequestsIssued, r.RequestsServed = issued, served
	r.CPUSecondsPerRank = cpu
	sort.Slice(tags, func(a, b int) bool { return tags[a] < tags[b] })
	// A request issued again after a transient fault wiped it out
	// (bench.InventedCS) is one request.
	tags = slices.Compact(tags)
	issued = int64(len(tags))
	r.RequestsIssued = issued
	perReq := make([]float64, len(tags))
	for k, tag := range tags {
		perReq[k] = float64(perTag[tag])
	}
	if s.FT {
		// Ranks cannot tell a false suspicion from a true one (the node
		// suspected may be on another rank): without crashes every
		// suspicion is false; with crashes they are not judged (-1).
		r.Suspicions, r.FalseSuspicions = t.Event(s, "suspicions"), -1
		if s.Faults.Crashes == 0 {
			r.FalseSuspicions = r.Suspicions
		}
	}
	t.DropSkipped(skipped)
	sort.Slice(cs, func(a, b int) bool { return cs[a].Enter < cs[b].Enter })
	for _, x := range bench.SyncDelaysOf(cs) {
		t.Sync = append(t.Sync, x/s.Delta)
	}
	t.Fill(r, s, perReq)
	bench.FillKExclusion(r, s, tags)
	for h := range hosts {
		r.Hosts = append(r.Hosts, h)
	}
	sort.Strings(r.Hosts)
	if r.MessagesTotal > 0 {
		r.HopsPerMessage = float64(hopSum) / float64(r.MessagesTotal)
	}
	if len(bad) > 0 {
		r.MalformedExample = bad[0]
	}
	// Mutual exclusion: no two stays in the critical section (sorted by
	// entry) overlap.
	var last bench.Stay // of the stays entered so far, the one that ends last
	mutex := cs
	if r.Ell > 0 { // k-exclusion: units in use instead (kexclusion.go)
		mutex = nil
		if !s.Transient.On() { // with transient faults, safety holds only after stabilization, which ranks cannot see
			if over, why := checkUnits(cs, r.Ell); over > 0 {
				r.SafetyViolations += over
				r.Violation = fmt.Sprintf("%s (seed %d)", why, s.Seed)
			}
		}
	}
	for k, c := range mutex {
		if k > 0 && c.Enter < last.Out {
			r.OverlappingCS++
			if r.SafetyViolations == 0 {
				end := "left"
				if last.Crashed {
					end = "crashed"
				}
				r.Violation = fmt.Sprintf("node %d entered the critical section at t=%.6fs while node %d was in it (from t=%.6fs; it %s at t=%.6fs; seed %d)",
					c.Node, c.Enter, last.Node, last.Enter, end, last.Out, s.Seed)
				if m := r.MeasuredMinDelayDelta; m != nil && *m < 0 && last.Out-c.Enter <= -*m*s.Delta {
					r.Violation += fmt.Sprintf("; the ranks' clocks disagree by at least %.1f µs (a delivery measured a negative delay), more than this overlap", -*m*s.Delta*1e6)
				}
			}
			r.SafetyViolations++
		}
		if k == 0 || c.Out > last.Out {
			last = c
		}
	}
	for _, rep := range reps {
		if rep.Broken > 0 {
			if r.SafetyViolations == 0 {
				r.Violation = rep.BrokenWhy
			}
			r.SafetyViolations += int(rep.Broken)
		}
	}
	lost := issued - served - r.RequestsAbandoned
	if lost > 0 {
		r.RequestsLost = lost
		if r.LivenessViolations == 0 {
			r.LivenessViolations++
			if r.Violation == "" { // a safety violation's description comes first
				r.Violation = fmt.Sprintf("%d of %d requests of nodes that stayed up were never served (seed %d)", lost, issued, s.Seed)
			}
		}
	}
	return r
}
