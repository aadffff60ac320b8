package rank

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// The MPI tags of a task farm's messages (Farm).
const (
	tagFarmDone = 30 // a worker's results, and its request for more tasks
	tagFarmWork = 31 // rank 0's answer: the next tasks, or none
)

// Farm runs independent tasks on the ranks of an MPI job as a task farm:
// each task runs whole on one rank, the ranks take tasks from one queue as
// they become free (dynamic self-scheduling), and rank 0 gathers the
// results in task order. Rank 0 hands out the tasks and runs tasks too.
// Every rank must call Run with the same number of tasks, and nothing
// else may use the Comm while it runs.
type Farm struct {
	Comm Comm
	// Arrived, if not nil, is called on rank 0 with a task's result as soon
	// as it reaches rank 0 from another rank, in the order results arrive
	// (for a progress display); emit gets it again, in task order.
	Arrived func(i int, result []byte)
}

// farmPollMin and farmPollMax bound the nap of rank 0 between two looks
// for a worker's message while nothing happens: it doubles from the least
// to the most, and starts again from the least after each message.
const (
	farmPollMin = 50 * time.Microsecond
	farmPollMax = 2 * time.Millisecond
)

// farmChunkPerRank is how many chunks per rank the tasks left are cut
// into: a rank asks for a task at a time only near the end (guided
// self-scheduling), so that short tasks do not cost a message each, and
// the last tasks still spread over every rank.
const farmChunkPerRank = 4

// Run runs do(i) for i in 0..n−1, each on one rank, and on rank 0 calls
// emit(i, result) in the order of i as soon as the results of 0..i are
// in; on the other ranks emit is never called. Tasks are handed out in
// the order of i, in chunks of consecutive tasks that shrink as the queue
// empties (a chunk is a quarter of the tasks left per rank, at least one).
// Rank 0 runs its chunks on a goroutine of its own while it serves the
// others' requests, so do must be safe to call from another goroutine and
// must not use the Comm.
//
// The first error in the order of i, of do or of emit, ends the farm as
// it ends internal/pool: no task after it is handed out, the tasks handed
// out before it are waited for, emit is not called for i or after it, and
// rank 0 returns that error (a task's error on another rank comes back as
// an error with the same text). So rank 0 returns what one process running
// the tasks in order would. The other ranks return nil, or an error of the
// Comm.
func (f Farm) Run(n int, do func(i int) ([]byte, error), emit func(i int, result []byte) error) error {
	if n < 0 || n > maxFarmTasks {
		return fmt.Errorf("rank: farm: %d tasks, not in 0..%d", n, maxFarmTasks)
	}
	if f.Comm.Rank() != 0 {
		return farmWorker(f.Comm, n, do)
	}
	c := &farmCoord{f: f, n: n, stop: n, done: make([]bool, n), vals: make([][]byte, n), errs: make([]error, n)}
	return c.run(do, emit)
}

// maxFarmTasks is the most tasks one farm runs (indices fit in 32 bits).
const maxFarmTasks = 1 << 30

// farmResult is the outcome of one task.
type farmResult struct {
	i   int
	val []byte
	err error
}

// farmCoord is rank 0's state of a farm.
type farmCoord struct {
	f       Farm
	n       int
	next    int // the next task to hand out
	stop    int // no task at or after it is handed out: the lowest failure + 1, or an emit error's task
	emitted int // tasks 0..emitted−1 are emitted
	done    []bool
	vals    [][]byte
	errs    []error
	err     error // the error Run returns
}

// record notes r, and stops the tasks after a failure.
func (c *farmCoord) record(r farmResult) {
	c.done[r.i], c.vals[r.i], c.errs[r.i] = true, r.val, r.err
	if r.err != nil {
		c.stop = min(c.stop, r.i+1)
	}
}

// flush emits the results that are in, in order, up to the first error.
func (c *farmCoord) flush(emit func(int, []byte) error) {
	for c.err == nil && c.emitted < c.n && c.done[c.emitted] {
		i := c.emitted
		err := c.errs[i]
		if err == nil {
			err = emit(i, c.vals[i])
		}
		c.vals[i] = nil
		if err != nil {
			c.err = err
			c.stop = min(c.stop, i)
			return
		}
		c.emitted++
	}
}

