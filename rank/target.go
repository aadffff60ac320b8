package rank

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/proto"
)

// Targeted crashes (--crash-target token, path, root) under MPI.
//
// The plan's crash times are fixed in advance and known to every rank; the
// victim is chosen at the crash time from the state of the run, which no
// rank sees whole. At the planned time of crash k, every rank sends rank 0
// a report: for each node it hosts, whether it is down, up, or up and a
// candidate (faults.IsTarget: holds the token, is on a request's path, is
// the root), and, for the token, the destination of the last token it sent
// to another rank (a token in flight). Once rank 0 has every rank's report
// of crash k, it chooses as the simulator does (faults.ChooseVictim, the controller's rule): a
// candidate drawn with the seed's target generator (faults.TargetRand) from
// the candidates in node order; for the token with no holder reported, the
// destination of the latest token sent (if up); with no candidate, a node
// up. It sends the choice to the rank hosting the victim, which crashes it
// at once (if it is still up) and recovers it at the planned time. With
// fewer than MinUp+1 nodes up the crash is skipped, as in the simulator.
//
// So a targeted crash happens about two inter-rank deliveries (at most 2δ)
// after its planned time, and the reports are read at slightly different
// instants on different ranks: a token passed between two ranks in between
// can be reported twice (both candidates; the one drawn may have passed it
// on) or not at all (then the sender's report names it in flight). The
// draws are the seed's, in crash order, so a run is deterministic as far as
// the ranks' timing is.

// tagTarget is the MPI tag of the targeted crashes' frames.
const tagTarget = 3

// Kinds of target frames: run, kind, crash index (uint32), then
//   - tgtReport (rank → rank 0): the token's destination (int32, -1: none)
//     and the time it was sent (float64), then one byte per hosted node in
//     the placement's order (nodeDown, nodeUp, nodeCandidate);
//   - tgtOrder (rank 0 → the victim's rank): the victim (int32).
const (
	tgtReport    = 1
	tgtOrder     = 2
	tgtHeader    = 6
	tgtReportLen = tgtHeader + 4 + 8
	tgtOrderLen  = tgtHeader + 4
)

// States of a hosted node in a report.
const (
	nodeDown      = 0
	nodeUp        = 1
	nodeCandidate = 2
)

// maxTargetedPerRank is the most nodes a rank can host for targeted
// crashes: a report (one byte per node) fits in a frame.
const maxTargetedPerRank = maxFrame - tgtReportLen

// targeting is an instance's part in targeted crashes.
type targeting struct {
	token   proto.MsgType
	tokenTo proto.NodeID // the destination of the last token this rank sent to another rank
	tokenAt float64      // and when
	// rank 0: the reports of each crash being decided.
	rounds map[uint32]*targetRound
}

// targetRound collects, on rank 0, the reports of one crash.
type targetRound struct {
	reports int
	states  [][]byte // per rank
	tokenTo proto.NodeID
	tokenAt float64
}

// planTarget schedules this rank's report for targeted crash k.
func (in *instance) planTarget(k int, f faults.Fault) {
	if in.tgt == nil {
		in.tgt = &targeting{token: proto.TokenType(in.names), tokenTo: proto.Nil}
		if in.j.rank == 0 {
			in.tgt.rounds = map[uint32]*targetRound{}
		}
	}
	in.at(f.At, func() { in.reportTargets(uint32(k)) })
}

// reportTargets sends rank 0 the states of the hosted nodes for crash k.
func (in *instance) reportTargets(k uint32) {
	b := make([]byte, tgtReportLen, tgtReportLen+len(in.local))
	b[0], b[1] = in.id, tgtReport
	binary.LittleEndian.PutUint32(b[2:], k)
	to, at := in.tgt.tokenTo, in.tgt.tokenAt
	if to != proto.Nil && in.j.now()-at > in.delta {
		to = proto.Nil // delivered by now, if δ holds
	}
	binary.LittleEndian.PutUint32(b[6:], uint32(int32(to)))
	binary.LittleEndian.PutUint64(b[10:], math.Float64bits(at))
	for _, id := range in.local {
		s := byte(nodeDown)
		switch {
		case in.down[id]:
		case faults.IsTarget(in.spec.Faults.Target, int(id), in.nodes[id], 0, 0):
			s = nodeCandidate
		default:
			s = nodeUp
		}
		b = append(b, s)
	}
	in.j.sendTarget(b, 0)
}

// sendTarget sends a target frame to rank dest (handled at once if dest is
// this rank).
func (j *job) sendTarget(b []byte, dest int) {
	if dest == j.rank {
		j.handleTarget(b, dest)
		return
	}
	j.ring(dest)
	j.send(b, dest, tagTarget)
}

