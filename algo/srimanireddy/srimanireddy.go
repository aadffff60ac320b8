package srimanireddy

import (
	"fmt"
	"github.com/ocbench/ocbench/algo/kexcl"
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// The message types.
const (
	Request proto.MsgType = iota // request(j, serial): Tag = the serial
	Token                        // PRIVILEGE(Q, LN): payload LN, then Q
)

var messageTypes = []proto.MessageType{
	{Name: "request", Payload: "none (Tag = the request's serial, its number RN[j])", Arg: "none"},
	{Name: "token", Payload: "LN[0..N−1], then Q: one word j<<32 | serial per queued request, head first", Arg: "none"},
}

// Config is the ℓ-exclusion of one run (kexcl.Unit): ℓ tokens (the survey's K), requests of K = 1 unit.
type Config kexcl.Unit

// Validate returns an error unless ℓ ≥ 1 and K ≤ 1.
func (c Config) Validate() error {
	return kexcl.Unit(c).Check("srimani-reddy", "a node uses one token in the critical section")
}

// NeedOf returns the k of the request with serial tag (kexcl.NeedOf): 1.
func (c Config) NeedOf(tag uint32) int { return kexcl.Unit(c).NeedOf(tag) }

func entry(j proto.NodeID, tag uint32) int64 { return int64(j)<<32 | int64(tag) }

func unpack(e int64) (proto.NodeID, uint32) { return proto.NodeID(e >> 32), uint32(e) }

// Node is one node of the Srimani–Reddy algorithm. Only Step changes it.
type Node struct {
	id     proto.NodeID
	n, ell int
	proto.Life
	asked bool
	inCS  bool
	tag   uint32 // serial of the own request
	held  int    // tokens held (one of them in use while in the CS)
	// rn[j]: the serial of j's latest request received (RN); ln[j]: the
	// serial of j's latest request known to be granted a token (LN and
	// PLN merged: the tokens that passed here, and the tokens this node
	// sent).
	rn, ln []uint32
	q      []int64 // requests queued, head first (entry); only with the token in use
	inQ    []bool  // inQ[j]: j is in q
}

func (nd *Node) init(id proto.NodeID, n, ell int) {
	*nd = Node{id: id, n: n, ell: ell, rn: make([]uint32, n), ln: make([]uint32, n), inQ: make([]bool, n), q: nd.q[:0]}
	// Token t starts at node t mod N: ℓ ≤ N idle tokens on ℓ nodes.
	nd.held = ell / n
	if int(id) < ell%n {
		nd.held++
	}
}

// Step implements proto.Node.
func (nd *Node) Step(in proto.Input, out *proto.Output) {
	switch in.Kind {
	case proto.EnterCS:
		if nd.asked {
			return // one request at a time; the runtimes never ask twice
		}
		nd.asked, nd.tag = true, in.Tag
		nd.rn[nd.id] = max(nd.rn[nd.id], in.Tag)
		if nd.held > 0 {
			nd.enter(out)
			return
		}
		for j := range nd.n {
			if proto.NodeID(j) != nd.id {
				out.Msgs = append(out.Msgs, proto.Message{Type: Request, Cause: proto.Normal, From: nd.id, To: proto.NodeID(j),
					Tag: nd.tag})
			}
		}
	case proto.ExitCS:
		if !nd.inCS {
			return
		}
		nd.inCS, nd.asked = false, false
		nd.dispatch(out)
	case proto.Receive:
		m := &in.Msg
		switch m.Type {
		case Request:
			nd.rn[m.From] = max(nd.rn[m.From], m.Tag)
			nd.dispatch(out)
		case Token:
			nd.token(m.Payload, out)
		}
	}
}

// Recover implements proto.Recoverer.
func (nd *Node) Recover(*proto.Output) {
	nd.init(nd.id, nd.n, nd.ell)
}

func (nd *Node) enter(out *proto.Output) {
	nd.inCS = true
	nd.ln[nd.id] = max(nd.ln[nd.id], nd.tag)
	out.Enter = true
}

// token takes a token in: its LN merged into ln, its Q appended to q
// (without the requests known granted, or queued already). A requester
// enters with it; any token left idle goes on (dispatch).
func (nd *Node) token(p []int64, out *proto.Output) {
	nd.held++
	for j := range nd.n {
		nd.ln[j] = max(nd.ln[j], uint32(p[j]))
	}
	for _, e := range p[nd.n:] {
		j, t := unpack(e)
		if j != nd.id && t > nd.ln[j] && !nd.inQ[j] {
			nd.q = append(nd.q, e)
			nd.inQ[j] = true
		}
		nd.rn[j] = max(nd.rn[j], t)
	}
	if nd.asked && !nd.inCS {
		nd.enter(out)
	}
	nd.dispatch(out)
}

// dispatch sends the idle tokens (those held beyond the one in use) to
// the pending requests: q, then every other node j whose latest request is
// not granted (rn[j] > ln[j]), in id order from this node's successor.
// Each token but the last idle one goes with an empty Q; the last takes
// the rest of q. An idle token stays only while no request is pending
// here.
func (nd *Node) dispatch(out *proto.Output) {
	idle := nd.held
	if nd.inCS {
		idle--
	}
	if idle <= 0 {
		return
	}
	k := 0
	for _, e := range nd.q {
		if j, t := unpack(e); t > nd.ln[j] {
			nd.q[k] = e
			k++
		} else {
			nd.inQ[j] = false
		}
	}
	nd.q = nd.q[:k]
	for d := 1; d < nd.n; d++ {
		j := (int(nd.id) + d) % nd.n
		if nd.rn[j] > nd.ln[j] && !nd.inQ[j] {
			nd.q = append(nd.q, entry(proto.NodeID(j), nd.rn[j]))
			nd.inQ[j] = true
		}
	}
	for ; idle > 0 && len(nd.q) > 0; idle-- {
		j, t := unpack(nd.q[0])
		nd.inQ[j] = false
		nd.ln[j] = max(nd.ln[j], t)
		var rest []int64
		if idle == 1 {
			rest = nd.q[1:]
			for _, e := range rest {
				j, _ := unpack(e)
				nd.inQ[j] = false
			}
		}
		p := make([]int64, nd.n+len(rest))
		for i, l := range nd.ln {
			p[i] = int64(l)
		}
		copy(p[nd.n:], rest)
		if idle == 1 {
			nd.q = nd.q[:0]
		} else {
			nd.q = append(nd.q[:0], nd.q[1:]...)
		}
		nd.held--
		out.Msgs = append(out.Msgs, proto.Message{Type: Token, Cause: proto.Normal, From: nd.id, To: j,
			Tag: t, Payload: p})
	}
}

// Units implements kexcl.UnitNode: one unit (token) while in the critical
// section.
func (nd *Node) Units() int {
	if nd.inCS {
		return 1
	}
	return 0
}

// Held returns the tokens the node holds.
func (nd *Node) Held() int { return nd.held }

// View implements proto.Node: TokenHere when the node holds a token.
func (nd *Node) View() proto.View {
	return proto.View{Bits: proto.Bits{Up: nd.Up(), InCS: nd.inCS, Asked: nd.asked, TokenHere: nd.held > 0}, Tag: nd.tag, Units: nd.Units()}
}

// Waiting implements proto.Node: the node itself while it asks, and every
// request it queues.
func (nd *Node) Waiting(f func(j proto.NodeID)) {
	if nd.asked {
		f(nd.id)
	}
	for _, e := range nd.q {
		j, _ := unpack(e)
		f(j)
	}
}

// Algorithm is the Srimani–Reddy algorithm as a proto.Algorithm.
type Algorithm struct{ Config }

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "srimani-reddy" }

