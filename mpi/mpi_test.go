//go:build mpi

package mpi

// These tests run on every rank of an MPI job and must be started the same
// way on all of them, e.g.
//
//	go test -c -tags mpi -o /tmp/mpi.test ./mpi
//	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
//	  mpirun --oversubscribe -np 4 /tmp/mpi.test -test.v -test.timeout 5m
//
// Running the binary (or `go test -tags mpi ./mpi`) without mpirun makes a
// one-rank job. OCBENCH_MPI_THREAD=single|funneled|serialized|multiple
// chooses the thread level requested from Init (default funneled), and so
// the execution mode under test. Tests run one after another in the same order on every rank,
// so the collectives inside them line up; none of them calls t.Parallel.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// selfBuffered reports whether a blocking send to oneself completes before
// its receive is posted. The standard does not promise it (a send may wait
// for its matching receive): Open MPI buffers small messages to self,
// MPICH does not. ocbench never sends to its own rank (rank delivers those
// frames in place), so a test that sends to itself does so only where the
// library buffers it, and otherwise sends to its right neighbour, or skips
// in a one-rank world.
func selfBuffered() bool { return !strings.HasPrefix(LibraryVersion(), "MPICH") }

// loopPeers returns the ranks a test that would send to itself sends to and
// receives from: itself, or its right and left neighbours where the library
// does not buffer a send to oneself. It skips the test in a one-rank world
// without that buffering.
func loopPeers(t *testing.T) (to, from int) {
	t.Helper()
	rank, size := WorldRank(), WorldSize()
	if selfBuffered() {
		return rank, rank
	}
	if size == 1 {
		t.Skip("sends to itself, which this MPI library does not buffer (the standard does not ask it to): needs two ranks")
	}
	return (rank + 1) % size, (rank + size - 1) % size
}

// requested is the thread level TestMain asked for.
var requested = ThreadFunneled

func TestMain(m *testing.M) {
	switch v := os.Getenv("OCBENCH_MPI_THREAD"); v {
	case "single":
		requested = ThreadSingle
	case "", "funneled":
		requested = ThreadFunneled
	case "serialized":
		requested = ThreadSerialized
	case "multiple":
		requested = ThreadMultiple
	default:
		fmt.Fprintf(os.Stderr, "OCBENCH_MPI_THREAD=%q: want single, funneled, serialized or multiple\n", v)
		os.Exit(2)
	}
	provided, err := Init(requested)
	if err != nil {
		fmt.Fprintln(os.Stderr, "Init:", err)
		os.Exit(2)
	}
	if WorldRank() == 0 {
		fmt.Printf("mpi: %d ranks, thread level %v requested, %v provided, %s\n", WorldSize(), requested, provided, LibraryVersion())
	}
	code := m.Run()
	// Make the exit code collective, so that rank 0 reports a failure on
	// any rank.
	if res, err := AllreduceInt64([]int64{int64(code)}, OpMax); err == nil && res[0] != 0 && code == 0 {
		code = 1
	}
	if err := Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "Finalize:", err)
		if code == 0 {
			code = 2
		}
	}
	os.Exit(code)
}

func TestWorld(t *testing.T) {
	if !Compiled() || !Initialized() {
		t.Fatalf("Compiled()=%v Initialized()=%v, want true, true", Compiled(), Initialized())
	}
	rank, size := WorldRank(), WorldSize()
	if size < 1 || rank < 0 || rank >= size {
		t.Fatalf("rank %d size %d", rank, size)
	}
	if v := LibraryVersion(); v == "" || v == "none" || v == "unknown" {
		t.Fatalf("LibraryVersion() = %q", v)
	}
	if _, err := Init(ThreadFunneled); err == nil {
		t.Fatal("second Init succeeded")
	}
	t0 := Wtime()
	time.Sleep(2 * time.Millisecond)
	if d := Wtime() - t0; d < 0.001 || d > 5 {
		t.Fatalf("Wtime advanced by %g s over a 2 ms sleep", d)
	}
	if err := Barrier(); err != nil {
		t.Fatal(err)
	}
}

