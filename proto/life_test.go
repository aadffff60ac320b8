package proto

import "testing"

// lifeNode is a Recoverer that counts what reaches it.
type lifeNode struct {
	Life
	steps, recovers int
	stable          int // kept across a crash
}

func (n *lifeNode) Step(Input, *Output)    { n.steps++ }
func (n *lifeNode) View() View             { return View{Bits: Bits{Up: n.Up()}} }
func (n *lifeNode) Waiting(func(j NodeID)) {}
func (n *lifeNode) Recover(out *Output) {
	n.recovers++
	out.Msgs = append(out.Msgs, Message{Type: 1, From: 0, To: 1, Stamp: uint64(n.stable)})
}

// crashNode is a lifeNode that is also a Crasher.
type crashNode struct {
	lifeNode
	crashes   int
	upAtCrash bool
}

func (n *crashNode) Crash(*Output) { n.crashes++; n.upAtCrash = n.Up() }

// steppers are the two ways a host steps a Recoverer: Step, and a
// NodeArray's AdmitArray before the node's own Step.
var steppers = []struct {
	name string
	step func(n *crashNode, in Input, out *Output)
}{
	{"Step", func(n *crashNode, in Input, out *Output) { Step(n, in, out) }},
	{"AdmitArray", func(n *crashNode, in Input, out *Output) {
		if AdmitArray(&n.Life, n, &in, out) {
			n.Step(in, out)
		}
	}},
}

// TestStep: the host's gate takes a node down and back up, drops a down
// node's inputs, calls Recover once per recovery with the node's stable
// fields, ignores a crash of a down node and a recovery of an up one, and
// passes the inputs of an up node to its Step; AdmitArray's gate is the
// same.
func TestStep(t *testing.T) {
	for _, c := range []struct {
		name                     string
		ins                      []InputKind
		steps, recovers, crashes int
		up                       bool
		msgs                     int
	}{
		{"up", []InputKind{EnterCS, Receive, Fire, ExitCS}, 4, 0, 0, true, 0},
		{"down drops", []InputKind{Crash, EnterCS, Receive, Fire, ExitCS}, 0, 0, 1, false, 0},
		{"crash twice", []InputKind{Crash, Crash}, 0, 0, 1, false, 0},
		{"recover up", []InputKind{Recover, EnterCS}, 1, 0, 0, true, 0},
		{"crash recover", []InputKind{EnterCS, Crash, Receive, Recover, Recover, Receive}, 2, 1, 1, true, 1},
	} {
		for _, st := range steppers {
			t.Run(st.name+"/"+c.name, func(t *testing.T) {
				n := &crashNode{lifeNode: lifeNode{stable: 5}}
				var out Output
				for _, k := range c.ins {
					st.step(n, Input{Kind: k}, &out)
				}
				if n.steps != c.steps || n.recovers != c.recovers || n.crashes != c.crashes || n.View().Up != c.up || len(out.Msgs) != c.msgs {
					t.Errorf("steps %d recovers %d crashes %d up %v msgs %d, want %d %d %d %v %d",
						n.steps, n.recovers, n.crashes, n.View().Up, len(out.Msgs), c.steps, c.recovers, c.crashes, c.up, c.msgs)
				}
				if c.crashes > 0 && !n.upAtCrash {
					t.Errorf("Crash ran on a node already down")
				}
				if c.msgs > 0 && out.Msgs[0].Stamp != 5 {
					t.Errorf("Recover saw stable %d, want 5", out.Msgs[0].Stamp)
				}
			})
		}
	}
}

// plainNode handles its own crashes: Step passes it every input.
type plainNode struct{ steps int }

func (n *plainNode) Step(Input, *Output)    { n.steps++ }
func (n *plainNode) View() View             { return View{} }
func (n *plainNode) Waiting(func(j NodeID)) {}

func TestStepPlain(t *testing.T) {
	n := &plainNode{}
	var out Output
	for _, k := range []InputKind{Crash, EnterCS, Recover} {
		Step(n, Input{Kind: k}, &out)
	}
	if n.steps != 3 {
		t.Errorf("a node that is not a Recoverer got %d of 3 inputs", n.steps)
	}
}

func TestWithoutCrashes(t *testing.T) {
	inv := Invariant{Name: "x"}
	if got := WithoutCrashes(false, inv, inv); len(got) != 2 {
		t.Errorf("without crashes: %d invariants, want 2", len(got))
	}
	if got := WithoutCrashes(true, inv); got != nil {
		t.Errorf("with crashes: %v, want none", got)
	}
}