// MemoryPerNode implements proto.MemoryEstimator: the request numbers at every node, and the token's, about 9 bytes
// per node of the system at each node (measured at N = 256..4096).
func (Algorithm) MemoryPerNode(n int) int64 { return 9*int64(n) + 128 }

// NewNodes implements proto.Algorithm. It panics on a bad Config: check
// Config.Validate first.
func (a Algorithm) NewNodes(n int) []proto.Node {
	if err := a.Validate(); err != nil {
		panic(err)
	}
	return nodecast.New(n, func(nd *Node, id proto.NodeID) { nd.init(id, n, a.Ell) })
}

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.KExclusion }

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// Events implements proto.Algorithm: none.
func (Algorithm) Events() []string { return nil }

// StatedCost implements proto.CostAlgorithm: 0 or N+K−1 (survey, Table 3;
// its K is ℓ, the tokens).
func (a Algorithm) StatedCost(n int) proto.Cost {
	return proto.Cost{Low: 0, High: float64(n + a.Ell - 1), Text: fmt.Sprintf("0 or N+K−1, K=ℓ=%d", a.Ell), Source: "survey T3", Kind: proto.Range}
}

// WithUnits implements proto.KExclusionAlgorithm: ℓ units and requests of
// one unit (kexcl.Unit.WithUnits).
func (a Algorithm) WithUnits(ell, k int, seed uint64) (proto.Algorithm, error) {
	return kexcl.Unit(a.Config).WithUnits(ell, k, seed, func(u kexcl.Unit) (proto.Algorithm, error) {
		return Algorithm{Config(u)}, Config(u).Validate()
	})
}

// Units implements proto.KExclusionAlgorithm: ℓ, and K = 1.
func (a Algorithm) Units() (int, int) { return kexcl.Unit(a.Config).Units() }

// MaxK says that a request asks for one unit at most: runtimes default
// --k-max to it.
func (Algorithm) MaxK() int { return 1 }
