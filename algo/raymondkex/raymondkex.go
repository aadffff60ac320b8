package raymondkex

import (
	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/algo/kexcl"
	"github.com/ocbench/ocbench/algo/tsorder"
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// The message types.
const (
	Request proto.MsgType = iota // request: Stamp = the request's timestamp
	Reply                        // reply: Stamp = the number of requests it answers (≥ 1)
)

var messageTypes = []proto.MessageType{
	{Name: "request", Payload: "none", Arg: "none", Stamp: "the request's Lamport timestamp"},
	{Name: "reply", Payload: "none", Arg: "none", Stamp: "the number of the receiver's requests answered (≥ 1)"},
}

// Config is the ℓ-exclusion of one run (kexcl.Unit): ℓ units, requests of K = 1 unit.
type Config kexcl.Unit

// Validate returns an error unless ℓ ≥ 1 and K ≤ 1.
func (c Config) Validate() error {
	return kexcl.Unit(c).Check("raymond-kex", "Raymond's ℓ-exclusion serves requests of one unit")
}

// NeedOf returns the k of the request with serial tag (kexcl.NeedOf): 1.
func (c Config) NeedOf(tag uint32) int { return kexcl.Unit(c).NeedOf(tag) }

// Node is one node of Raymond's ℓ-exclusion. Only Step changes it.
type Node struct {
	id     proto.NodeID
	n, ell int
	proto.Life
	clock   uint64 // the highest timestamp seen
	asked   bool
	inCS    bool
	tag     uint32  // serial of the own request
	ts      uint64  // timestamp of the own request
	owed    []int32 // owed[j]: own requests j has not answered yet
	blocked int     // nodes j with owed[j] > 0
	owedSum int     // Σ owed[j]
	// deferred[j]: j's requests whose reply this node defers; deferTag[j]
	// the serial of the latest of them.
	deferred    []int32
	deferTag    []uint32
	deferredSum int
}

func (nd *Node) init(id proto.NodeID, n, ell int) {
	*nd = Node{id: id, n: n, ell: ell, owed: make([]int32, n), deferred: make([]int32, n), deferTag: make([]uint32, n)}
}

func (nd *Node) msg(t proto.MsgType, to proto.NodeID, gen uint64, tag uint32) proto.Message {
	return proto.Message{Type: t, Cause: proto.Normal, From: nd.id, To: to, Stamp: gen, Tag: tag}
}

// Step implements proto.Node.
func (nd *Node) Step(in proto.Input, out *proto.Output) {
	switch in.Kind {
	case proto.EnterCS:
		if nd.asked {
			return // one request at a time; the runtimes never ask twice
		}
		nd.clock++
		nd.asked, nd.tag, nd.ts = true, in.Tag, nd.clock
		for j := range nd.n {
			if proto.NodeID(j) == nd.id {
				continue
			}
			if nd.owed[j] == 0 {
				nd.blocked++
			}
			nd.owed[j]++
			nd.owedSum++
			out.Msgs = append(out.Msgs, nd.msg(Request, proto.NodeID(j), nd.ts, nd.tag))
		}
		nd.tryEnter(out)
	case proto.ExitCS:
		if !nd.inCS {
			return
		}
		nd.inCS, nd.asked = false, false
		for j, c := range nd.deferred {
			if c > 0 {
				out.Msgs = append(out.Msgs, nd.msg(Reply, proto.NodeID(j), uint64(c), nd.deferTag[j]))
				nd.deferred[j], nd.deferTag[j] = 0, 0
			}
		}
		nd.deferredSum = 0
	case proto.Receive:
		m := &in.Msg
		switch m.Type {
		case Request:
			nd.clock = max(nd.clock, m.Stamp)
			if nd.inCS || nd.asked && tsorder.Before(nd.ts, nd.id, m.Stamp, m.From) {
				nd.deferred[m.From]++
				nd.deferTag[m.From] = max(nd.deferTag[m.From], m.Tag)
				nd.deferredSum++
			} else {
				out.Msgs = append(out.Msgs, nd.msg(Reply, m.From, 1, m.Tag))
			}
		case Reply:
			c := int32(m.Stamp)
			if c <= 0 || c > nd.owed[m.From] {
				return // cannot happen: every reply answers requests sent
			}
			nd.owed[m.From] -= c
			nd.owedSum -= int(c)
			if nd.owed[m.From] == 0 {
				nd.blocked--
			}
			nd.tryEnter(out)
		}
	}
}

// Recover implements proto.Recoverer.
func (nd *Node) Recover(*proto.Output) {
	nd.init(nd.id, nd.n, nd.ell)
}

// tryEnter enters the critical section once at most ℓ−1 other nodes owe
// a reply: N−ℓ of the N−1 others have answered every request of this
// node.
func (nd *Node) tryEnter(out *proto.Output) {
	if nd.asked && !nd.inCS && nd.blocked <= nd.ell-1 {
		nd.inCS = true
		out.Enter = true
	}
}

// Units implements kexcl.UnitNode: one unit while in the critical
// section.
func (nd *Node) Units() int {
	if nd.inCS {
		return 1
	}
	return 0
}

// View implements proto.Node.
func (nd *Node) View() proto.View {
	v := proto.View{Bits: proto.Bits{Up: nd.Up(), InCS: nd.inCS, Asked: nd.asked}, Tag: nd.tag, Units: nd.Units()}
	if nd.asked {
		v.Gen = nd.ts
	}
	return v
}

// Waiting implements proto.Node: the node itself while it asks, and every
// requester whose reply it defers.
func (nd *Node) Waiting(f func(j proto.NodeID)) {
	if nd.asked {
		f(nd.id)
	}
	for j, c := range nd.deferred {
		if c > 0 {
			f(proto.NodeID(j))
		}
	}
}

// Algorithm is Raymond's ℓ-exclusion as a proto.Algorithm.
type Algorithm struct{ Config }

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "raymond-kex" }

// MemoryPerNode implements proto.MemoryEstimator: per-node counters of every other node, about 12 bytes
// per node of the system at each node (measured at N = 256..4096).
func (Algorithm) MemoryPerNode(n int) int64 { return 12*int64(n) + 128 }

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

// StatedCost implements proto.CostAlgorithm: at most 2(N−1), an upper
// bound (survey §4, "at most 2 * (N - 1) messages"; Table 3 prints
// 2*(N-1)), so of kind algo.AtMost.
func (Algorithm) StatedCost(n int) proto.Cost {
	return proto.Cost{High: float64(2 * (n - 1)), Text: "at most 2(N−1)", Source: "survey §4, T3", Kind: algo.AtMost}
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
