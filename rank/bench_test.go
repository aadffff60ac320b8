package rank

import (
	"fmt"
	"testing"
	"time"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
)

// pipeComm is a Comm between two ranks of one goroutine: a send puts the
// frame in the peer's inbox, one frame at a time (a ping-pong has no more).
type pipeComm struct {
	rank int
	peer *pipeComm
	box  []byte
	src  int
	full bool
}

func (c *pipeComm) Rank() int { return c.rank }
func (c *pipeComm) Size() int { return 2 }
func (c *pipeComm) Send(buf []byte, dest, tag int) error {
	p := c.peer
	p.box, p.src, p.full = append(p.box[:0], buf...), c.rank, true
	return nil
}
func (c *pipeComm) Iprobe() (int, int, int, bool, error) {
	return c.src, tagData, len(c.box), c.full, nil
}
func (c *pipeComm) Recv(buf []byte, src, tag int) (int, error) {
	c.full = false
	return copy(buf, c.box), nil
}
func (c *pipeComm) SumInt64(in []int64) ([]int64, error) { return in, nil }
func (c *pipeComm) Gather(buf []byte) ([][]byte, error)  { return [][]byte{buf}, nil }
func (c *pipeComm) SumMin([]int64, int) ([]int64, error) {
	return nil, fmt.Errorf("pipe comm: no collectives")
}

func (c *pipeComm) RecvAny(int) (int, []byte, error) {
	return 0, nil, fmt.Errorf("pipe comm: no blocking receive")
}

func (c *pipeComm) AllGather(buf []byte) ([][]byte, error) {
	return nil, fmt.Errorf("pipe comm: no all-gather between two ranks of one goroutine")
}

// bouncer is a node that answers every message with one message back, for
// measuring the runtime's cost per message (here and in TestMPIMessageCost).
type bouncer struct {
	id, peer proto.NodeID
	got      int
}

func (b *bouncer) Step(in proto.Input, out *proto.Output) {
	if in.Kind == proto.Receive {
		b.got++
		// One serial for all: the per-serial counters stay one entry long.
		out.Msgs = append(out.Msgs, proto.Message{Type: scheme.Request, From: b.id, To: b.peer, J: proto.RefTo(b.id), Src: proto.RefTo(b.id), Tag: 1})
	}
}
func (b *bouncer) View() proto.View           { return proto.View{Bits: proto.Bits{Up: true}} }
func (b *bouncer) Waiting(func(proto.NodeID)) {}

// BenchmarkRuntimeMessage measures the runtime's own work per message
// between two ranks, without MPI: receive a frame, decode and validate it,
// step the node, look for another frame, encode the answer into a frame and
// send it. Against the
// MPI ping-pong of TestMPIMessageCost, this is the part that MPI does not
// do.
func BenchmarkRuntimeMessage(b *testing.B) {
	pl, _ := hypercube.NewPlacement("block", 2, 2)
	spec := bench.Spec{Algorithm: "opencube", Nodes: 2, Requests: 1, Workload: "sequential", Delta: 1}
	a, c := &pipeComm{rank: 0}, &pipeComm{rank: 1}
	a.peer, c.peer = c, a
	var jobs [2]*job
	for r, comm := range []*pipeComm{a, c} {
		j := newJob(comm, r, 2)
		j.setEpoch(time.Now().UnixNano())
		in := newInstance(j, 0, bench.MustResolve(spec), pl)
		in.nodes[r] = &bouncer{id: proto.NodeID(r), peer: proto.NodeID(1 - r)}
		j.runs = []*instance{in}
		jobs[r] = j
	}
	first := proto.Message{Type: scheme.Request, From: 0, To: 1, J: proto.RefTo(0), Src: proto.RefTo(0), Tag: 1}
	jobs[0].runs[0].send(&first, 0)
	jobs[0].flush()
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		j := jobs[1-k%2]
		if ok, err := j.receive(); !ok || err != nil {
			b.Fatalf("message %d: received %v, %v", k, ok, err)
		}
		j.flush()
	}
}
