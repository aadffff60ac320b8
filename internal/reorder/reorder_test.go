package reorder_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/proto"
)

// central is a coordinator algorithm: node 0 grants the critical section
// to one requester at a time, in arrival order (request, grant, release:
// 3 messages a request, none for node 0's own). bug breaks it on purpose,
// so that the tests see reorder catch each kind of fault.
type central struct{ bug string }

const (
	request proto.MsgType = iota
	grant
	release
	ping // sent right after a request (bug "fifo"): the coordinator expects it second
)

func (a central) Name() string                    { return "central/" + a.bug }
func (central) Family() proto.Family              { return proto.PermissionBased }
func (central) Events() []string                  { return nil }
func (central) Invariants(bool) []proto.Invariant { return nil }
func (central) MessageTypes() []proto.MessageType {
	return []proto.MessageType{{Name: "request"}, {Name: "grant"}, {Name: "release"}, {Name: "ping"}}
}

func (a central) NewNodes(n int) []proto.Node {
	nodes := make([]proto.Node, n)
	for i := range nodes {
		nodes[i] = &cnode{id: proto.NodeID(i), bug: a.bug, busy: proto.Nil, requested: map[proto.NodeID]bool{}}
	}
	return nodes
}

type cnode struct {
	id         proto.NodeID
	bug        string
	asked, in  bool
	tag        uint32
	busy       proto.NodeID          // coordinator: the node granted, or Nil
	queue      []proto.Message       // coordinator: requests waiting
	served     []proto.NodeID        // coordinator, bug "queue": every requester ever
	requested  map[proto.NodeID]bool // coordinator: a request came, its ping not yet
	outOfOrder bool                  // coordinator, bug "fifo": a ping came before its request
	last       []int64               // coordinator, bug "mutate": the last grant's payload
}

func (n *cnode) View() proto.View {
	return proto.View{Bits: proto.Bits{Up: true, Asked: n.asked, InCS: n.in}, Tag: n.tag}
}

func (n *cnode) Waiting(f func(proto.NodeID)) {
	for _, m := range n.queue {
		f(m.From)
	}
	for _, j := range n.served {
		f(j)
	}
}

func (n *cnode) send(out *proto.Output, t proto.MsgType, to proto.NodeID, tag uint32) {
	m := proto.Message{Type: t, From: n.id, To: to, Tag: tag}
	if n.bug == "tag0" {
		m.Tag = 0
	}
	if n.bug == "mutate" && t == grant {
		m.Payload = []int64{1}
		n.last = m.Payload
	}
	out.Msgs = append(out.Msgs, m)
}

func (n *cnode) Step(in proto.Input, out *proto.Output) {
	if n.last != nil {
		n.last[0]++ // bug "mutate": changes a payload already sent
	}
	switch in.Kind {
	case proto.EnterCS:
		n.asked, n.tag = true, in.Tag
		switch {
		case n.bug == "greedy":
			n.in, out.Enter = true, true
		case n.id == 0:
			n.take(proto.Message{Type: request, From: 0, Tag: in.Tag}, out)
		default:
			n.send(out, request, 0, in.Tag)
			if n.bug == "fifo" {
				n.send(out, ping, 0, in.Tag)
			}
		}
	case proto.ExitCS:
		n.in, n.asked = false, false
		if n.bug == "greedy" {
			return
		}
		if n.id == 0 {
			n.free(out)
		} else {
			n.send(out, release, 0, n.tag)
		}
	case proto.Receive:
		switch in.Msg.Type {
		case request:
			if n.bug == "silent" {
				return
			}
			n.take(in.Msg, out)
		case ping:
			if !n.requested[in.Msg.From] {
				n.outOfOrder = true
			}
			n.requested[in.Msg.From] = false
		case grant:
			n.in, out.Enter = true, true
		case release:
			n.free(out)
		}
	}
}

// take queues a request at the coordinator and serves it if free.
func (n *cnode) take(m proto.Message, out *proto.Output) {
	n.requested[m.From] = true
	n.queue = append(n.queue, m)
	if n.busy == proto.Nil {
		n.next(out)
	}
}

