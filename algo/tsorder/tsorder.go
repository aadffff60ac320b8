// Package tsorder holds what ocbench's permission algorithms that order
// requests by (timestamp, node id) share (algo/lamport,
// algo/ricartagrawala, algo/retained, algo/raymondkex): the order, and the
// check that the critical section goes to the first request. It is not an
// algorithm.
package tsorder

import (
	"fmt"

	"github.com/ocbench/ocbench/proto"
)

// Before reports whether request (a, i), of timestamp a from node i,
// precedes request (b, j): a smaller timestamp, or the same one from a
// smaller id.
func Before(a uint64, i proto.NodeID, b uint64, j proto.NodeID) bool {
	return a < b || a == b && i < j
}

// CSFirst checks that a node in the critical section asks, and that its
// request precedes, in (timestamp, id) order, every other pending request:
// requests are served in timestamp order. A node's request is read from
// its View: Asked, and Gen its timestamp while it asks. O(n).
func CSFirst(s proto.System) error {
	ns := s.Nodes()
	in := proto.Nil
	for i, nd := range ns {
		if v := nd.View(); v.InCS {
			if !v.Asked {
				return fmt.Errorf("cs_first: node %d is in the critical section without asking", i)
			}
			in = proto.NodeID(i)
		}
	}
	if in == proto.Nil {
		return nil
	}
	ts := ns[in].View().Gen
	for i, nd := range ns {
		if v := nd.View(); i != int(in) && v.Asked && Before(v.Gen, proto.NodeID(i), ts, in) {
			return fmt.Errorf("cs_first: node %d is in the critical section with request (%d, %d), but node %d's (%d, %d) precedes it",
				in, ts, in, i, v.Gen, i)
		}
	}
	return nil
}
