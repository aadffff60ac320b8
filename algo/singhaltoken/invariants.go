package singhaltoken

import (
	"fmt"

	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Invariants implements proto.Algorithm: without crashes, after every step,
// TokenGoesToRequester and TokenVectors. None with crashes (the algorithm
// has no failure protocol).
func (Algorithm) Invariants(crashes bool) []proto.Invariant {
	return proto.WithoutCrashes(crashes,
		proto.Invariant{Name: "token_goes_to_requester", When: proto.EveryStep, Check: TokenGoesToRequester},
		proto.Invariant{Name: "token_vectors", When: proto.EveryStep, Check: TokenVectors})
}

func nodesOf(s proto.System) []*Node { return nodecast.All[*Node](s) }

// TokenGoesToRequester checks that a token in flight goes to a node in
// state R that does not hold a token, and that the token records that
// node's current request as requesting (TSV = R, TSN = its SN).
func TokenGoesToRequester(s proto.System) error {
	nodes := nodesOf(s)
	var err error
	s.ForEachInFlight(func(m *proto.Message) {
		if err != nil || m.Type != Token {
			return
		}
		to := nodes[m.To]
		if to.sv[to.id] != R || to.tok != nil {
			err = fmt.Errorf("token in flight %d→%d to a node in state %s (holding: %v)", m.From, m.To, to.sv[to.id], to.tok != nil)
			return
		}
		if st, sn, _ := unpack(m.Payload[m.To]); st != R || sn != to.sn[to.id] {
			err = fmt.Errorf("token in flight to %d records its request as %s/%d; its own SN is %d", m.To, st, sn, to.sn[to.id])
		}
	})
	return err
}

// TokenVectors checks the token's vectors against the nodes, wherever the
// token is (held or in flight): TSN[j] never exceeds node j's own SN_j[j];
// TSV[j] is R or N, and R only for j's current, unfinished request (j is
// requesting or in its critical section and TSN[j] = SN_j[j]). A node
// holding the idle token knows of no requesting node.
func TokenVectors(s proto.System) error {
	nodes := nodesOf(s)
	var tok []int64
	for _, nd := range nodes {
		if nd.Up() && nd.tok != nil {
			tok = nd.tok
			if nd.sv[nd.id] == H {
				for j, st := range nd.sv {
					if proto.NodeID(j) != nd.id && st != N {
						return fmt.Errorf("node %d holds the idle token but believes node %d is in state %s", nd.id, j, st)
					}
				}
			}
		}
	}
	s.ForEachInFlight(func(m *proto.Message) {
		if m.Type == Token {
			tok = m.Payload
		}
	})
	if tok == nil {
		return nil // the runtime checks that exactly one token exists
	}
	for j, w := range tok {
		st, sn, _ := unpack(w)
		nd := nodes[j]
		own := nd.sn[j]
		switch {
		case sn > own:
			return fmt.Errorf("the token has TSN[%d] = %d, above node %d's own SN %d", j, sn, j, own)
		case st != R && st != N:
			return fmt.Errorf("the token has TSV[%d] = %s", j, st)
		case st == R && (sn != own || (nd.sv[j] != R && nd.sv[j] != E)):
			return fmt.Errorf("the token has TSV[%d] = R for request %d, but node %d is in state %s with SN %d", j, sn, j, nd.sv[j], own)
		}
	}
	return nil
}
