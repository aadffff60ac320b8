package kofl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ocbench/ocbench/proto"
)

// StabilizationBound implements proto.BoundedStabilization: the paper's
// bound, 5 CToken traversals (5n hops).
func (SelfStabilizing) StabilizationBound() (float64, string) { return 5, "traversals" }

// domains are the domains of the nodes' states that an explorer enumerates
// (proto.EnumerableAlgorithm; `ocbench explore --transient`, docs/explore.md):
// full is every variable over the domain Scramble draws from; idle fixes every
// node outside the critical section with no request and no token held
// (mode Out, NEED 1, T_h = T_d = 0), and MyT_c = MyT_a = 0 but at Root.
// zero is every node at its zero state (mode Out, NEED 1, every counter 0,
// MySeq 0), for the effect of the messages on the links alone.
var domains = []string{"full", "idle", "zero"}

// mulCap is a × b, or limit + 1 when that is more than limit (a, b ≥ 0):
// a count that stops growing once it is beyond the limit, without overflow.
func mulCap(a, b, limit int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > (limit+1)/b {
		return limit + 1
	}
	return min(a*b, limit+1)
}

// localCount is len(localStates(c, root, domain)), or limit + 1 when that
// is more than limit, computed without listing a state.
func localCount(c Config, root bool, domain string, limit int64) int64 {
	if domain == "zero" {
		return 1
	}
	maxVc := c.MaxVc
	if maxVc == 0 {
		maxVc = c.Ell
	}
	maxTa := min(2*maxVc, c.Ell)
	modes, needs, ths := 3, c.K, c.K
	tcs, tas := maxVc, maxTa
	if domain == "idle" {
		modes, needs, ths = 1, 1, 0
		if !root {
			tcs, tas = 0, 0
		}
	}
	cs, dis := 0, 1
	if root {
		cs, dis = c.Ell+1, 2
	}
	total := int64(1)
	for _, f := range []int64{int64(modes), int64(needs), int64(ths) + 1, int64(ths) + 1, int64(min(c.MaxSeq, 1<<62)) + 1,
		int64(tcs) + 1, int64(tas) + 1, 2, int64(cs) + 1, int64(cs) + 1, int64(dis)} {
		total = mulCap(total, f, limit)
	}
	return total
}

// junkCount is len(junk(c, from, to)), computed without listing a message.
func junkCount(c Config) int64 {
	maxVc := c.MaxVc
	if maxVc == 0 {
		maxVc = c.Ell
	}
	maxTa := min(2*maxVc, c.Ell)
	return int64(min(c.MaxSeq, 1<<62)) + 1 + 3 + 2*int64(maxTa+1) + int64(maxVc+1)
}

