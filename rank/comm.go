package rank

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/ocbench/ocbench/mpi"
)

// Comm is what the runtime needs from a message-passing library: the MPI
// calls of package mpi on MPI_COMM_WORLD, or an in-process stand-in (Local)
// for tests. Collectives must be called by every rank in the same order.
type Comm interface {
	Rank() int
	Size() int
	// Send sends buf to rank dest with a tag; it may block until buf can be
	// reused, but not until the receiver receives it for small messages.
	Send(buf []byte, dest, tag int) error
	// Iprobe reports whether a message from any rank with any tag is
	// waiting, and its source, tag and length.
	Iprobe() (src, tag, count int, ok bool, err error)
	// Recv receives the message Iprobe reported into buf.
	Recv(buf []byte, src, tag int) (int, error)
	// SumInt64 returns the element-wise sum of in over all ranks, on every rank.
	SumInt64(in []int64) ([]int64, error)
	// Gather returns every rank's buf on rank 0 (in rank order), nil elsewhere.
	Gather(buf []byte) ([][]byte, error)
	// AllGather returns every rank's buf, in rank order, on every rank
	// (empty, not nil, for a rank that sent nothing). The slices are the
	// caller's to keep.
	AllGather(buf []byte) ([][]byte, error)
	// SumMin combines in over all ranks, on every rank: the first nsum
	// elements are summed, the others take their minimum.
	SumMin(in []int64, nsum int) ([]int64, error)
	// RecvAny receives the next message with tag from any rank, waiting
	// for one, and returns its source and bytes.
	RecvAny(tag int) (src int, buf []byte, err error)
}

// MPI is the Comm of package mpi (MPI_COMM_WORLD). mpi.Init must have
// succeeded. Without the mpi build tag it is a world of one rank.
type MPI struct{}

// Rank returns the rank in MPI_COMM_WORLD.
func (MPI) Rank() int { return mpi.WorldRank() }

// Size returns the size of MPI_COMM_WORLD.
func (MPI) Size() int { return mpi.WorldSize() }

// Send is mpi.Send.
func (MPI) Send(buf []byte, dest, tag int) error { return mpi.Send(buf, dest, tag) }

// Iprobe is mpi.Iprobe for any source and any tag.
func (MPI) Iprobe() (int, int, int, bool, error) {
	st, ok, err := mpi.Iprobe(mpi.AnySource, mpi.AnyTag)
	return st.Source, st.Tag, st.Count, ok, err
}

// Recv is mpi.Recv.
func (MPI) Recv(buf []byte, src, tag int) (int, error) {
	st, err := mpi.Recv(buf, src, tag)
	return st.Count, err
}

// Post is mpi.PostRecv: a receive posted ahead for any source and tag, of
// the runtime's longest frame.
func (MPI) Post() error { return mpi.PostRecv(maxFrame) }

// Next is mpi.TestRecv, or mpi.TestRecvOnce if once.
func (MPI) Next(once bool) (src, tag int, buf []byte, ok bool, err error) {
	test := mpi.TestRecv
	if once {
		test = mpi.TestRecvOnce
	}
	st, buf, ok, err := test()
	return st.Source, st.Tag, buf, ok, err
}

// Cancel is mpi.CancelRecv.
func (MPI) Cancel() (src, tag int, buf []byte, ok bool, err error) {
	st, buf, ok, err := mpi.CancelRecv()
	return st.Source, st.Tag, buf, ok, err
}

// postedReceiver is implemented by a Comm that receives through a receive
// posted ahead for any source (MPI): a frame lands in its buffer as it
// arrives and costs one call to collect, where Iprobe and Recv take two
// calls and two matchings. The runtime falls back to Iprobe and Recv.
type postedReceiver interface {
	// Post posts the receive; Cancel ends it.
	Post() error
	// Next returns the frame received, if any (buf is valid until the next
	// frame); the next receive is posted by the next Send or Next. With
	// once, it looks once, for a frame there already; without, it gives MPI
	// a little time (about a microsecond). A frame too long for the buffer
	// is reported with an error wrapping mpi.ErrTruncated.
	Next(once bool) (src, tag int, buf []byte, ok bool, err error)
	// Cancel cancels the posted receive and returns a frame that completed
	// it first, if any.
	Cancel() (src, tag int, buf []byte, ok bool, err error)
}

// Alloc is mpi.AllocMem: memory outside the Go heap, sent without cgo's
// pointer check.
func (MPI) Alloc(n int) ([]byte, error) { return mpi.AllocMem(n) }

// Free is mpi.FreeMem.
func (MPI) Free(b []byte) error { return mpi.FreeMem(b) }

// memAllocator is implemented by a Comm that sends frames faster from
// memory it allocates (MPI). Other Comms send from the Go heap.
type memAllocator interface {
	Alloc(n int) ([]byte, error)
	Free(b []byte) error
}

// SumInt64 is mpi.AllreduceInt64 with the sum.
func (MPI) SumInt64(in []int64) ([]int64, error) { return mpi.AllreduceInt64(in, mpi.OpSum) }

// Gather is mpi.GatherBytes to rank 0.
func (MPI) Gather(buf []byte) ([][]byte, error) { return mpi.GatherBytes(buf, 0) }

// AllGather is mpi.AllgatherBytes.
func (MPI) AllGather(buf []byte) ([][]byte, error) { return mpi.AllgatherBytes(buf) }

// SumMin is mpi.AllreduceSumMin.
func (MPI) SumMin(in []int64, nsum int) ([]int64, error) { return mpi.AllreduceSumMin(in, nsum) }

