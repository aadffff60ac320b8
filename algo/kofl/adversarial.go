package kofl

import (
	"fmt"
	"math/rand/v2"

	"github.com/ocbench/ocbench/proto"
)

// adversaries are the adversarial initial configurations, each a case the
// stabilization proof has to handle (docs/algorithms/kofl.md, "Adversarial
// configurations"). Every one scrambles the nodes first (Scramble), then
// overrides what it is about.
var adversaries = []struct {
	name, text string
	build      func(nodes []*Node, rng *rand.Rand, linkCap int) []proto.Message
}{
	{"root-seq", "every link full of CTokens that carry Root's MySeq", advRootSeq},
	{"overflow", "counters at the top of their domains: MySeq = MaxSeq at Root and MaxSeq−1 elsewhere, C_e = C_f = ℓ+1, full pools in flight", advOverflow},
	{"ctokens", "one CToken on every link, one of them (drawn) carrying Root's MySeq", advCTokens},
	{"excess", "every node in the critical section on K enabled tokens, and a full <Allocate> on every link: far more than ℓ tokens", advExcess},
	{"empty", "no token and no message anywhere: Root's time-out must restart the CToken and replenish all ℓ tokens", advEmpty},
}

// AdversaryNames returns the names of the adversarial configurations.
func AdversaryNames() []string {
	out := make([]string, len(adversaries))
	for k, a := range adversaries {
		out[k] = a.name
	}
	return out
}

// AdversaryText describes the adversarial configuration called name.
func AdversaryText(name string) string {
	for _, a := range adversaries {
		if a.name == name {
			return a.text
		}
	}
	return ""
}

// Adversaries implements proto.AdversarialAlgorithm.
func (SelfStabilizing) Adversaries() []string { return AdversaryNames() }

// Adversary implements proto.AdversarialAlgorithm.
func (SelfStabilizing) Adversary(name string, nodes []proto.Node, rng *rand.Rand, linkCap int) ([]proto.Message, error) {
	ring := make([]*Node, len(nodes))
	for i, nd := range nodes {
		k, ok := nd.(*Node)
		if !ok {
			return nil, fmt.Errorf("kofl: node %d is a %T, not a kofl node", i, nd)
		}
		ring[i] = k
	}
	for _, a := range adversaries {
		if a.name == name {
			for _, nd := range ring {
				nd.Scramble(rng)
			}
			return a.build(ring, rng, max(1, linkCap)), nil
		}
	}
	return nil, fmt.Errorf("kofl: no adversarial configuration %q (there are: %v)", name, AdversaryNames())
}

// onEveryLink calls f linkCap times for the link out of every node, in
// ring order from Root, and returns the messages f makes.
func onEveryLink(nodes []*Node, linkCap int, f func(nd *Node) proto.Message) []proto.Message {
	var out []proto.Message
	for k := range nodes {
		nd := nodes[ringAt(k, len(nodes))]
		for range linkCap {
			out = append(out, f(nd))
		}
	}
	return out
}

func (nd *Node) msg(t proto.MsgType, stamp uint64) proto.Message {
	return proto.Message{Type: t, Cause: proto.Normal, From: nd.id, To: nd.next, Stamp: stamp}
}

func advRootSeq(nodes []*Node, _ *rand.Rand, linkCap int) []proto.Message {
	seq := nodes[0].st.MySeq
	return onEveryLink(nodes, linkCap, func(nd *Node) proto.Message { return nd.msg(CToken, seq) })
}

func advOverflow(nodes []*Node, _ *rand.Rand, linkCap int) []proto.Message {
	p := nodes[0].p
	for _, nd := range nodes {
		l := nd.st
		l.MySeq = p.MaxSeq - 1
		l.MyTc, l.MyTa = p.maxVc, p.maxTa
		if nd.Root() {
			l.MySeq, l.Ce, l.Cf = p.MaxSeq, p.maxC, p.maxC
		}
		nd.SetLocal(l)
	}
	k := 0
	return onEveryLink(nodes, linkCap, func(nd *Node) proto.Message {
		k++
		switch k % 3 {
		case 0:
			return nd.msg(CToken, p.MaxSeq-1)
		case 1:
			m := nd.msg(Allocate, uint64(p.maxTa))
			m.Phase = 1
			return m
		}
		return nd.msg(Collect, uint64(p.maxVc))
	})
}

func advCTokens(nodes []*Node, rng *rand.Rand, _ int) []proto.Message {
	p := nodes[0].p
	at := rng.IntN(len(nodes))
	k := -1
	return onEveryLink(nodes, 1, func(nd *Node) proto.Message {
		k++
		if k == at {
			return nd.msg(CToken, nodes[0].st.MySeq)
		}
		return nd.msg(CToken, rng.Uint64N(p.mod))
	})
}

func advExcess(nodes []*Node, _ *rand.Rand, linkCap int) []proto.Message {
	p := nodes[0].p
	for _, nd := range nodes {
		l := nd.st
		l.Mode, l.Need, l.Th, l.Td = In, p.K, p.K, 0
		nd.SetLocal(l)
	}
	return onEveryLink(nodes, linkCap, func(nd *Node) proto.Message {
		m := nd.msg(Allocate, uint64(p.maxTa))
		m.Phase = 1
		return m
	})
}

func advEmpty(nodes []*Node, _ *rand.Rand, _ int) []proto.Message {
	for _, nd := range nodes {
		l := nd.st
		l.Mode, l.Th, l.Td, l.MyTa, l.MyTc = Out, 0, 0, 0, 0
		if nd.Root() {
			l.Ce, l.Cf, l.Disabling = 0, 0, false
		}
		nd.SetLocal(l)
	}
	return nil
}

// Timeout implements proto.TimeoutAlgorithm: Root's CToken time-out, in δ
// per ring node.
func (a SelfStabilizing) Timeout() (float64, string) {
	if a.Config.Timeout == 0 {
		return DefaultTimeout, "δ per ring node"
	}
	return a.Config.Timeout, "δ per ring node"
}

// WithTimeout implements proto.TimeoutAlgorithm.
func (a SelfStabilizing) WithTimeout(t float64) (proto.Algorithm, error) {
	c := a.Config
	c.Timeout = t
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return SelfStabilizing{Algorithm{Config: c}}, nil
}
