// Package tokennode holds what the token-based nodes of
// algo/helaryplouzeauraynal, algo/mizunoneilsenrao, algo/suzukikasami (and
// algo/mishrasrimani through it) and algo/ratoken do alike with an input
// before their own rules apply: a node asks for one critical section
// at a time, and enters at once when it holds the idle token. A node embeds
// State and steps through Gate; its up bit is State's proto.Life, which the
// host keeps (proto.Admit).
package tokennode

import "github.com/ocbench/ocbench/proto"

// State is a node's request state.
type State struct {
	proto.Life
	Asked     bool   // it asked for the critical section and has not left it
	InCS      bool   // it is in the critical section
	TokenHere bool   // it holds the token
	Tag       uint32 // the serial of its current request
}

// Action is what is left for the algorithm to do with an input after Gate.
type Action uint8

// The actions Gate returns.
const (
	Done    Action = iota // nothing: Gate handled the input, or it is ignored
	Ask                   // EnterCS without the token: Asked and Tag are set; ask for the token
	Leave                 // ExitCS: InCS and Asked are cleared; pass the token on
	Deliver               // Receive: handle the message
)

// Gate handles what every such node handles alike and says what is left: a
// second EnterCS is ignored (the runtimes never ask twice), and the first
// one at the idle token enters with no message; an ExitCS outside the
// critical section is ignored. Other inputs (timers) are ignored.
func (s *State) Gate(in proto.Input, out *proto.Output) Action {
	switch in.Kind {
	case proto.EnterCS:
		if s.Asked {
			return Done
		}
		s.Asked, s.Tag = true, in.Tag
		if s.TokenHere {
			s.InCS, out.Enter = true, true
			return Done
		}
		return Ask
	case proto.ExitCS:
		if !s.InCS {
			return Done
		}
		s.InCS, s.Asked = false, false
		return Leave
	case proto.Receive:
		return Deliver
	}
	return Done
}

// View returns the state as proto.View's fields.
func (s *State) View() proto.View {
	return proto.View{Bits: proto.Bits{Up: s.Up(), TokenHere: s.TokenHere, InCS: s.InCS, Asked: s.Asked}, Tag: s.Tag}
}

// Waits reports whether the node waits for the token: it asked and is not
// in the critical section.
func (s *State) Waits() bool { return s.Asked && !s.InCS }
