package ratoken

import (
	"fmt"

	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Invariants implements proto.Algorithm: TokenState after every step,
// HolderKnows whenever no message is in flight. Nothing with crashes (the
// algorithm has no failure protocol).
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	if crashes {
		return nil
	}
	return []proto.Invariant{
		{Name: "token state", When: proto.EveryStep, Check: TokenState},
		{Name: "holder knows every request", When: proto.Quiet, Check: HolderKnows},
	}
}

func nodes(s proto.System) ([]*Node, error) {
	return nodecast.Checked(s, "Ricart–Agrawala token", nodecast.Is[*Node])
}

// TokenState checks the token against the nodes, in O(N):
//
//   - a node in the critical section holds the token;
//   - for every node j, with t_j = request_j[j] the timestamp of its own
//     latest request (at most its clock) and token[j] the token's:
//     token[j] ≤ t_j, equal if j is not asking, smaller while j waits for
//     the token (its request is not granted);
//   - an idle holder knows of no request not granted (it would have sent
//     the token);
//   - a token in flight travels to a waiting node, tagged with its serial.
func TokenState(s proto.System) error {
	nd, err := nodes(s)
	if err != nil {
		return err
	}
	n := len(nd)
	var tok []int64
	owner, flying := proto.Nil, false // the holder, or the node the token travels to
	var tokenTag uint32
	for i, x := range nd {
		if x.inCS && !x.tokenHere {
			return fmt.Errorf("node %d is in the critical section without the token", i)
		}
		if x.tokenHere {
			owner, tok = proto.NodeID(i), x.tok
		}
	}
	s.ForEachInFlight(func(m *proto.Message) {
		if m.Type == Token && len(m.Payload) == n {
			owner, flying, tokenTag, tok = m.To, true, m.Tag, m.Payload
		}
	})
	if owner == proto.Nil {
		return fmt.Errorf("no token")
	}
	if flying {
		d := nd[owner]
		if !d.asked || d.inCS {
			return fmt.Errorf("the token travels to node %d, which is not waiting for it", owner)
		}
		if tokenTag != d.tag {
			return fmt.Errorf("the token travels to node %d with tag %d, its request is %d", owner, tokenTag, d.tag)
		}
	}
	for j, x := range nd {
		t := x.req[j]
		switch {
		case uint64(t) > x.clock:
			return fmt.Errorf("node %d: its request's timestamp %d is ahead of its clock %d", j, t, x.clock)
		case tok[j] > t:
			return fmt.Errorf("node %d: the token grants its request %d, its latest is %d", j, tok[j], t)
		case !x.asked && tok[j] != t:
			return fmt.Errorf("node %d is not asking, and its request %d is not granted (token[%d] = %d)", j, t, j, tok[j])
		case x.asked && !x.inCS && tok[j] == t:
			return fmt.Errorf("node %d waits, and its request %d is granted", j, t)
		}
	}
	if h := nd[owner]; !flying && !h.asked {
		for j := range nd {
			if h.req[j] > tok[j] {
				return fmt.Errorf("the idle holder %d keeps the token, and knows node %d's request %d is not granted", owner, j, h.req[j])
			}
		}
	}
	return nil
}

// HolderKnows checks, when no message is in flight, that the token's holder
// has received every node's latest request, and, if it is not in the
// critical section, that no node waits (no request is forgotten).
func HolderKnows(s proto.System) error {
	nd, err := nodes(s)
	if err != nil {
		return err
	}
	for h, x := range nd {
		if !x.tokenHere {
			continue
		}
		for j, y := range nd {
			if x.req[j] != y.req[j] {
				return fmt.Errorf("the holder %d has request[%d] = %d, node %d's own is %d", h, j, x.req[j], j, y.req[j])
			}
			if !x.inCS && y.asked {
				return fmt.Errorf("node %d waits while the holder %d is idle and nothing is in flight", j, h)
			}
		}
	}
	return nil
}