// RecvAny is mpi.Probe for any source and tag, then mpi.Recv.
func (MPI) RecvAny(tag int) (int, []byte, error) {
	st, err := mpi.Probe(mpi.AnySource, tag)
	if err != nil {
		return 0, nil, err
	}
	buf := make([]byte, st.Count)
	if _, err := mpi.Recv(buf, st.Source, tag); err != nil {
		return 0, nil, err
	}
	return st.Source, buf, nil
}

// Local returns p Comms that connect p goroutines of one process, for tests
// of the runtime without MPI. Messages are copied and never lost; a pair of
// ranks delivers in sending order, as MPI does.
func Local(p int) []Comm {
	net := &localNet{p: p, boxes: make([][]localMsg, p)}
	net.cond = sync.NewCond(&net.mu)
	out := make([]Comm, p)
	for r := range out {
		out[r] = &localComm{net: net, rank: r}
	}
	return out
}

type localMsg struct {
	src, tag int
	buf      []byte
}

type localNet struct {
	p     int
	mu    sync.Mutex
	cond  *sync.Cond
	boxes [][]localMsg
	// the collective in progress: contributions, and a generation counter
	gen     int
	arrived int
	contrib [][]byte
	result  [][]byte
}

type localComm struct {
	net  *localNet
	rank int
}

func (c *localComm) Rank() int { return c.rank }
func (c *localComm) Size() int { return c.net.p }

func (c *localComm) Send(buf []byte, dest, tag int) error {
	if dest < 0 || dest >= c.net.p {
		return fmt.Errorf("local comm: send to rank %d of %d", dest, c.net.p)
	}
	c.net.mu.Lock()
	c.net.boxes[dest] = append(c.net.boxes[dest], localMsg{c.rank, tag, append([]byte(nil), buf...)})
	c.net.cond.Broadcast() // a RecvAny may wait
	c.net.mu.Unlock()
	return nil
}

func (c *localComm) Iprobe() (int, int, int, bool, error) {
	c.net.mu.Lock()
	defer c.net.mu.Unlock()
	if box := c.net.boxes[c.rank]; len(box) > 0 {
		return box[0].src, box[0].tag, len(box[0].buf), true, nil
	}
	return 0, 0, 0, false, nil
}

func (c *localComm) Recv(buf []byte, src, tag int) (int, error) {
	c.net.mu.Lock()
	defer c.net.mu.Unlock()
	box := c.net.boxes[c.rank]
	for k, m := range box {
		if m.src == src && m.tag == tag {
			if len(m.buf) > len(buf) {
				return 0, fmt.Errorf("local comm: %d-byte message into a %d-byte buffer", len(m.buf), len(buf))
			}
			copy(buf, m.buf)
			c.net.boxes[c.rank] = append(box[:k], box[k+1:]...)
			return len(m.buf), nil
		}
	}
	return 0, fmt.Errorf("local comm: no message from rank %d with tag %d", src, tag)
}

// collective contributes buf and returns every rank's contribution once all
// ranks have contributed.
func (c *localComm) collective(buf []byte) [][]byte {
	n := c.net
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.contrib == nil {
		n.contrib = make([][]byte, n.p)
	}
	n.contrib[c.rank] = append([]byte(nil), buf...)
	n.arrived++
	gen := n.gen
	if n.arrived == n.p {
		n.result, n.contrib, n.arrived = n.contrib, nil, 0
		n.gen++
		n.cond.Broadcast()
	}
	for n.gen == gen {
		n.cond.Wait()
	}
	return n.result
}

func (c *localComm) SumInt64(in []int64) ([]int64, error) {
	buf := make([]byte, 8*len(in))
	for k, v := range in {
		for b := 0; b < 8; b++ {
			buf[8*k+b] = byte(uint64(v) >> (8 * b))
		}
	}
	out := make([]int64, len(in))
	for _, part := range c.collective(buf) {
		for k := range out {
			var v uint64
			for b := 0; b < 8; b++ {
				v |= uint64(part[8*k+b]) << (8 * b)
			}
			out[k] += int64(v)
		}
	}
	return out, nil
}

func (c *localComm) Gather(buf []byte) ([][]byte, error) {
	all := c.collective(buf)
	if c.rank != 0 {
		return nil, nil
	}
	return all, nil
}

// SumMin combines every rank's in: sums, then minimums.
func (c *localComm) SumMin(in []int64, nsum int) ([]int64, error) {
	buf := make([]byte, 0, 8*len(in))
	for _, v := range in {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
	}
	all := c.collective(buf)
	out := make([]int64, len(in))
	for r, part := range all {
		if len(part) != len(buf) {
			return nil, fmt.Errorf("local comm: sum-min of %d and %d elements", len(in), len(part)/8)
		}
		for k := range out {
			v := int64(binary.LittleEndian.Uint64(part[8*k:]))
			switch {
			case r == 0:
				out[k] = v
			case k < nsum:
				out[k] += v
			default:
				out[k] = min(out[k], v)
			}
		}
	}
	return out, nil
}

// RecvAny waits for a message with tag from any rank.
func (c *localComm) RecvAny(tag int) (int, []byte, error) {
	n := c.net
	n.mu.Lock()
	defer n.mu.Unlock()
	for {
		box := n.boxes[c.rank]
		for k, m := range box {
			if m.tag == tag {
				n.boxes[c.rank] = append(box[:k], box[k+1:]...)
				return m.src, m.buf, nil
			}
		}
		n.cond.Wait()
	}
}

// AllGather returns copies of every rank's contribution: the result of
// collective is shared by all ranks.
func (c *localComm) AllGather(buf []byte) ([][]byte, error) {
	all := c.collective(buf)
	out := make([][]byte, len(all))
	for r, b := range all {
		out[r] = append([]byte{}, b...)
	}
	return out, nil
}