// Every rank (rank 0 included, where the library buffers a send to oneself)
// sends one message to rank 0, which receives them all with AnySource after
// probing for their lengths.
func TestSendRecvAnySource(t *testing.T) {
	const tag = 7
	rank, size := WorldRank(), WorldSize()
	first := 0 // the lowest rank that sends
	if !selfBuffered() {
		first = 1
	}
	msg := []byte(strings.Repeat(fmt.Sprintf("hello from %d;", rank), rank+1))
	if rank >= first {
		if err := Send(msg, 0, tag); err != nil {
			t.Fatal(err)
		}
	}
	if rank == 0 {
		var got []int
		for range size - first {
			st, err := Probe(AnySource, tag)
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, st.Count)
			st2, err := Recv(buf, st.Source, tag)
			if err != nil {
				t.Fatal(err)
			}
			if st2 != st {
				t.Fatalf("Probe status %+v, Recv status %+v", st, st2)
			}
			want := strings.Repeat(fmt.Sprintf("hello from %d;", st.Source), st.Source+1)
			if string(buf) != want {
				t.Fatalf("from %d: got %q, want %q", st.Source, buf, want)
			}
			got = append(got, st.Source)
		}
		sort.Ints(got)
		for i, s := range got {
			if s != first+i {
				t.Fatalf("sources %v, want %d..%d once each", got, first, size-1)
			}
		}
	}
	if err := Barrier(); err != nil {
		t.Fatal(err)
	}
}

// TestPostedRecv checks the receive posted ahead: every rank sends its right
// neighbour two messages, a short one and one longer
// than the receive posted; TestRecv returns the first with its bytes and reports the
// second as truncated (ErrTruncated) with its source; CancelRecv with no
// message pending returns none.
func TestPostedRecv(t *testing.T) {
	const tag = 21
	rank, size := WorldRank(), WorldSize()
	loopPeers(t) // in a one-rank world the second send goes to itself with no receive posted
	right, left := (rank+1)%size, (rank+size-1)%size
	const capacity = 100 // a longer message is still sent eagerly, even to oneself
	if err := PostRecv(capacity); err != nil {
		t.Fatal(err)
	}
	if err := PostRecv(capacity); err == nil {
		t.Fatal("a second PostRecv while one is posted succeeded")
	}
	short := bytes.Repeat([]byte{byte(rank)}, 50+rank%50)
	if err := Send(short, right, tag); err != nil {
		t.Fatal(err)
	}
	if err := Send(make([]byte, capacity+1), right, tag+1); err != nil {
		t.Fatal(err)
	}
	want := 2
	deadline := time.Now().Add(30 * time.Second)
	for got := 0; got < want; {
		st, data, ok, err := TestRecv()
		switch {
		case ok && got == 0:
			if err != nil || st.Source != left || st.Tag != tag || !bytes.Equal(data, bytes.Repeat([]byte{byte(left)}, 50+left%50)) {
				t.Fatalf("first message: status %+v, %d bytes, err %v", st, len(data), err)
			}
			got++
		case ok:
			if !errors.Is(err, ErrTruncated) || st.Source != left || st.Tag != tag+1 || data != nil {
				t.Fatalf("long message: status %+v, %d bytes, err %v; want ErrTruncated from rank %d", st, len(data), err, left)
			}
			got++
		case err != nil:
			t.Fatal(err)
		case time.Now().After(deadline):
			t.Fatalf("%d of %d messages within 30s", got, want)
		}
	}
	// Cancel before the barrier: past it, a rank may send the next test's
	// messages, which the posted receive would take.
	if _, _, ok, err := CancelRecv(); ok || err != nil {
		t.Fatalf("CancelRecv with nothing pending: ok=%v err=%v", ok, err)
	}
	if err := Barrier(); err != nil {
		t.Fatal(err)
	}
}