// chunk returns the next tasks to hand out, [start, start+count), and
// takes them from the queue; count 0: none left.
func (c *farmCoord) chunk() (start, count int) {
	left := c.stop - c.next
	if left <= 0 {
		return c.next, 0
	}
	count = max(1, left/(farmChunkPerRank*c.f.Comm.Size()))
	start = c.next
	c.next += count
	return start, count
}

func (c *farmCoord) run(do func(int) ([]byte, error), emit func(int, []byte) error) error {
	comm := c.f.Comm
	active := comm.Size() - 1 // workers not yet told that the queue is empty
	local := make(chan []farmResult, 1)
	localBusy := false
	nap := farmPollMin
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var commErr error
	for commErr == nil && (active > 0 || localBusy || c.next < c.stop) {
		busy := false
		if !localBusy {
			if start, count := c.chunk(); count > 0 {
				localBusy, busy = true, true
				go func() { local <- runChunk(start, count, do) }()
			}
		}
		select {
		case rs := <-local:
			for _, r := range rs {
				c.record(r)
			}
			localBusy, busy = false, true
		default:
		}
		if active > 0 {
			src, tag, count, ok, err := comm.Iprobe()
			switch {
			case err != nil:
				commErr = fmt.Errorf("rank: farm: waiting for the workers: %w", err)
				continue
			case ok && tag != tagFarmDone:
				commErr = fmt.Errorf("rank: farm: a message with tag %d from rank %d, where only results (tag %d) come", tag, src, tagFarmDone)
				continue
			case ok:
				busy = true
				if err := c.serve(src, count); err != nil {
					commErr = err
					continue
				}
				start, n := c.chunk()
				if n == 0 {
					active--
				}
				if err := comm.Send(farmWork(start, n), src, tagFarmWork); err != nil {
					commErr = fmt.Errorf("rank: farm: handing tasks to rank %d: %w", src, err)
					continue
				}
			}
		}
		c.flush(emit)
		if busy {
			nap = farmPollMin
			continue
		}
		d := nap
		if active == 0 { // only rank 0's own tasks are left
			d = time.Hour
		}
		if c.wait(local, timer, d) {
			localBusy = false
			nap = farmPollMin
			continue
		}
		nap = min(2*nap, farmPollMax)
	}
	if commErr != nil {
		return commErr
	}
	c.flush(emit)
	if c.err != nil {
		return c.err
	}
	if c.emitted < c.n {
		return fmt.Errorf("rank: farm: tasks %d..%d never ran", c.emitted, c.n-1)
	}
	return nil
}

// wait waits at most d for rank 0's own chunk to end, records its results
// if it does, and reports whether it did.
func (c *farmCoord) wait(local chan []farmResult, timer *time.Timer, d time.Duration) bool {
	timer.Reset(d)
	defer timer.Stop()
	select {
	case rs := <-local:
		for _, r := range rs {
			c.record(r)
		}
		return true
	case <-timer.C:
		return false
	}
}

// serve receives the results of rank src, count bytes, and records them.
func (c *farmCoord) serve(src, count int) error {
	buf := make([]byte, count)
	if _, err := c.f.Comm.Recv(buf, src, tagFarmDone); err != nil {
		return fmt.Errorf("rank: farm: receiving rank %d's results: %w", src, err)
	}
	rs, err := decodeFarmResults(buf)
	if err != nil {
		return fmt.Errorf("rank: farm: rank %d's results: %w", src, err)
	}
	for _, r := range rs {
		if r.i < 0 || r.i >= c.n || c.done[r.i] {
			return fmt.Errorf("rank: farm: rank %d returned task %d, which it was not given", src, r.i)
		}
		c.record(r)
		if c.f.Arrived != nil && r.err == nil {
			c.f.Arrived(r.i, r.val)
		}
	}
	return nil
}

// runChunk runs tasks start..start+count−1 in order, up to the first
// failure.
func runChunk(start, count int, do func(int) ([]byte, error)) []farmResult {
	out := make([]farmResult, 0, count)
	for i := start; i < start+count; i++ {
		v, err := do(i)
		out = append(out, farmResult{i: i, val: v, err: err})
		if err != nil {
			break
		}
	}
	return out
}