// localStates returns every local state of node id within the domain.
func localStates(c Config, root bool, domain string) []Local {
	maxVc := c.MaxVc
	if maxVc == 0 {
		maxVc = c.Ell
	}
	maxTa := min(2*maxVc, c.Ell)
	modes, needs, ths := []Mode{Out, Request, In}, c.K, c.K
	tcs, tas := maxVc, maxTa
	if domain == "idle" {
		modes, needs, ths = []Mode{Out}, 1, 0
		if !root {
			tcs, tas = 0, 0
		}
	}
	cs, dis := 0, []bool{false}
	if root {
		cs, dis = c.Ell+1, []bool{false, true}
	}
	var out []Local
	for _, mode := range modes {
		for need := 1; need <= needs; need++ {
			for th := 0; th <= ths; th++ {
				for td := 0; td <= ths; td++ {
					for seq := uint64(0); seq <= c.MaxSeq; seq++ {
						for tc := 0; tc <= tcs; tc++ {
							for ta := 0; ta <= tas; ta++ {
								for _, ord := range []bool{false, true} {
									for ce := 0; ce <= cs; ce++ {
										for cf := 0; cf <= cs; cf++ {
											for _, d := range dis {
												out = append(out, Local{Mode: mode, Need: need, MySeq: seq, Th: th, Td: td,
													MyTc: tc, MyTa: ta, MyOrder: ord, Ce: ce, Cf: cf, Disabling: d})
											}
										}
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

// junk returns every message Junk may put on the link out of from:
// every type, with every value of its fields.
func junk(c Config, from, to proto.NodeID) []proto.Message {
	maxVc := c.MaxVc
	if maxVc == 0 {
		maxVc = c.Ell
	}
	maxTa := min(2*maxVc, c.Ell)
	m := func(t proto.MsgType, stamp uint64, phase uint8) proto.Message {
		return proto.Message{Type: t, Cause: proto.Normal, From: from, To: to, Stamp: stamp, Phase: phase}
	}
	var out []proto.Message
	for seq := uint64(0); seq <= c.MaxSeq; seq++ {
		out = append(out, m(CToken, seq, 0))
	}
	out = append(out, m(EnabledToken, 0, 0), m(Token, 0, 0), m(Disable, 0, 0))
	for ta := 0; ta <= maxTa; ta++ {
		out = append(out, m(Allocate, uint64(ta), 0), m(Allocate, uint64(ta), 1))
	}
	for tc := 0; tc <= maxVc; tc++ {
		out = append(out, m(Collect, uint64(tc), 0))
	}
	return out
}

// Domains implements proto.EnumerableAlgorithm.
func (SelfStabilizing) Domains() []string { return slices.Clone(domains) }

// WithMaxSeq implements proto.EnumerableAlgorithm.
func (a SelfStabilizing) WithMaxSeq(maxSeq uint64) (proto.Algorithm, error) {
	c := a.Config
	c.MaxSeq = maxSeq
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return SelfStabilizing{Algorithm{Config: c}}, nil
}

// Configurations implements proto.EnumerableAlgorithm: every initial
// configuration of n nodes within the domain, with 0..linkCap (at most 1)
// junk messages on each link, or an error if there are more than limit.
func (a SelfStabilizing) Configurations(n int, domain string, linkCap int, limit int64) (func() ([]proto.Configuration, error), int64, error) {
	if !slices.Contains(domains, domain) {
		return nil, 0, fmt.Errorf("unknown domain %q (allowed: %s)", domain, strings.Join(domains, ", "))
	}
	c := a.Config
	nodes := a.Nodes(n)
	if domain == "zero" {
		c.MaxSeq = 0 // MySeq 0 at every node; the junk CTokens keep 0..MaxSeq
	}
	// The size of the space first, from the domains' sizes alone: a space
	// beyond limit is refused before a state is listed.
	total := int64(1)
	for _, nd := range nodes {
		total = mulCap(total, localCount(c, nd.Root(), domain, limit), limit)
		if linkCap > 0 {
			total = mulCap(total, 1+junkCount(a.Config), limit)
		}
		if total > limit {
			return nil, 0, fmt.Errorf("more than %d initial configurations in domain %s", limit, domain)
		}
	}
	locals := make([][]Local, n)
	links := make([][]proto.Message, n)
	for i, nd := range nodes {
		locals[i] = []Local{{Need: 1}}
		if domain != "zero" {
			locals[i] = localStates(c, nd.Root(), domain)
		}
		links[i] = []proto.Message{{Type: 255}} // 255: the link is empty
		if linkCap > 0 {
			links[i] = append(links[i], junk(a.Config, nd.ID(), nd.Next())...)
		}
	}
	gen := func() ([]proto.Configuration, error) {
		var out []proto.Configuration
		idx := make([]int, 2*n)
		for {
			nds := a.Nodes(n)
			conf := proto.Configuration{Nodes: make([]proto.Node, n)}
			for i, nd := range nds {
				nd.SetLocal(locals[i][idx[i]])
				conf.Nodes[i] = nd
				if m := links[i][idx[n+i]]; m.Type != 255 {
					conf.Msgs = append(conf.Msgs, m)
				}
			}
			out = append(out, conf)
			k := 0
			for ; k < 2*n; k++ {
				lim := len(locals[k%n])
				if k >= n {
					lim = len(links[k-n])
				}
				if idx[k]++; idx[k] < lim {
					break
				}
				idx[k] = 0
			}
			if k == 2*n {
				return out, nil
			}
		}
	}
	return gen, total, nil
}

// DescribeConfiguration implements proto.EnumerableAlgorithm: each node's
// local state, then the messages on the links.
func (SelfStabilizing) DescribeConfiguration(c proto.Configuration) string {
	var b strings.Builder
	for i, n := range c.Nodes {
		l := n.(*Node).State()
		fmt.Fprintf(&b, "node %d {%s NEED=%d T_h=%d T_d=%d MySeq=%d MyT_c=%d MyT_a=%d MyOrder=%v", i, l.Mode, l.Need, l.Th, l.Td, l.MySeq, l.MyTc, l.MyTa, l.MyOrder)
		if i == 0 {
			fmt.Fprintf(&b, " C_e=%d C_f=%d Disabling=%v", l.Ce, l.Cf, l.Disabling)
		}
		b.WriteString("} ")
	}
	names := Algorithm{}.MessageTypes()
	if len(c.Msgs) == 0 {
		b.WriteString("links empty")
	}
	for _, m := range c.Msgs {
		fmt.Fprintf(&b, "%s %d→%d (stamp %d, phase %d) ", names[m.Type].Name, m.From, m.To, m.Stamp, m.Phase)
	}
	return strings.TrimSpace(b.String())
}