// TestPostedRecvOrder: the receive is posted again lazily, by the next
// TestRecv or Send; messages that arrive meanwhile wait in MPI and come out
// of TestRecv whole and in sending order, through both ways of posting
// again (every third message received, a rank sends itself an empty one).
// The messages are sent from memory of AllocMem.
func TestPostedRecvOrder(t *testing.T) {
	const tag, selfTag, count = 23, 24, 40
	rank, size := WorldRank(), WorldSize()
	right, left := (rank+1)%size, (rank+size-1)%size
	selfTo, selfFrom := loopPeers(t)
	if _, err := AllocMem(0); err == nil {
		t.Fatal("AllocMem(0) succeeded")
	}
	buf, err := AllocMem(64)
	if err != nil {
		t.Fatal(err)
	}
	if err := PostRecv(64); err != nil {
		t.Fatal(err)
	}
	for k := range count {
		for b := range buf {
			buf[b] = byte(k + b)
		}
		if err := Send(buf[:8+k], right, tag); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	got, self := 0, 0
	for got < count || self < count/3 {
		st, data, ok, err := TestRecv()
		switch {
		case err != nil:
			t.Fatal(err)
		case ok && st.Tag == selfTag:
			if st.Source != selfFrom || len(data) != 0 {
				t.Fatalf("empty message to self: status %+v, %d bytes", st, len(data))
			}
			self++
		case ok:
			if st.Source != left || st.Tag != tag || len(data) != 8+got || data[0] != byte(got) || data[len(data)-1] != byte(got+len(data)-1) {
				t.Fatalf("message %d: status %+v, %d bytes", got, st, len(data))
			}
			got++
			if got%3 == 0 {
				if err := Send(nil, selfTo, selfTag); err != nil {
					t.Fatal(err)
				}
			}
		case time.Now().After(deadline):
			t.Fatalf("%d of %d messages and %d of %d to self within 30s", got, count, self, count/3)
		}
	}
	if _, _, ok, err := CancelRecv(); ok || err != nil {
		t.Fatalf("CancelRecv with nothing pending: ok=%v err=%v", ok, err)
	}
	if err := FreeMem(buf); err != nil {
		t.Fatal(err)
	}
	if err := Barrier(); err != nil {
		t.Fatal(err)
	}
}

// TestIprobe: each rank sends to its right neighbour and polls with Iprobe
// for the message from its left neighbour.
func TestIprobe(t *testing.T) {
	const tag, unusedTag = 11, 12345
	rank, size := WorldRank(), WorldSize()
	loopPeers(t) // in a one-rank world the right neighbour is itself
	right, left := (rank+1)%size, (rank+size-1)%size
	if _, ok, err := Iprobe(AnySource, unusedTag); err != nil || ok {
		t.Fatalf("Iprobe of unused tag: found=%v err=%v", ok, err)
	}
	msg := bytes.Repeat([]byte{byte(rank)}, 100+rank)
	if err := Send(msg, right, tag); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	var st Status
	for {
		s, ok, err := Iprobe(left, AnyTag)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			st = s
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no message from the left neighbour within 30s")
		}
		time.Sleep(100 * time.Microsecond)
	}
	if st.Source != left || st.Tag != tag || st.Count != 100+left {
		t.Fatalf("Iprobe status %+v, want source %d tag %d count %d", st, left, tag, 100+left)
	}
	buf := make([]byte, st.Count+10) // larger than the message is fine
	got, err := Recv(buf, left, tag)
	if err != nil {
		t.Fatal(err)
	}
	if got.Count != st.Count || !bytes.Equal(buf[:got.Count], bytes.Repeat([]byte{byte(left)}, 100+left)) {
		t.Fatalf("Recv status %+v, data %v", got, buf[:got.Count])
	}
	if err := Barrier(); err != nil {
		t.Fatal(err)
	}
}

func TestAllreduce(t *testing.T) {
	rank, size := WorldRank(), WorldSize()
	r, n := int64(rank), int64(size)
	intCases := []struct {
		op   Op
		in   []int64
		want []int64
	}{
		{OpSum, []int64{r, 1, -r * 1e12}, []int64{n * (n - 1) / 2, n, -n * (n - 1) / 2 * 1e12}},
		{OpMax, []int64{r, -r}, []int64{n - 1, 0}},
		{OpMin, []int64{r, -r}, []int64{0, -(n - 1)}},
		{OpSum, []int64{}, []int64{}},
	}
	for _, c := range intCases {
		got, err := AllreduceInt64(c.in, c.op)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) || got == nil {
			t.Errorf("AllreduceInt64(%v, %v) = %v, want %v", c.in, c.op, got, c.want)
		}
	}
	f, fn := float64(rank), float64(size)
	floatCases := []struct {
		op   Op
		in   []float64
		want []float64
	}{
		{OpSum, []float64{f, 0.5}, []float64{fn * (fn - 1) / 2, 0.5 * fn}},
		{OpMax, []float64{f + 0.25}, []float64{fn - 0.75}},
		{OpMin, []float64{-f}, []float64{-(fn - 1)}},
	}
	for _, c := range floatCases {
		got, err := AllreduceFloat64(c.in, c.op)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("AllreduceFloat64(%v, %v) = %v, want %v", c.in, c.op, got, c.want)
		}
	}
	if _, err := AllreduceInt64([]int64{1}, Op(42)); err == nil {
		t.Error("invalid op accepted")
	}
}