// handleTarget handles a target frame from rank src.
func (j *job) handleTarget(b []byte, src int) {
	bad := func(format string, args ...any) {
		j.malformed(fmt.Errorf("target frame from rank %d: "+format, append([]any{src}, args...)...))
	}
	if len(b) < tgtHeader {
		bad("%d bytes", len(b))
		return
	}
	in := j.instance(b[0])
	k := binary.LittleEndian.Uint32(b[2:])
	switch {
	case in == nil || in.tgt == nil:
		bad("for run %d, which has no targeted crashes", b[0])
		return
	case int(k) >= len(in.plan) || in.plan[k].Node >= 0:
		bad("for crash %d, not a targeted one of %d", k, len(in.plan))
		return
	case in.stopped:
		return
	}
	switch b[1] {
	case tgtReport:
		if j.rank != 0 || len(b) != tgtReportLen+len(in.place.Nodes(src)) {
			bad("a report of %d bytes at rank %d", len(b), j.rank)
			return
		}
		in.reported(k, src, b)
	case tgtOrder:
		v := int32(binary.LittleEndian.Uint32(b[6:]))
		if len(b) != tgtOrderLen || v < 0 || int(v) >= in.n || !in.hosts(proto.NodeID(v)) {
			bad("an order of %d bytes for node %d at rank %d", len(b), v, j.rank)
			return
		}
		in.at(j.now(), func() { in.crashTarget(k, proto.NodeID(v)) })
	default:
		bad("kind %d", b[1])
	}
}

// reported is rank 0's receipt of rank src's report for crash k; the last
// report decides.
func (in *instance) reported(k uint32, src int, b []byte) {
	t := in.tgt
	r := t.rounds[k]
	if r == nil {
		r = &targetRound{states: make([][]byte, in.j.size), tokenTo: proto.Nil}
		t.rounds[k] = r
	}
	if r.states[src] != nil {
		in.j.malformed(fmt.Errorf("rank %d reported twice for crash %d", src, k))
		return
	}
	r.states[src] = slices.Clone(b[tgtReportLen:])
	r.reports++
	if to := proto.NodeID(int32(binary.LittleEndian.Uint32(b[6:]))); to != proto.Nil {
		if at := math.Float64frombits(binary.LittleEndian.Uint64(b[10:])); r.tokenTo == proto.Nil || at > r.tokenAt {
			r.tokenTo, r.tokenAt = to, at
		}
	}
	if r.reports < in.j.size {
		return
	}
	delete(t.rounds, k)
	v := in.chooseTarget(k, r)
	if v == proto.Nil {
		in.stats.Skipped = append(in.stats.Skipped, int(k))
		return
	}
	b = make([]byte, tgtOrderLen)
	b[0], b[1] = in.id, tgtOrder
	binary.LittleEndian.PutUint32(b[2:], k)
	binary.LittleEndian.PutUint32(b[6:], uint32(v))
	in.j.sendTarget(b, in.rankOf(v))
}

// chooseTarget is the controller's decision of targeted crash k from
// every rank's report (bench.Controller.CrashSeen: the rule of
// faults.ChooseVictim): the victim, or proto.Nil to skip the crash.
func (in *instance) chooseTarget(k uint32, r *targetRound) proto.NodeID {
	state := make([]byte, in.n)
	for rk, s := range r.states {
		for x, i := range in.place.Nodes(rk) {
			state[i] = s[x]
		}
	}
	down := make([]bool, in.n)
	var cands []proto.NodeID
	for i, s := range state {
		down[i] = s == nodeDown
		if s == nodeCandidate {
			cands = append(cands, proto.NodeID(i))
		}
	}
	return in.ctl.CrashSeen(int(k), cands, r.tokenTo, down)
}

// crashTarget crashes node v, the victim rank 0 chose for crash k, and
// schedules its recovery at the planned time (at once if that has passed).
func (in *instance) crashTarget(k uint32, v proto.NodeID) {
	if in.down[v] { // crashed by an earlier order since its rank reported
		in.stats.Skipped = append(in.stats.Skipped, int(k))
		return
	}
	in.crash(v)
	if up := in.plan[k].Up; up >= 0 {
		in.at(max(up, in.j.now()), func() { in.recover(v) })
	}
}

// noteToken remembers a token sent to a node of another rank, for the
// reports of targeted crashes.
func (in *instance) noteToken(m *proto.Message, now float64) {
	if in.tgt != nil && m.Type == in.tgt.token {
		in.tgt.tokenTo, in.tgt.tokenAt = m.To, now
	}
}