func (n *cnode) free(out *proto.Output) {
	n.busy = proto.Nil
	n.next(out)
}

func (n *cnode) next(out *proto.Output) {
	if len(n.queue) == 0 {
		return
	}
	m := n.queue[0]
	n.queue = n.queue[1:]
	n.busy = m.From
	if n.bug == "queue" {
		n.served = append(n.served, m.From)
	}
	if m.From == 0 {
		n.in, out.Enter = true, true
		return
	}
	n.send(out, grant, m.From, m.Tag)
}

// outOfOrder is a Check: the coordinator saw a ping before its request.
func outOfOrder(s proto.System) error {
	if s.Nodes()[0].(*cnode).outOfOrder {
		return errOutOfOrder
	}
	return nil
}

var errOutOfOrder = errors.New("a ping overtook its request")

// TestRun: a correct algorithm passes every seed, with every request
// served and counted; each kind of bug is caught, with the error naming it.
func TestRun(t *testing.T) {
	for _, c := range []struct {
		name     string
		bug      string
		fifo     bool
		saturate bool
		want     string // in the error of some seed; "" for none in any
	}{
		{"correct", "", false, false, ""},
		{"correct, FIFO", "", true, false, ""},
		{"correct, saturated", "", false, true, ""},
		{"enters without asking", "greedy", false, true, "2 nodes in the critical section"},
		{"drops requests", "silent", false, false, "deadlock: node"},
		{"sends tag 0", "tag0", false, false, "with tag 0"},
		{"changes a payload sent", "mutate", false, false, "changed after it was sent"},
		{"queues served requests", "queue", false, false, "still queues"},
		{"needs FIFO, has it", "fifo", true, true, ""},
		{"needs FIFO, has not", "fifo", false, true, "a ping overtook its request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var first error
			for seed := uint64(1); seed <= 20 && first == nil; seed++ {
				cfg := reorder.Config{Alg: central{c.bug}, N: 5, Seed: seed, Requests: 30, FIFO: c.fifo, Saturate: c.saturate,
					Checks: []func(proto.System) error{outOfOrder, reorder.PlainMessages}}
				res, err := reorder.Try(cfg)
				if err != nil {
					first = err
					continue
				}
				if res.Entries != cfg.Requests || len(res.ByTag) != cfg.Requests {
					t.Fatalf("seed %d: %d entries, %d requests counted, want %d", seed, res.Entries, len(res.ByTag), cfg.Requests)
				}
				most := 3 // request, grant, release
				if c.bug == "fifo" {
					most++ // and the ping
				}
				if lo, hi := res.Costs(); lo != 0 || hi != most || res.Msgs > most*cfg.Requests {
					t.Fatalf("seed %d: requests cost %d to %d messages, %d in all: want 0 (the coordinator's) to %d each", seed, lo, hi, res.Msgs, most)
				}
			}
			switch {
			case c.want == "" && first != nil:
				t.Errorf("a correct run failed: %v", first)
			case c.want != "" && (first == nil || !strings.Contains(first.Error(), c.want)):
				t.Errorf("error %v, want one saying %q", first, c.want)
			}
		})
	}
}

// TestLone: a lone request costs what the algorithm sends for it — 3
// messages from any node but the coordinator, none from it — and the
// nodes stay quiet between requests.
func TestLone(t *testing.T) {
	lone := reorder.NewLone(t, reorder.Config{Alg: central{}, N: 4})
	for _, c := range []struct {
		id   proto.NodeID
		tag  uint32
		want int
	}{{1, 5, 3}, {0, 6, 0}, {3, 9, 3}, {3, 13, 3}, {0, 14, 0}} {
		if got := lone.Serve(c.id, c.tag); got != c.want {
			t.Errorf("node %d's request %d: %d messages, want %d", c.id, c.tag, got, c.want)
		}
	}
	if v := lone.Nodes()[3].View(); v.Asked || v.InCS || v.Tag != 13 {
		t.Errorf("node 3 after its requests: %+v", v)
	}
}
