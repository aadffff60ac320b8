package bench

import (
	"fmt"
	"time"

	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/results"
)

// EachMaxNodes is the largest N for the "each" workload, whose cost grows as N².
const EachMaxNodes = 1 << 12

// InitialCosts returns c(i) for every node i: the number of messages of one
// request of node i, alone, from the algorithm's initial configuration
// (token at the root, nobody asking), the return of a lent token included.
// This is the quantity whose average over the N nodes the open-cube paper
// computes (§4, "average number of messages per request"). A lone request
// sends the same messages whatever the delivery order, so messages are
// delivered in sending order.
func initialCosts(algo proto.Algorithm, n int) ([]int, error) {
	costs := make([]int, n)
	var out proto.Output
	for i := range costs {
		nodes := algo.NewNodes(n)
		var pending []proto.Message
		step := func(id proto.NodeID, in proto.Input) {
			out.Reset()
			proto.Step(nodes[id], in, &out)
			pending = append(pending, out.Msgs...)
		}
		step(proto.NodeID(i), proto.Input{Kind: proto.EnterCS, Tag: 1})
		sent, exited := 0, false
		for {
			if !exited && nodes[i].View().InCS {
				step(proto.NodeID(i), proto.Input{Kind: proto.ExitCS})
				exited = true
				continue
			}
			if len(pending) == 0 {
				break
			}
			m := pending[0]
			pending = pending[1:]
			sent++
			step(m.To, proto.Input{Kind: proto.Receive, Msg: m})
		}
		if !exited {
			return nil, fmt.Errorf("%s N=%d: node %d's lone request was never served", algo.Name(), n, i)
		}
		costs[i] = sent
	}
	return costs, nil
}

// runEach runs the "each" workload: one lone request from every node, each
// from the initial configuration.
func runEach(plan *Plan) (*results.Run, error) {
	spec := plan.Spec
	start := time.Now()
	costs, err := initialCosts(plan.Registered, spec.Nodes)
	if err != nil {
		return nil, err
	}
	r := newRun(plan, "none", int64(spec.Nodes), int64(spec.Nodes))
	xs := make([]float64, len(costs))
	for i, c := range costs {
		xs[i] = float64(c)
		r.MessagesTotal += int64(c)
	}
	r.MessagesByCause["normal"] = r.MessagesTotal
	r.MsgsPerRequest = results.Summarize(xs)
	r.WallSeconds = time.Since(start).Seconds()
	return r, nil
}
