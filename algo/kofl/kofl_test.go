package kofl

import (
	"math"
	"testing"

	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
)

// netSys reads a steptest.Net as a proto.System: its Pending list is in
// sending order, so each link's messages come in FIFO order.
type netSys struct{ net *steptest.Net }

func (s netSys) Nodes() []proto.Node    { return s.net.Nodes }
func (s netSys) Down(proto.NodeID) bool { return false }
func (s netSys) ForEachInFlight(f func(m *proto.Message)) {
	for i := range s.net.Pending {
		f(&s.net.Pending[i])
	}
}

// example drives the worked example's net: deliveries in FIFO order per
// link, and the legitimacy predicate and safety after every step.
type example struct {
	t   *testing.T
	net *steptest.Net
}

func (e *example) check(what string) {
	e.t.Helper()
	if err := Legitimate(netSys{e.net}); err != nil {
		e.t.Fatalf("after %s: not legitimate: %v", what, err)
	}
	if err := Safety(netSys{e.net}); err != nil {
		e.t.Fatalf("after %s: %v", what, err)
	}
}

// deliver delivers msg, which must be the oldest message of its link, and
// checks what its receipt sends and the Stamp of the message delivered.
func (e *example) deliver(msg string, gen uint64, want ...string) {
	e.t.Helper()
	k := -1
	for i, m := range e.net.Pending {
		if e.net.Msg(m) == msg {
			k = i
			break
		}
	}
	if k < 0 {
		e.t.Fatalf("no pending %s", msg)
	}
	m := e.net.Pending[k]
	if m.Stamp != gen {
		e.t.Fatalf("%s carries %d, want %d", msg, m.Stamp, gen)
	}
	for _, o := range e.net.Pending[:k] { // FIFO: no older message on its link
		if o.From == m.From && o.To == m.To {
			e.t.Fatalf("%s is not the oldest message of its link: %s is", msg, e.net.Msg(o))
		}
	}
	e.net.Deliver(msg, want...)
	e.check(msg)
}

func (e *example) local(id int) Local {
	return e.net.Nodes[id].(*Node).State()
}