// farmWorker is a rank other than 0: it asks rank 0 for tasks, runs them,
// and sends their results with its next request, until rank 0 has none.
func farmWorker(comm Comm, n int, do func(int) ([]byte, error)) error {
	var rs []farmResult
	for {
		if err := comm.Send(encodeFarmResults(rs), 0, tagFarmDone); err != nil {
			return fmt.Errorf("rank: farm: sending results to rank 0: %w", err)
		}
		src, buf, err := farmReceive(comm)
		if err != nil {
			return fmt.Errorf("rank: farm: waiting for tasks: %w", err)
		}
		if src != 0 || len(buf) != 8 {
			return fmt.Errorf("rank: farm: a %d-byte hand-out from rank %d, not 8 bytes from rank 0", len(buf), src)
		}
		start, count := int(binary.LittleEndian.Uint32(buf)), int(binary.LittleEndian.Uint32(buf[4:]))
		if count == 0 {
			return nil
		}
		if start+count > n {
			return fmt.Errorf("rank: farm: tasks %d..%d handed out, of %d", start, start+count-1, n)
		}
		rs = runChunk(start, count, do)
	}
}

// farmReceive waits for rank 0's hand-out and returns it. It looks with
// Iprobe and naps in between (farmPollMin, doubling up to farmPollMax)
// rather than block in MPI_Probe, which busy-polls: the wait lasts until
// rank 0 next looks, and a rank that spins for it takes a core from the
// ranks that run runs when ranks outnumber cores.
func farmReceive(comm Comm) (int, []byte, error) {
	nap := farmPollMin
	for {
		src, tag, count, ok, err := comm.Iprobe()
		switch {
		case err != nil:
			return 0, nil, err
		case ok && tag != tagFarmWork:
			return 0, nil, fmt.Errorf("a message with tag %d from rank %d, where only hand-outs (tag %d) come", tag, src, tagFarmWork)
		case ok:
			buf := make([]byte, count)
			n, err := comm.Recv(buf, src, tag)
			return src, buf[:n], err
		}
		time.Sleep(nap)
		nap = min(2*nap, farmPollMax)
	}
}

// farmWork is rank 0's hand-out: the first task and how many.
func farmWork(start, count int) []byte {
	b := make([]byte, 8)
	binary.LittleEndian.PutUint32(b, uint32(start))
	binary.LittleEndian.PutUint32(b[4:], uint32(count))
	return b
}

// encodeFarmResults writes results as: per result, its task (4 bytes),
// 0 for a value or 1 for an error (1 byte), the value's or the error
// text's length (4 bytes) and its bytes.
func encodeFarmResults(rs []farmResult) []byte {
	size := 0
	for _, r := range rs {
		size += 9 + len(r.val)
		if r.err != nil {
			size += len(r.err.Error())
		}
	}
	b := make([]byte, 0, size)
	for _, r := range rs {
		kind, body := byte(0), r.val
		if r.err != nil {
			kind, body = 1, []byte(r.err.Error())
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(r.i))
		b = append(b, kind)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(body)))
		b = append(b, body...)
	}
	return b
}

// decodeFarmResults reads what encodeFarmResults wrote.
func decodeFarmResults(b []byte) ([]farmResult, error) {
	var out []farmResult
	for len(b) > 0 {
		if len(b) < 9 {
			return nil, errors.New("a result cut short")
		}
		i, kind, size := binary.LittleEndian.Uint32(b), b[4], binary.LittleEndian.Uint32(b[5:])
		b = b[9:]
		if uint64(size) > uint64(len(b)) || kind > 1 {
			return nil, fmt.Errorf("task %d: a result of kind %d and %d bytes, with %d left", i, kind, size, len(b))
		}
		r := farmResult{i: int(i)}
		if kind == 1 {
			r.err = errors.New(string(b[:size]))
		} else {
			r.val = append([]byte{}, b[:size]...)
		}
		out = append(out, r)
		b = b[size:]
	}
	return out, nil
}