func TestGatherBytes(t *testing.T) {
	rank, size := WorldRank(), WorldSize()
	for _, root := range []int{0, size - 1} {
		// Rank r contributes r*3 bytes of value r: rank 0 sends nothing.
		got, err := GatherBytes(bytes.Repeat([]byte{byte(rank)}, rank*3), root)
		if err != nil {
			t.Fatal(err)
		}
		if rank != root {
			if got != nil {
				t.Fatalf("non-root got %v", got)
			}
			continue
		}
		if len(got) != size {
			t.Fatalf("root %d got %d slices, want %d", root, len(got), size)
		}
		for r, b := range got {
			if b == nil || !bytes.Equal(b, bytes.Repeat([]byte{byte(r)}, r*3)) {
				t.Fatalf("root %d: slice %d = %v", root, r, b)
			}
		}
		if size > 1 {
			_ = append(got[0], 0xff) // must not overwrite rank 1's data
			if got[1][0] != 1 {
				t.Fatal("slices share capacity")
			}
		}
	}
	// All empty: no data exchanged, root still gets size empty slices.
	got, err := GatherBytes(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rank == 0 && (len(got) != size || got[0] == nil || len(got[0]) != 0) {
		t.Fatalf("all-empty gather: %v", got)
	}
	if _, err := GatherBytes(nil, size); err == nil {
		t.Fatal("out-of-range root accepted")
	}
}

func TestBcastBytes(t *testing.T) {
	rank, size := WorldRank(), WorldSize()
	root := size / 2
	want := bytes.Repeat([]byte("bcast!"), 1000)
	var in []byte
	if rank == root {
		in = want
	} else {
		in = []byte("ignored")
	}
	got, err := BcastBytes(in, root)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes, want %d", len(got), len(want))
	}
	got, err = BcastBytes(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got == nil || len(got) != 0 {
		t.Fatalf("empty bcast gave %v", got)
	}
}

// Every rank sends an empty message to rank 0; rank 0 receives them into a
// nil buffer.
func TestZeroLength(t *testing.T) {
	const tag = 3
	rank, size := WorldRank(), WorldSize()
	first := 0 // the lowest rank that sends (as in TestSendRecvAnySource)
	if !selfBuffered() {
		first = 1
	}
	if rank >= first {
		if err := Send(nil, 0, tag); err != nil {
			t.Fatal(err)
		}
	}
	if rank == 0 {
		seen := map[int]bool{}
		for range size - first {
			st, err := Recv(nil, AnySource, tag)
			if err != nil {
				t.Fatal(err)
			}
			if st.Count != 0 || st.Tag != tag || seen[st.Source] {
				t.Fatalf("status %+v (seen %v)", st, seen)
			}
			seen[st.Source] = true
		}
	}
	if err := Barrier(); err != nil {
		t.Fatal(err)
	}
}

// Errors come back as values (MPI_ERRORS_RETURN), with context.
func TestErrors(t *testing.T) {
	rank, size := WorldRank(), WorldSize()
	for _, c := range []struct {
		name string
		err  error
	}{
		{"send to rank size", Send([]byte("x"), size, 0)},
		{"send to rank -1", Send([]byte("x"), -1, 0)},
		{"send with tag -5", Send([]byte("x"), rank, -5)},
		{"recv from rank size", func() error { _, err := Recv(nil, size, 0); return err }()},
		{"iprobe with tag -7", func() error { _, _, err := Iprobe(AnySource, -7); return err }()},
		{"ping-pong with self", func() error { _, err := PingPong(rank, 1, 1); return err }()},
	} {
		if c.err == nil || !strings.HasPrefix(c.err.Error(), "mpi: ") {
			t.Errorf("%s: err = %v, want an mpi error", c.name, c.err)
		}
	}
	// Truncation is detected by the MPI library itself and must come back
	// as an error, not abort the job.
	const tag = 21
	to, from := loopPeers(t)
	if err := Send([]byte("0123456789"), to, tag); err != nil {
		t.Fatal(err)
	}
	_, err := Recv(make([]byte, 4), from, tag)
	if err == nil || !strings.Contains(err.Error(), "error code") {
		t.Fatalf("truncated Recv: err = %v, want an MPI error code", err)
	}
	if rank == 0 {
		t.Logf("truncated Recv: %v", err)
	}
	if _, ok, err := Iprobe(from, tag); ok || err != nil {
		t.Fatalf("truncated message still pending: %v %v", ok, err)
	}
	if err := Barrier(); err != nil {
		t.Fatal(err)
	}
}

// Calls from many goroutines at once all run on the MPI thread.
func TestConcurrentGoroutines(t *testing.T) {
	const n, tagBase = 8, 100
	to, from := loopPeers(t)
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Send([]byte{byte(i)}, to, tagBase+i); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 1)
			st, err := Recv(buf, from, tagBase+i)
			if err == nil && (st.Count != 1 || buf[0] != byte(i)) {
				err = fmt.Errorf("tag %d: status %+v data %v", tagBase+i, st, buf)
			}
			if err != nil {
				errs <- err
			}
			_ = Wtime()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A Go panic (here a nil dereference) must still be a recoverable Go panic
// after MPI_Init: the MPI library must not have replaced Go's signal
// handlers.
func TestGoSignalsStillWork(t *testing.T) {
	var p *Status
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("no panic")
		}
	}()
	_ = p.Count
}

