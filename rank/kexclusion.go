package rank

import (
	"fmt"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/safety"
	"github.com/ocbench/ocbench/workload"
)

// startKExclusion prepares what a k-exclusion or self-stabilizing
// algorithm (algo/kofl) needs on this rank, once the workload exists: the
// arbitrary initial configuration of --transient initial (every rank draws
// the same for all N nodes, and sends the junk out of its own), then, at
// time 0 and before any other step, Start on the hosted nodes that have it
// (proto.Starter), and the end of the critical sections the configuration
// invented. The sequential workload does not wait for quiet: the CToken
// circulates for ever.
func (in *instance) startKExclusion() {
	s := in.spec
	var junk []proto.Message
	if s.Transient.Initial() {
		junk = bench.ArbitraryConfiguration(in.res, in.nodes)
		in.invented = bench.NewInventedCS(in, in.wl, in.nodes, s.CSTime*in.delta)
	}
	in.at(0, func() {
		now := in.j.now()
		for k := range junk {
			if m := &junk[k]; in.hosts(m.From) {
				in.send(m, now)
				in.sent[m.Type][m.Cause]-- // a fault's message, not a send
			}
		}
		for _, id := range in.local {
			if st, ok := in.nodes[id].(proto.Starter); ok {
				in.startNode(id, st, now)
			}
		}
		if in.invented != nil {
			in.invented.Sweep(in.local)
		}
	})
}

// startNode runs node id's Start and carries out its output (messages and
// timers), as a step does.
func (in *instance) startNode(id proto.NodeID, st proto.Starter, now float64) {
	in.out.Reset()
	st.Start(&in.out)
	in.stats.Steps++
	for k, c := range in.out.Events {
		in.stats.Events[k] += int64(c)
	}
	for k := range in.out.Msgs {
		in.send(&in.out.Msgs[k], now)
	}
	for _, t := range in.out.Timers {
		t := t
		in.at(now+t.After*in.delta, func() {
			if !in.down[id] {
				in.step(id, proto.Input{Kind: proto.Fire, Timer: t})
			}
		})
	}
}

// checkUnits is the k-exclusion's safety check on rank 0, from every
// rank's critical-section stays (breaches): the units in use (each stay's)
// never add up to more than ℓ. It returns the number of entries that went
// over, and the first one's description.
func checkUnits(cs []workload.Stay, ell int) (int, string) {
	over, first := 0, ""
	breaches(cs, ell, func(k int, b safety.Breach) {
		if over == 0 {
			c := cs[k]
			first = fmt.Sprintf("node %d entered the critical section at t=%.6fs: %d units in use, ℓ = %d", c.Node, c.Enter, b.Units, ell)
		}
		over++
	})
	return over, first
}