// TestWorkedExample: n = 4 (ring 0 → 1 → 3 → 2 → 0), ℓ = 2, K = 2; nodes
// 3 and 1 each ask for 2 units and each catches one of the two tokens: the
// hold-and-wait deadlock. The Collect disables and collects both, Root
// allocates the pool of 2 at the next traversal, node 1 (a waiting
// requester: it has a disabled token) takes both and enters; the CToken
// counts its 2 enabled tokens; on its exit node 3 gets them and enters.
// Every message is named, and the configuration is legitimate after every
// step.
func TestWorkedExample(t *testing.T) {
	need := map[uint32]int{1: 2, 3: 2}
	c := Config{Ell: 2, K: 2, Need: func(tag uint32) int { return need[tag] }}
	net := &steptest.Net{T: t, Types: messageTypes, Nodes: Algorithm{c}.NewNodes(4)}
	e := &example{t: t, net: net}
	// Root begins the first traversal: 2 new tokens, Collect(0), CToken(1).
	var out proto.Output
	net.Nodes[0].(*Node).Start(&out)
	var got []string
	for _, m := range out.Msgs {
		got = append(got, net.Msg(m))
	}
	net.Pending = append(net.Pending, out.Msgs...)
	net.Expect("root's start", got, "token() 0→1", "token() 0→1", "collect() 0→1", "ctoken() 0→1")
	if len(out.Timers) != 1 || out.Events[EvCreated] != 2 || out.Events[EvTraversal] != 1 {
		t.Fatalf("root's start: timers %v, events %v", out.Timers, out.Events)
	}
	e.check("start")

	net.Enter(3)                               // node 3 asks for 2
	e.deliver("token() 0→1", 0, "token() 1→3") // node 1 is outside: it passes the token on
	e.deliver("token() 1→3", 0)                // node 3 keeps it: T_h = 1
	net.Enter(1)                               // node 1 asks for 2
	e.deliver("token() 0→1", 0)                // node 1 keeps the other: deadlock without preemption
	e.deliver("collect() 0→1", 0, "collect() 1→3")
	if l := e.local(1); l.Th != 1 || l.Td != 1 {
		t.Fatalf("node 1 after the collect: %+v, want T_h = T_d = 1", l)
	}
	e.deliver("collect() 1→3", 1, "collect() 3→2")
	e.deliver("collect() 3→2", 2, "collect() 2→0")
	e.deliver("collect() 2→0", 2)                // Root's MyT_c = 2
	e.deliver("ctoken() 0→1", 1, "ctoken() 1→3") // both tokens are disabled: no Enabled_Token
	e.deliver("ctoken() 1→3", 1, "ctoken() 3→2")
	e.deliver("ctoken() 3→2", 1, "ctoken() 2→0")
	// Root counts C_e 0 + C_f 0 + MyT_c 2 + MyT_a 0 = ℓ: it creates none,
	// and allocates the pool of 2.
	e.deliver("ctoken() 2→0", 1, "allocate() 0→1", "collect() 0→1", "ctoken() 0→1")
	e.deliver("allocate() 0→1", 2) // node 1 waits (a disabled token) and the pool covers it
	net.InCS(1)
	e.deliver("collect() 0→1", 0, "collect() 1→3")
	e.deliver("collect() 1→3", 0, "collect() 3→2") // node 3's token is disabled: nothing to collect
	e.deliver("collect() 3→2", 0, "collect() 2→0")
	e.deliver("collect() 2→0", 0)
	e.deliver("ctoken() 0→1", 2, "enabled_token() 1→3", "enabled_token() 1→3", "ctoken() 1→3")
	net.Exit(1, "token() 1→3", "token() 1→3")
	e.check("node 1's exit")
	e.deliver("enabled_token() 1→3", 0, "enabled_token() 3→2")
	e.deliver("enabled_token() 1→3", 0, "enabled_token() 3→2")
	e.deliver("ctoken() 1→3", 2, "ctoken() 3→2")
	e.deliver("token() 1→3", 0) // T_h = 2, T_d = 1
	e.deliver("token() 1→3", 0) // T_d = 0: node 3 enters
	net.InCS(3)
	e.deliver("enabled_token() 3→2", 0, "enabled_token() 2→0")
	e.deliver("enabled_token() 3→2", 0, "enabled_token() 2→0")
	e.deliver("ctoken() 3→2", 2, "ctoken() 2→0")
	e.deliver("enabled_token() 2→0", 0)
	e.deliver("enabled_token() 2→0", 0)
	// C_e = 2 (node 1's tokens): the count is exact, no pool to allocate.
	e.deliver("ctoken() 2→0", 2, "collect() 0→1", "ctoken() 0→1")
	net.Exit(3, "token() 3→2", "token() 3→2")
	e.check("node 3's exit")
	e.deliver("token() 3→2", 0, "token() 2→0")
	e.deliver("token() 2→0", 0, "token() 0→1") // counted in C_f, passed on
	if l := e.local(0); l.Cf != 1 || l.Ce != 0 {
		t.Fatalf("root: %+v, want C_f = 1, C_e = 0", l)
	}
	if len(net.Entered) != 2 {
		t.Fatalf("entries %v", net.Entered)
	}
}

// TestNeedOf: a request's k is in 1..K, a function of the tag and the
// seed, and every k occurs.
func TestNeedOf(t *testing.T) {
	c := Config{Ell: 5, K: 3, Seed: 7}
	seen := map[int]int{}
	for tag := uint32(1); tag <= 3000; tag++ {
		k := c.NeedOf(tag)
		if k < 1 || k > 3 || k != c.NeedOf(tag) {
			t.Fatalf("NeedOf(%d) = %d", tag, k)
		}
		seen[k]++
	}
	for k := 1; k <= 3; k++ {
		if seen[k] < 800 {
			t.Fatalf("k = %d drawn %d times in 3000: %v", k, seen[k], seen)
		}
	}
	if (Config{Ell: 5, K: 3, Seed: 8}).NeedOf(1) == c.NeedOf(1) && (Config{Ell: 5, K: 3, Seed: 8}).NeedOf(2) == c.NeedOf(2) &&
		(Config{Ell: 5, K: 3, Seed: 8}).NeedOf(3) == c.NeedOf(3) && (Config{Ell: 5, K: 3, Seed: 8}).NeedOf(4) == c.NeedOf(4) {
		t.Fatalf("the seed does not change the draws")
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		c  Config
		ok bool
	}{
		{Config{Ell: 1, K: 1}, true},
		{Config{Ell: 5, K: 3, MaxVc: 3}, true},
		{Config{Ell: 0, K: 1}, false},
		{Config{Ell: 2, K: 3}, false},
		{Config{Ell: 5, K: 3, MaxVc: 2}, false},
		{Config{Ell: 5, K: 3, MaxVc: 6}, false},
		{Config{Ell: 1, K: 1, Timeout: MinTimeout}, true},
		{Config{Ell: 1, K: 1, Timeout: math.NaN()}, false},
		{Config{Ell: 1, K: 1, Timeout: math.Inf(1)}, false},
	} {
		if err := c.c.Validate(); (err == nil) != c.ok {
			t.Errorf("%+v: %v", c.c, err)
		}
	}
}