func TestPingPong(t *testing.T) {
	rank, size := WorldRank(), WorldSize()
	peer := rank ^ 1 // pairs (0,1), (2,3), ...
	if size < 2 || peer >= size {
		// Keep the odd rank out in step with the others.
		if err := Barrier(); err != nil {
			t.Fatal(err)
		}
		t.Skipf("rank %d has no ping-pong peer in a world of %d", rank, size)
	}
	for _, c := range []struct{ size, iters int }{{0, 200}, {8, 1000}, {64 << 10, 50}} {
		sec, err := PingPong(peer, c.size, c.iters)
		if err != nil {
			t.Fatal(err)
		}
		if sec <= 0 || sec > 1 {
			t.Fatalf("%d bytes: %g s per one-way message", c.size, sec)
		}
		if rank == 0 {
			t.Logf("ping-pong 0<->1, %d bytes: %.2f us one way", c.size, sec*1e6)
		}
	}
	if err := Barrier(); err != nil {
		t.Fatal(err)
	}
}

// With ThreadMultiple, a goroutine blocked in Recv must not hold up a Send
// from another goroutine (here: to the same rank).
func TestBlockedRecvDoesNotBlockOthers(t *testing.T) {
	if mode != modeMultiple {
		t.Skipf("needs ThreadMultiple (OCBENCH_MPI_THREAD=multiple); mode is %v", mode)
	}
	const tag = 31
	rank := WorldRank()
	got := make(chan error, 1)
	go func() {
		buf := make([]byte, 5)
		st, err := Recv(buf, rank, tag)
		if err == nil && string(buf[:st.Count]) != "later" {
			err = fmt.Errorf("got %q", buf[:st.Count])
		}
		got <- err
	}()
	time.Sleep(20 * time.Millisecond) // let the receiver block first
	if err := Send([]byte("later"), rank, tag); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Recv did not complete")
	}
}

// Cost of one call through the MPI thread, compared with the raw ping-pong
// above (logged only).
func TestCallOverhead(t *testing.T) {
	n := 2000
	if WorldSize() > 4 {
		n = 200 // oversubscribed runs are slow: keep them short
	}
	t0 := time.Now()
	for range n {
		if _, _, err := Iprobe(AnySource, 999); err != nil {
			t.Fatal(err)
		}
	}
	if WorldRank() == 0 {
		t.Logf("Iprobe (mode %v, requested %v): %.2f us per call", mode, requested, time.Since(t0).Seconds()/float64(n)*1e6)
	}
	if !errors.Is(fmt.Errorf("x: %w", ErrNotInitialized), ErrNotInitialized) {
		t.Fatal("ErrNotInitialized does not wrap")
	}
	if err := Barrier(); err != nil {
		t.Fatal(err)
	}
}
