package bench

import (
	"fmt"

	"github.com/ocbench/ocbench/proto"
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
			nodes[id].Step(in, &out)
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
