package proto

// Life is a node's up bit, which the host keeps: a node embeds Life,
// reports Up in its View, and leaves Crash, Recover and the inputs of a
// down node to the host (Step). The zero Life is up. Only Step changes it,
// so an algorithm's Step sees only the inputs of an up node, and a node
// comes back only through its Recover.
type Life struct {
	down bool
}

// Up reports whether the node is up.
func (l *Life) Up() bool { return !l.down }

func (l *Life) life() *Life { return l }

// Recoverer is a node the host crashes and restarts (stateright's model:
// the framework crashes an actor and restarts it with its storage). It
// embeds Life (the unexported method is Life's).
//
// Recover restarts the node after a crash from what it keeps in stable
// storage (the fields Recover does not reset; for most algorithms none: it
// starts again as NewNodes made it). It may send messages and set timers:
// a failure protocol announces its return.
type Recoverer interface {
	Node
	Recover(out *Output)
	life() *Life
}

// Crasher is a Recoverer that does something at its crash besides stopping
// (it voids its timers, drops what it held): Crash runs before the node
// goes down.
type Crasher interface {
	Crash(out *Output)
}

// Admit is the host's gate before a Recoverer's Step: Crash takes an up
// node down (after its Crash, for a Crasher); Recover brings a down node
// back up and calls its Recover; a down node drops every other input, and
// the up bit ignores a Crash of a down node and a Recover of an up one.
// Admit reports whether the input is left for the node's Step: an input
// other than Crash and Recover to an up node.
func Admit(r Recoverer, in *Input, out *Output) bool {
	l := r.life()
	switch in.Kind {
	case Crash:
		if !l.down {
			if c, ok := r.(Crasher); ok {
				c.Crash(out)
			}
			l.down = true
		}
		return false
	case Recover:
		if l.down {
			l.down = false
			r.Recover(out)
		}
		return false
	}
	return !l.down
}

// AdmitArray is Admit for a host that steps a node by its concrete type
// (a NodeArray's StepView), l the node's own Life: an input other than
// Crash and Recover to an up node, the one a run is made of, is admitted
// by a test of the up bit inlined in the host, and every other input goes
// through Admit.
func AdmitArray(l *Life, r Recoverer, in *Input, out *Output) bool {
	if !l.down && in.Kind != Crash && in.Kind != Recover {
		return true
	}
	return Admit(r, in, out)
}

// Step steps node n with in as every host does: through Admit for a
// Recoverer, and straight to n.Step for a node that handles its own
// crashes (or has none).
func Step(n Node, in Input, out *Output) {
	if r, ok := n.(Recoverer); ok && !Admit(r, &in, out) {
		return
	}
	n.Step(in, out)
}

// WithoutCrashes returns invs in a run without crashes and none in a run
// with crashes: the invariants of an algorithm without a failure protocol,
// whose guarantees a crash voids.
func WithoutCrashes(crashes bool, invs ...Invariant) []Invariant {
	if crashes {
		return nil
	}
	return invs
}
