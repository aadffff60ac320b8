package explore

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/algo"
	_ "github.com/ocbench/ocbench/algo/all"
	"github.com/ocbench/ocbench/algo/kofl"
	"github.com/ocbench/ocbench/algo/ricartagrawala"
	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/trace"
	"github.com/ocbench/ocbench/workload"
)

func lookup(t *testing.T, name string) proto.Algorithm {
	t.Helper()
	a, ok := algo.Lookup(name)
	if !ok {
		t.Fatalf("%s is not registered", name)
	}
	return a
}

// benchAlgorithm returns the algorithm named name as the simulator runs it
// at n nodes (the plan of the spec's defaults, bench.Spec.Resolve: failure
// protocol, units).
func benchAlgorithm(t *testing.T, name string, n int) proto.Algorithm {
	t.Helper()
	plan, err := bench.Spec{Algorithm: name, Nodes: n, Requests: 1, Seed: 1, Workload: workload.Sequential, CSTime: 1}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return plan.Algorithm
}

// explored runs one exploration and fails the test on an error.
func explored(t *testing.T, cfg Config) *Result {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// walk applies actions from the initial state and returns the state's
// encoding.
func walk(t *testing.T, e *Explorer, acts []action) []byte {
	t.Helper()
	inits, err := e.initial()
	if err != nil {
		t.Fatal(err)
	}
	s := inits[0]
	for _, a := range acts {
		var c sys
		if err := e.apply(s, a, &c, nil); err != nil {
			t.Fatal(err)
		}
		s = &c
	}
	return appendState(nil, s)
}

// findDeliver returns the action that delivers the message from → to of
// type typ in the state reached by acts.
func findDeliver(t *testing.T, e *Explorer, acts []action, from, to proto.NodeID, typ proto.MsgType) action {
	t.Helper()
	b := walk(t, e, acts)
	var s sys
	if !e.readState(b, &s) {
		t.Fatal("readState failed")
	}
	for k, f := range s.msgs {
		if f.m.From == from && f.m.To == to && f.m.Type == typ {
			return action{kind: Deliver, node: to, idx: int32(k)}
		}
	}
	t.Fatalf("no message %d→%d of type %d in flight", from, to, typ)
	return action{}
}

// TestHashInterleavings: two orders of independent steps reach one state,
// with one encoding and one hash; a different state differs.
func TestHashInterleavings(t *testing.T) {
	for _, name := range []string{"ricart-agrawala", "opencube", "suzuki-kasami", "maekawa"} {
		t.Run(name, func(t *testing.T) {
			e, err := New(Config{Algorithm: lookup(t, name), Nodes: 4, Requests: 1, MaxStates: 1})
			if err != nil {
				t.Fatal(err)
			}
			r1, r2 := action{kind: Request, node: 1}, action{kind: Request, node: 2}
			a := walk(t, e, []action{r1, r2})
			b := walk(t, e, []action{r2, r1})
			if !bytes.Equal(a, b) || hash64(a) != hash64(b) {
				t.Fatalf("requests of 1 then 2 and of 2 then 1 reach different encodings:\n%x\n%x", a, b)
			}
			one := walk(t, e, []action{r1})
			if bytes.Equal(a, one) || hash64(a) == hash64(one) {
				t.Fatal("a state with one request hashes like a state with two")
			}
		})
	}
	// Deliveries to different nodes, in both orders.
	e, err := New(Config{Algorithm: lookup(t, "ricart-agrawala"), Nodes: 4, Requests: 1, MaxStates: 1})
	if err != nil {
		t.Fatal(err)
	}
	pre := []action{{kind: Request, node: 0}}
	d1 := findDeliver(t, e, pre, 0, 1, ricartagrawala.Request)
	after1 := append(append([]action(nil), pre...), d1)
	d2 := findDeliver(t, e, after1, 0, 2, ricartagrawala.Request)
	x := walk(t, e, append(after1, d2))
	d2first := findDeliver(t, e, pre, 0, 2, ricartagrawala.Request)
	after2 := append(append([]action(nil), pre...), d2first)
	d1then := findDeliver(t, e, after2, 0, 1, ricartagrawala.Request)
	y := walk(t, e, append(after2, d1then))
	if !bytes.Equal(x, y) || hash64(x) != hash64(y) {
		t.Fatal("deliveries to nodes 1 and 2 in both orders reach different encodings")
	}
	if bytes.Equal(x, walk(t, e, after1)) {
		t.Fatal("one delivery and two deliveries encode alike")
	}
}

// aliased is a node type with the shapes the codec must keep: a pointer
// met twice, a map, an interface, a shared configuration and a func.
type aliased struct {
	a, b   *[3]int
	m      map[string][]int32
	i      any
	cfg    *sharedCfg
	f      func() int
	s      string
	empty  []int
	nilSli []int
	v      proto.View
}

type sharedCfg struct{ k int }

// one is a func value: funcs are encoded by identity, so the test's nodes
// share one.
func one() int { return 1 }

func (n *aliased) Step(proto.Input, *proto.Output) { n.a[0]++ }
func (n *aliased) View() proto.View                { return n.v }
func (n *aliased) Waiting(func(proto.NodeID))      {}

// TestCodecRoundTrip: a decoded node encodes as the original, keeps its
// aliasing, shares the configuration, and is a copy (stepping it leaves
// the original alone).
func TestCodecRoundTrip(t *testing.T) {
	cfg := &sharedCfg{k: 7}
	mk := func(x int) *aliased {
		arr := &[3]int{x, 2, 3}
		return &aliased{a: arr, b: arr, m: map[string][]int32{"x": {1}, "y": {2, 3}, "z": nil}, i: &[2]int{x, x},
			cfg: cfg, f: one, s: "node", empty: []int{}, v: proto.View{Bits: proto.Bits{Up: true}}}
	}
	nodes := []proto.Node{mk(1), mk(2)}
	nc, err := newNodeCodec(nodes)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(n proto.Node) []byte {
		c := coder{nc: nc}
		if err := c.encodeNode(n); err != nil {
			t.Fatal(err)
		}
		return c.buf
	}
	for range 20 { // map order varies from run to run: the encoding must not
		if !bytes.Equal(enc(nodes[0]), enc(mk(1))) {
			t.Fatal("two equal nodes encode differently")
		}
	}
	b := enc(nodes[0])
	d, err := nc.decodeNode(typeOf(nodes[0]), b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc(d), b) {
		t.Fatal("a decoded node encodes differently")
	}
	x := d.(*aliased)
	switch {
	case x.a != x.b:
		t.Fatal("aliasing lost: a and b point to different arrays")
	case x.a == nodes[0].(*aliased).a:
		t.Fatal("the decoded node shares its array with the original")
	case x.cfg != cfg:
		t.Fatal("the shared configuration was copied")
	case x.empty == nil || x.nilSli != nil:
		t.Fatal("nil and empty slices were confused")
	case x.f() != 1 || x.s != "node" || len(x.m["y"]) != 2:
		t.Fatal("fields lost")
	}
	x.Step(proto.Input{}, nil)
	if bytes.Equal(enc(d), b) || nodes[0].(*aliased).a[0] != 1 {
		t.Fatal("stepping the copy did not change only the copy")
	}
	if bytes.Equal(enc(nodes[0]), enc(nodes[1])) {
		t.Fatal("different nodes encode alike")
	}
	if _, err := nc.decodeNode(typeOf(nodes[0]), b[:len(b)-1]); err == nil {
		t.Fatal("a truncated encoding decoded")
	}
}

// brokenRA is Ricart–Agrawala with one rule changed, in test code only: a
// node reads every request as if it had priority (timestamp 0), so it
// replies at once instead of deferring.
type brokenRA struct{ ricartagrawala.Algorithm }

type brokenNode struct{ proto.Node }

// Invariants implements proto.Algorithm: Ricart–Agrawala's own read its
// node type; the explorer's mutual exclusion is the check here.
func (brokenRA) Invariants(bool) []proto.Invariant { return nil }

func (a brokenRA) NewNodes(n int) []proto.Node {
	out := a.Algorithm.NewNodes(n)
	for i := range out {
		out[i] = &brokenNode{out[i]}
	}
	return out
}

func (b *brokenNode) Step(in proto.Input, out *proto.Output) {
	if in.Kind != proto.Receive || in.Msg.Type != ricartagrawala.Request {
		b.Node.Step(in, out)
		return
	}
	stamp := in.Msg.Stamp
	in.Msg.Stamp = 0
	first := len(out.Msgs)
	b.Node.Step(in, out)
	for k := first; k < len(out.Msgs); k++ {
		if m := &out.Msgs[k]; m.Type == ricartagrawala.Reply && m.To == in.Msg.From {
			m.Stamp = stamp // the requester recognizes its reply
		}
	}
}

// TestBrokenCopy: the explorer finds the broken copy's violation of mutual
// exclusion with a run no longer than the known one (two nodes request,
// each request reaches the N−1 others, who reply at once, and the replies
// arrive: 2 + 4(N−1) steps), and the run's trace fails check-trace on
// mutual exclusion.
func TestBrokenCopy(t *testing.T) {
	for _, n := range []int{2, 3} {
		known := 2 + 4*(n-1)
		res := explored(t, Config{Algorithm: brokenRA{}, Nodes: n, Requests: 1, MaxStates: 1 << 20})
		v := res.Violation
		if v == nil {
			t.Fatalf("N=%d: the broken copy explored clean (%d states)", n, res.States)
		}
		if len(v.Path) > known {
			t.Errorf("N=%d: the violation's run has %d steps, the known one %d", n, len(v.Path), known)
		}
		if !strings.Contains(v.What, "critical section") {
			t.Errorf("N=%d: violation %q is not about the critical section", n, v.What)
		}
		var buf bytes.Buffer
		if err := WriteTrace(&buf, brokenRA{}, v.Path, 0, 1e-3); err != nil {
			t.Fatal(err)
		}
		_, err := trace.Check(&buf)
		if err == nil || errors.Is(err, trace.ErrNotTrace) || !strings.Contains(err.Error(), "critical section") {
			t.Errorf("N=%d: check-trace on the violation's trace: %v, want a mutual-exclusion failure", n, err)
		}
	}
	// The unbroken algorithm is clean at N = 2.
	if res := explored(t, Config{Algorithm: ricartagrawala.Algorithm{}, Nodes: 2, Requests: 2, MaxStates: 1 << 20}); res.Violation != nil || res.Limit != "" {
		t.Fatalf("ricart-agrawala N=2: %+v", res)
	}
}

// TestLimit: a search that hits its state limit says so.
func TestLimit(t *testing.T) {
	res := explored(t, Config{Algorithm: lookup(t, "ricart-agrawala"), Nodes: 4, Requests: 1, MaxStates: 100})
	if res.Limit == "" || res.States != 100 {
		t.Fatalf("limit not reported: %+v", res)
	}
}

// panicky is Ricart–Agrawala whose nodes panic on their first reply.
type panicky struct{ brokenRA }

type panicNode struct{ proto.Node }

func (p panicky) NewNodes(n int) []proto.Node {
	out := p.Algorithm.NewNodes(n)
	for i := range out {
		out[i] = &panicNode{out[i]}
	}
	return out
}

func (p *panicNode) Step(in proto.Input, out *proto.Output) {
	if in.Kind == proto.Receive && in.Msg.Type == ricartagrawala.Reply {
		panic("broken on purpose")
	}
	p.Node.Step(in, out)
}

// TestPanicIsStepError: a node that panics stops the search with a
// StepError that carries the run to it, not a crash.
func TestPanicIsStepError(t *testing.T) {
	e, err := New(Config{Algorithm: panicky{}, Nodes: 2, Requests: 1, MaxStates: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Run()
	var se *StepError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "panicked") || len(se.Path) == 0 {
		t.Fatalf("got %v, want a StepError about a panic with its run", err)
	}
}

// TestStop: a search whose Config.Stop is closed, before it starts or at
// a level, ends incomplete with StopLimit and fewer states than the whole
// space, on one worker or two, and so does a stabilization search; an
// open Stop changes nothing.
func TestStop(t *testing.T) {
	whole := explored(t, Config{Algorithm: lookup(t, "ricart-agrawala"), Nodes: 3, Requests: 1, Workers: 1, MaxStates: 1 << 22})
	for _, c := range []struct {
		name    string
		workers int
		at      int // the level after which Stop is closed; -1: before the search
	}{
		{"before, 1 worker", 1, -1},
		{"before, 2 workers", 2, -1},
		{"at level 3, 1 worker", 1, 3},
		{"at level 3, 2 workers", 2, 3},
		{"never, 2 workers", 2, 1 << 30},
	} {
		t.Run(c.name, func(t *testing.T) {
			stop := make(chan struct{})
			cfg := Config{Algorithm: lookup(t, "ricart-agrawala"), Nodes: 3, Requests: 1, Workers: c.workers, MaxStates: 1 << 22, Stop: stop}
			if c.at < 0 {
				close(stop)
			} else {
				cfg.Progress = func(depth int, _ int64) {
					if depth == c.at {
						close(stop)
					}
				}
			}
			res := explored(t, cfg)
			if c.at == 1<<30 {
				if res.Limit != "" || res.States != whole.States {
					t.Fatalf("Stop never closed: limit %q, %d states; want none and %d", res.Limit, res.States, whole.States)
				}
				return
			}
			if res.Limit != StopLimit || res.States >= whole.States {
				t.Fatalf("limit %q, %d states; want %q and fewer than %d", res.Limit, res.States, StopLimit, whole.States)
			}
		})
	}
	a := kofl.SelfStabilizing{Algorithm: kofl.Algorithm{Config: kofl.Config{Ell: 1, K: 1, MaxSeq: 1, Timeout: 2}}}
	stop := make(chan struct{})
	close(stop)
	e, err := New(Config{Algorithm: a, Nodes: 2, Requests: 0, Ticks: 2, MinTicks: 1, CSTicks: 2, MaxStates: 1 << 22, Initial: koflIdle(a), Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	st, err := e.Stabilization()
	if err != nil {
		t.Fatal(err)
	}
	if st.Limit != StopLimit {
		t.Fatalf("stabilization with Stop closed: %+v", st)
	}
}
