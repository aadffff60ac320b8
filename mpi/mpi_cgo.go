//go:build mpi && cgo

package mpi

/*
#include "ocb.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// ---------------------------------------------------------------------------
// The MPI thread and the execution modes.
//
// Init starts one goroutine that calls runtime.LockOSThread and never unlocks,
// so it owns one OS thread for its whole life (the "MPI thread").
// MPI_Init_thread and MPI_Finalize always run on it (the standard requires
// Finalize on the thread that initialised MPI). How the other calls run
// depends on the thread level (see Init):
//
//   - modeThread (ThreadSingle, ThreadFunneled, or a library that provides
//     no more): every call hands a closure to the MPI thread over a channel
//     and waits for it, so every MPI call is made from that one locked OS
//     thread.
//   - modeSerialized (ThreadSerialized requested and provided): calls run
//     directly on the caller's thread, one at a time under serialMu.
//   - modeMultiple (ThreadMultiple requested and provided): calls run
//     directly on the caller's thread, concurrently.
//
// The closures may capture Go slices; they are passed to C only for the
// duration of one C call and never stored on the C side.

type execMode int

const (
	modeThread execMode = iota
	modeSerialized
	modeMultiple
)

type job struct {
	f    func() error
	err  error
	pv   any // recovered panic value, re-raised in the caller
	done chan struct{}
}

var jobPool = sync.Pool{New: func() any { return &job{done: make(chan struct{}, 1)} }}

func (j *job) run() {
	defer func() {
		if r := recover(); r != nil {
			// Re-raised in the caller, with the stack where it happened.
			j.pv = fmt.Sprintf("%v\n\n[on the MPI thread]\n%s", r, debug.Stack())
		}
		j.done <- struct{}{}
	}()
	j.err = j.f()
}

var (
	// stateMu guards calls, mode and finalized. Calls hold it for reading
	// while they run, so Finalize (which takes it for writing) waits for
	// in-flight calls.
	stateMu   sync.RWMutex
	calls     chan *job // non-nil between a successful Init and Finalize
	loopDone  chan struct{}
	mode      execMode
	finalized bool // Init was attempted once; MPI cannot be initialised again

	serialMu sync.Mutex // serialises calls in modeSerialized

	// direct is set while OnThread runs its function: the calls it makes run
	// at once on the thread OnThread put them on.
	direct atomic.Bool

	worldRank atomic.Int64
	worldSize atomic.Int64
)

func init() {
	worldSize.Store(1)
}

// start is the reference point for Wtime when MPI is not initialised.
var start = time.Now()

// do runs f, which makes MPI calls, as the execution mode requires (on the
// MPI thread, or directly) and returns its error, or a wrapped
// ErrNotInitialized if MPI is not initialised.
func do(what string, f func() error) error {
	if direct.Load() {
		return f() // inside OnThread: already on the MPI thread (or serialised)
	}
	stateMu.RLock()
	defer stateMu.RUnlock()
	if calls == nil {
		return fmt.Errorf("mpi: %s: %w", what, ErrNotInitialized)
	}
	switch mode {
	case modeSerialized:
		serialMu.Lock()
		defer serialMu.Unlock()
		return f()
	case modeMultiple:
		return f()
	}
	return submit(calls, f)
}

func submit(ch chan<- *job, f func() error) error {
	j := jobPool.Get().(*job)
	j.f = f
	ch <- j
	<-j.done
	err, pv := j.err, j.pv
	j.f, j.err, j.pv = nil, nil, nil
	jobPool.Put(j)
	if pv != nil {
		panic(pv)
	}
	return err
}

func loop(ch <-chan *job, done chan<- struct{}) {
	for j := range ch {
		j.run()
	}
	close(done)
}

// OnThread runs f on the MPI thread (in ThreadSingle or ThreadFunneled mode;
// in the other modes on the caller's thread, holding the serialisation lock
// in ThreadSerialized mode), and the MPI calls f makes run there directly,
// without a hand-over per call. It is meant for a loop that makes many small
// calls, such as a runtime's message loop. While f runs, no other goroutine
// may call the package. OnThread must not be nested.
func OnThread(f func() error) error {
	return do("on-thread", func() error {
		if !direct.CompareAndSwap(false, true) {
			return fmt.Errorf("mpi: on-thread: OnThread must not be nested")
		}
		defer direct.Store(false)
		return f()
	})
}

// mpiErr formats a failed MPI call. It must run on the MPI thread.
func mpiErr(rc C.int, format string, args ...any) error {
	return fmt.Errorf("mpi: %s: error code %d (%s)", fmt.Sprintf(format, args...), int(rc), errorString(rc))
}

func errorString(rc C.int) string {
	var buf [C.MPI_MAX_ERROR_STRING + 1]C.char
	var n C.int
	if C.ocb_error_string(rc, &buf[0], &n) != C.MPI_SUCCESS || n <= 0 {
		return "unknown MPI error"
	}
	return strings.TrimSpace(C.GoStringN(&buf[0], n))
}

func bufPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil // never take the address of an empty slice's element
	}
	return unsafe.Pointer(&b[0])
}

func cSource(src int) C.int {
	if src == AnySource {
		return C.MPI_ANY_SOURCE
	}
	return C.int(src)
}

func cTag(tag int) C.int {
	if tag == AnyTag {
		return C.MPI_ANY_TAG
	}
	return C.int(tag)
}

func rankName(src int) string {
	if src == AnySource {
		return "any rank"
	}
	return fmt.Sprintf("rank %d", src)
}

func tagName(tag int) string {
	if tag == AnyTag {
		return "any tag"
	}
	return fmt.Sprintf("tag %d", tag)
}

func cLevel(l ThreadLevel) C.int {
	switch l {
	case ThreadSingle:
		return C.MPI_THREAD_SINGLE
	case ThreadFunneled:
		return C.MPI_THREAD_FUNNELED
	case ThreadSerialized:
		return C.MPI_THREAD_SERIALIZED
	}
	return C.MPI_THREAD_MULTIPLE
}

func goLevel(l C.int) ThreadLevel {
	switch l {
	case C.MPI_THREAD_SINGLE:
		return ThreadSingle
	case C.MPI_THREAD_FUNNELED:
		return ThreadFunneled
	case C.MPI_THREAD_SERIALIZED:
		return ThreadSerialized
	}
	return ThreadMultiple
}

// ---------------------------------------------------------------------------
// Exported API.

// Compiled reports whether MPI support is built in: true in this build (built
// with the `mpi` build tag), false without it.
func Compiled() bool { return true }

// Init initialises MPI with MPI_Init_thread, requesting the given thread
// level, and returns the level the library provides (which may be lower).
//
// Init starts the package's MPI thread: a goroutine that calls
// runtime.LockOSThread and keeps its OS thread until Finalize.
// MPI_Init_thread and MPI_Finalize run on that thread, so callers need not
// lock their own threads, and every function of the package may be called
// from any goroutine. The level decides where the other MPI calls run:
//
//   - ThreadSingle or ThreadFunneled (the usual choice): every MPI call runs
//     on the MPI thread; each call costs a hand-over between OS threads
//     (several microseconds) on top of the MPI call itself.
//   - ThreadSerialized, if provided: calls run directly on the calling
//     goroutine's thread, serialised by a package mutex (no hand-over).
//   - ThreadMultiple, if provided: calls run directly and concurrently, so a
//     goroutine blocked in Recv or Probe does not hold up the others.
//
// If the library provides less than requested, the package falls back to the
// mode of the provided level. Init also sets MPI_ERRORS_RETURN on
// MPI_COMM_WORLD, so that failed calls return errors instead of aborting the
// job.
//
// Init may succeed only once per process: calling it again, or after
// Finalize, returns an error.
func Init(level ThreadLevel) (provided ThreadLevel, err error) {
	if !level.valid() {
		return 0, fmt.Errorf("mpi: init: invalid thread level %d", int(level))
	}
	stateMu.Lock()
	defer stateMu.Unlock()
	if calls != nil {
		return 0, fmt.Errorf("mpi: init: already initialized")
	}
	if finalized {
		return 0, fmt.Errorf("mpi: init: already initialized once; MPI cannot be initialized again")
	}
	finalized = true // from here on, a second Init is an error whatever happens

	type result struct {
		provided   ThreadLevel
		rank, size int
		err        error
	}
	res := make(chan result, 1)
	ch := make(chan *job)
	done := make(chan struct{})
	go func() {
		// Lock for good: the goroutine and its thread end together.
		runtime.LockOSThread()
		var r result
		var prov C.int
		if rc := C.ocb_init_thread(cLevel(level), &prov); rc != C.MPI_SUCCESS {
			r.err = fmt.Errorf("mpi: init: MPI_Init_thread(%v): error code %d", level, int(rc))
			res <- r
			return
		}
		r.provided = goLevel(prov)
		if rc := C.ocb_errors_return(); rc != C.MPI_SUCCESS {
			r.err = mpiErr(rc, "init: set MPI_ERRORS_RETURN on MPI_COMM_WORLD")
			res <- r
			return
		}
		var rank, size C.int
		if rc := C.ocb_world(&rank, &size); rc != C.MPI_SUCCESS {
			r.err = mpiErr(rc, "init: rank and size of MPI_COMM_WORLD")
			res <- r
			return
		}
		r.rank, r.size = int(rank), int(size)
		res <- r
		loop(ch, done)
	}()
	r := <-res
	if r.err != nil {
		return 0, r.err
	}
	worldRank.Store(int64(r.rank))
	worldSize.Store(int64(r.size))
	calls, loopDone = ch, done
	switch min(level, r.provided) {
	case ThreadMultiple:
		mode = modeMultiple
	case ThreadSerialized:
		mode = modeSerialized
	default:
		mode = modeThread
	}
	return r.provided, nil
}

// Finalize calls MPI_Finalize on the MPI thread and stops that thread. It
// waits for calls still running in other goroutines; after it, every call
// returns ErrNotInitialized (wrapped) and Init cannot be called again.
// MPI_Finalize is collective: every rank must call Finalize.
func Finalize() error {
	stateMu.Lock()
	defer stateMu.Unlock()
	if calls == nil {
		return fmt.Errorf("mpi: finalize: %w", ErrNotInitialized)
	}
	err := submit(calls, func() error {
		if rc := C.ocb_finalize(); rc != C.MPI_SUCCESS {
			return mpiErr(rc, "finalize")
		}
		return nil
	})
	close(calls)
	<-loopDone
	calls, loopDone = nil, nil
	return err
}

// Initialized reports whether Init has succeeded and Finalize has not been
// called yet.
func Initialized() bool {
	stateMu.RLock()
	defer stateMu.RUnlock()
	return calls != nil
}

// WorldRank returns the rank of this process in MPI_COMM_WORLD (cached by
// Init). Before Init it returns 0.
func WorldRank() int { return int(worldRank.Load()) }

// WorldSize returns the number of processes in MPI_COMM_WORLD (cached by
// Init). Before Init it returns 1.
func WorldSize() int { return int(worldSize.Load()) }

// Send sends buf to rank dest with the given tag (MPI_Send of len(buf)
// MPI_BYTEs on MPI_COMM_WORLD). It blocks until buf may be reused, which for
// large messages means until dest has started receiving it. A zero-length buf
// (or nil) sends an empty message. tag must be >= 0. After the send, it posts
// the receive of PostRecv again if a message completed it.
func Send(buf []byte, dest, tag int) error {
	if direct.Load() {
		return send(buf, dest, tag) // inside OnThread: no closure, no hand-over
	}
	return do("send", func() error { return send(buf, dest, tag) })
}

func send(buf []byte, dest, tag int) error {
	if err := checkRank("destination", dest, WorldSize()); err != nil {
		return err
	}
	if err := checkTag(tag); err != nil {
		return err
	}
	if err := checkLen("send", len(buf)); err != nil {
		return err
	}
	if rc := C.ocb_send(bufPtr(buf), C.int(len(buf)), C.int(dest), C.int(tag)); rc != C.MPI_SUCCESS {
		return mpiErr(rc, "send %d bytes to rank %d (tag %d)", len(buf), dest, tag)
	}
	return nil
}

// Probe blocks until a message from source (or AnySource) with tag (or
// AnyTag) can be received, and returns its status without receiving it
// (MPI_Probe). Unless MPI was initialised with ThreadMultiple, calls from
// other goroutines wait while it blocks.
func Probe(source, tag int) (Status, error) {
	var st Status
	err := do("probe", func() error {
		if err := checkSource(source, WorldSize()); err != nil {
			return err
		}
		if err := checkRecvTag(tag); err != nil {
			return err
		}
		var src, tg, cnt C.int
		if rc := C.ocb_probe(cSource(source), cTag(tag), &src, &tg, &cnt); rc != C.MPI_SUCCESS {
			return mpiErr(rc, "probe %s, %s", rankName(source), tagName(tag))
		}
		st = Status{Source: int(src), Tag: int(tg), Count: int(cnt)}
		return nil
	})
	return st, err
}

// Iprobe reports, without blocking, whether a message from source (or
// AnySource) with tag (or AnyTag) can be received, and if so its status
// (MPI_Iprobe). The message stays queued until Recv.
func Iprobe(source, tag int) (Status, bool, error) {
	if direct.Load() {
		return iprobe(source, tag)
	}
	var st Status
	var found bool
	err := do("iprobe", func() (err error) {
		st, found, err = iprobe(source, tag)
		return err
	})
	return st, found, err
}

func iprobe(source, tag int) (Status, bool, error) {
	if err := checkSource(source, WorldSize()); err != nil {
		return Status{}, false, err
	}
	if err := checkRecvTag(tag); err != nil {
		return Status{}, false, err
	}
	r := C.ocb_iprobe_v(cSource(source), cTag(tag))
	if r.rc != C.MPI_SUCCESS {
		return Status{}, false, mpiErr(r.rc, "iprobe %s, %s", rankName(source), tagName(tag))
	}
	return status(r), r.flag != 0, nil
}

func status(r C.ocb_result) Status {
	if r.flag == 0 {
		return Status{}
	}
	return Status{Source: int(r.source), Tag: int(r.tag), Count: int(r.count)}
}

// PostRecv posts a receive ahead for a message of at most capacity bytes
// from any source with any tag (MPI_Irecv into a buffer that the package
// owns), to be completed by TestRecv; a message that arrives meanwhile
// lands straight in it, with one matching where Iprobe and Recv need two.
// One posted receive exists at a time: PostRecv while one is posted is an
// error, and while one is, Iprobe and Recv must not be used for any
// source, and TestRecv and CancelRecv must not be called from two goroutines
// at once (even with ThreadMultiple). CancelRecv ends it; it must end
// before Finalize. A message longer
// than capacity should stay small enough to be sent eagerly: a blocking
// send of a long message that a posted receive truncates may never end
// (Open MPI's shared-memory transport).
func PostRecv(capacity int) error {
	return do("post recv", func() error {
		if capacity < 1 || capacity > maxCount {
			return fmt.Errorf("mpi: post recv: capacity %d bytes out of range", capacity)
		}
		if C.ocb_posted_active() != 0 {
			return fmt.Errorf("mpi: post recv: a receive is posted already")
		}
		if rc := C.ocb_post_first(C.int(capacity)); rc != C.MPI_SUCCESS {
			return mpiErr(rc, "post a receive of %d bytes for any source and tag", capacity)
		}
		return nil
	})
}

// TestRecv reports, without blocking, whether the posted receive has
// completed (MPI_Test). If so it returns the message's status and bytes;
// the next receive, into the other buffer, is posted by the next Send or
// TestRecv (after an answer is sent, not before: see ocb_repost). data
// stays valid until the next call to TestRecv that returns a message. A
// message longer than the capacity is dropped: ok, with an error wrapping
// ErrTruncated and the status's source and tag.
func TestRecv() (st Status, data []byte, ok bool, err error) { return testRecv(testTries) }

// testTries is how many times TestRecv tests the posted receive before it
// reports that nothing arrived: about a microsecond of MPI progress.
const testTries = 16

// TestRecvOnce is TestRecv with one MPI_Test: whether a message is there
// already, for a caller that has just received one and will wait no longer.
func TestRecvOnce() (st Status, data []byte, ok bool, err error) { return testRecv(1) }

func testRecv(tries C.int) (Status, []byte, bool, error) {
	if direct.Load() {
		return posted(C.ocb_test_any(tries), "test the posted receive") // no closure: nothing escapes
	}
	return postedOnThread(func() C.ocb_posted { return C.ocb_test_any(tries) }, "test the posted receive")
}

// CancelRecv cancels the posted receive (MPI_Cancel, MPI_Wait). If a message
// completed it first, that message is returned as by TestRecv.
func CancelRecv() (st Status, data []byte, ok bool, err error) {
	return postedOnThread(func() C.ocb_posted { return C.ocb_cancel_any() }, "cancel the posted receive")
}

func postedOnThread(f func() C.ocb_posted, what string) (Status, []byte, bool, error) {
	var st Status
	var data []byte
	var ok bool
	err := do(what, func() (err error) {
		st, data, ok, err = posted(f(), what)
		return err
	})
	return st, data, ok, err
}

func posted(r C.ocb_posted, what string) (Status, []byte, bool, error) {
	if r.rc != C.MPI_SUCCESS {
		return Status{}, nil, false, mpiErr(r.rc, "%s", what)
	}
	if r.flag == 0 {
		return Status{}, nil, false, nil
	}
	st := Status{Source: int(r.source), Tag: int(r.tag), Count: int(r.count)}
	if r.truncated != 0 {
		return st, nil, true, fmt.Errorf("mpi: message from rank %d (tag %d) longer than the %d bytes posted: %w", st.Source, st.Tag, int(C.ocb_posted_capacity()), ErrTruncated)
	}
	var data []byte
	if r.count > 0 {
		data = unsafe.Slice((*byte)(unsafe.Pointer(r.data)), int(r.count))
	}
	return st, data, true, nil
}

// Recv receives a message from source (or AnySource) with tag (or AnyTag)
// into buf and returns its status; Status.Count bytes of buf are filled
// (MPI_Recv of MPI_BYTE). A message longer than buf is an error (MPI
// truncation); use Probe or Iprobe first to learn the length. buf may be
// empty to receive an empty message. Unless MPI was initialised with
// ThreadMultiple, calls from other goroutines wait while it blocks.
func Recv(buf []byte, source, tag int) (Status, error) {
	if direct.Load() {
		return recv(buf, source, tag)
	}
	var st Status
	err := do("recv", func() (err error) {
		st, err = recv(buf, source, tag)
		return err
	})
	return st, err
}

func recv(buf []byte, source, tag int) (Status, error) {
	if err := checkSource(source, WorldSize()); err != nil {
		return Status{}, err
	}
	if err := checkRecvTag(tag); err != nil {
		return Status{}, err
	}
	if err := checkLen("recv", len(buf)); err != nil {
		return Status{}, err
	}
	r := C.ocb_recv_v(bufPtr(buf), C.int(len(buf)), cSource(source), cTag(tag))
	if r.rc != C.MPI_SUCCESS {
		return Status{}, mpiErr(r.rc, "recv into %d-byte buffer from %s, %s", len(buf), rankName(source), tagName(tag))
	}
	return status(r), nil
}

// AllocMem returns size bytes (size ≥ 1) of memory that MPI allocates
// (MPI_Alloc_mem), outside the Go heap: a buffer that is sent often is
// cheaper to send from it, since cgo checks every Go pointer passed to C
// (a tenth of a microsecond per send was measured on a 2-core VM). Give it
// back with FreeMem before Finalize; the slice must not be used after.
func AllocMem(size int) ([]byte, error) {
	if size < 1 || size > maxCount {
		return nil, fmt.Errorf("mpi: alloc mem: %d bytes out of range", size)
	}
	var p unsafe.Pointer
	err := do("alloc mem", func() error {
		var rc C.int
		p = C.ocb_alloc_mem(C.int64_t(size), &rc)
		if rc != C.MPI_SUCCESS || p == nil {
			return mpiErr(rc, "alloc mem of %d bytes", size)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*byte)(p), size), nil
}

// FreeMem frees memory that AllocMem returned (MPI_Free_mem).
func FreeMem(b []byte) error {
	if cap(b) == 0 {
		return nil
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	return do("free mem", func() error {
		if rc := C.ocb_free_mem(p); rc != C.MPI_SUCCESS {
			return mpiErr(rc, "free mem")
		}
		return nil
	})
}

// Barrier blocks until every rank has called it (MPI_Barrier).
func Barrier() error {
	return do("barrier", func() error {
		if rc := C.ocb_barrier(); rc != C.MPI_SUCCESS {
			return mpiErr(rc, "barrier")
		}
		return nil
	})
}

// AllreduceInt64 combines in element-wise over all ranks with op and returns
// the result, a new slice, on every rank (MPI_Allreduce of MPI_INT64_T). All
// ranks must pass slices of the same length; an empty slice returns an empty
// result without communicating.
func AllreduceInt64(in []int64, op Op) ([]int64, error) {
	var out []int64
	err := do("allreduce int64", func() error {
		if !op.valid() {
			return fmt.Errorf("mpi: allreduce int64: invalid op %d", int(op))
		}
		if err := checkLen("allreduce int64", len(in)); err != nil {
			return err
		}
		out = make([]int64, len(in))
		if len(in) == 0 {
			return nil
		}
		rc := C.ocb_allreduce_i64((*C.int64_t)(unsafe.Pointer(&in[0])), (*C.int64_t)(unsafe.Pointer(&out[0])), C.int(len(in)), C.int(op))
		if rc != C.MPI_SUCCESS {
			return mpiErr(rc, "allreduce %d int64 with %v", len(in), op)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AllreduceSumMin combines in over all ranks, on every rank: its first
// nsum elements are summed and the others take their minimum, in one
// MPI_Allreduce (of a user-defined operation over one contiguous vector).
// All ranks must pass the same length and nsum.
func AllreduceSumMin(in []int64, nsum int) ([]int64, error) {
	var out []int64
	err := do("allreduce sum-min", func() error {
		if nsum < 0 || nsum > len(in) {
			return fmt.Errorf("mpi: allreduce sum-min: %d sums of %d elements", nsum, len(in))
		}
		if err := checkLen("allreduce sum-min", len(in)+1); err != nil {
			return err
		}
		v := make([]int64, len(in)+1)
		v[0] = int64(nsum)
		copy(v[1:], in)
		res := make([]int64, len(v))
		rc := C.ocb_allreduce_sum_min((*C.int64_t)(unsafe.Pointer(&v[0])), (*C.int64_t)(unsafe.Pointer(&res[0])), C.int(len(v)))
		if rc != C.MPI_SUCCESS {
			return mpiErr(rc, "allreduce sum-min of %d int64", len(in))
		}
		out = res[1:]
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AllreduceFloat64 combines in element-wise over all ranks with op and
// returns the result, a new slice, on every rank (MPI_Allreduce of
// MPI_DOUBLE). All ranks must pass slices of the same length; an empty slice
// returns an empty result without communicating.
func AllreduceFloat64(in []float64, op Op) ([]float64, error) {
	var out []float64
	err := do("allreduce float64", func() error {
		if !op.valid() {
			return fmt.Errorf("mpi: allreduce float64: invalid op %d", int(op))
		}
		if err := checkLen("allreduce float64", len(in)); err != nil {
			return err
		}
		out = make([]float64, len(in))
		if len(in) == 0 {
			return nil
		}
		rc := C.ocb_allreduce_f64((*C.double)(unsafe.Pointer(&in[0])), (*C.double)(unsafe.Pointer(&out[0])), C.int(len(in)), C.int(op))
		if rc != C.MPI_SUCCESS {
			return mpiErr(rc, "allreduce %d float64 with %v", len(in), op)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// GatherBytes collects every rank's buf, whose lengths may differ, on root.
// On root it returns one slice per rank, indexed by rank (empty, not nil, for
// ranks that sent nothing); on the other ranks it returns nil.
//
// The lengths are first exchanged with MPI_Allgather (rather than
// MPI_Gather) so that every rank can check the total against the MPI count
// limit and fail in the same way, instead of leaving root alone in
// MPI_Gatherv; then the data is gathered with MPI_Gatherv. If every buf is
// empty, no data is exchanged.
func GatherBytes(buf []byte, root int) ([][]byte, error) {
	var out [][]byte
	err := do("gather", func() error {
		n := WorldSize()
		if err := checkRank("gather root", root, n); err != nil {
			return err
		}
		lens := make([]int64, n)
		if rc := C.ocb_allgather_i64(C.int64_t(len(buf)), (*C.int64_t)(unsafe.Pointer(&lens[0]))); rc != C.MPI_SUCCESS {
			return mpiErr(rc, "gather: allgather of lengths")
		}
		var total int64
		for r, l := range lens {
			if l > maxCount {
				return fmt.Errorf("mpi: gather: rank %d contributes %d bytes, over the MPI count limit of %d", r, l, maxCount)
			}
			total += l
		}
		if total > maxCount {
			return fmt.Errorf("mpi: gather: %d bytes in total on root %d, over the MPI count limit of %d", total, root, maxCount)
		}
		me := WorldRank()
		if total == 0 {
			if me == root {
				out = make([][]byte, n)
				for r := range out {
					out[r] = []byte{}
				}
			}
			return nil
		}
		if me != root {
			if rc := C.ocb_gatherv(bufPtr(buf), C.int(len(buf)), nil, nil, nil, C.int(root)); rc != C.MPI_SUCCESS {
				return mpiErr(rc, "gather %d bytes to root %d", len(buf), root)
			}
			return nil
		}
		counts := make([]C.int, n)
		displs := make([]C.int, n)
		var off int64
		for r, l := range lens {
			counts[r], displs[r] = C.int(l), C.int(off)
			off += l
		}
		all := make([]byte, total)
		if rc := C.ocb_gatherv(bufPtr(buf), C.int(len(buf)), unsafe.Pointer(&all[0]), &counts[0], &displs[0], C.int(root)); rc != C.MPI_SUCCESS {
			return mpiErr(rc, "gather %d bytes from %d ranks on root %d", total, n, root)
		}
		out = make([][]byte, n)
		off = 0
		for r, l := range lens {
			out[r] = all[off : off+l : off+l] // capped: appending to one never overwrites the next
			off += l
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AllgatherBytes collects every rank's buf, whose lengths may differ (any
// length, empty included), on every rank: it returns one slice per rank,
// indexed by rank (empty, not nil, for ranks that sent nothing). The slices
// are new memory, sub-slices of one buffer capped at their ends, so
// appending to one never overwrites the next.
//
// The lengths are exchanged first with MPI_Allgather, so that every rank
// knows the layout and checks the total against the MPI count limit (an
// error then on every rank alike); then the data is gathered with
// MPI_Allgatherv into one buffer. If every buf is empty, no data is
// exchanged.
func AllgatherBytes(buf []byte) ([][]byte, error) {
	var out [][]byte
	err := do("allgather", func() error {
		n := WorldSize()
		lens := make([]int64, n)
		if rc := C.ocb_allgather_i64(C.int64_t(len(buf)), (*C.int64_t)(unsafe.Pointer(&lens[0]))); rc != C.MPI_SUCCESS {
			return mpiErr(rc, "allgather: allgather of lengths")
		}
		total, err := checkLens("allgather", lens)
		if err != nil {
			return err
		}
		out = make([][]byte, n)
		if total == 0 {
			for r := range out {
				out[r] = []byte{}
			}
			return nil
		}
		counts := make([]C.int, n)
		displs := make([]C.int, n)
		var off int64
		for r, l := range lens {
			counts[r], displs[r] = C.int(l), C.int(off)
			off += l
		}
		all := make([]byte, total)
		if rc := C.ocb_allgatherv(bufPtr(buf), C.int(len(buf)), unsafe.Pointer(&all[0]), &counts[0], &displs[0]); rc != C.MPI_SUCCESS {
			return mpiErr(rc, "allgather %d bytes from %d ranks", total, n)
		}
		off = 0
		for r, l := range lens {
			out[r] = all[off : off+l : off+l] // capped: appending to one never overwrites the next
			off += l
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// BcastBytes sends root's buf to every rank: it returns buf itself on root
// and a new slice with the same contents elsewhere (empty, not nil, for an
// empty message). The other ranks' buf argument is ignored. The length is
// broadcast first (MPI_Bcast of one MPI_INT64_T), then the data (MPI_Bcast of
// MPI_BYTE), so the receivers need not know it in advance.
func BcastBytes(buf []byte, root int) ([]byte, error) {
	var out []byte
	err := do("bcast", func() error {
		if err := checkRank("bcast root", root, WorldSize()); err != nil {
			return err
		}
		isRoot := WorldRank() == root
		var n C.int64_t
		if isRoot {
			n = C.int64_t(len(buf))
		}
		if rc := C.ocb_bcast_i64(&n, C.int(root)); rc != C.MPI_SUCCESS {
			return mpiErr(rc, "bcast: length from root %d", root)
		}
		if n > maxCount {
			return fmt.Errorf("mpi: bcast: %d bytes from root %d exceeds the MPI count limit of %d", int64(n), root, maxCount)
		}
		if isRoot {
			out = buf
		} else {
			out = make([]byte, int(n))
		}
		if out == nil {
			out = []byte{}
		}
		if n == 0 {
			return nil
		}
		if rc := C.ocb_bcast_bytes(unsafe.Pointer(&out[0]), C.int(n), C.int(root)); rc != C.MPI_SUCCESS {
			return mpiErr(rc, "bcast %d bytes from root %d", int64(n), root)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Wtime returns elapsed wall-clock seconds since an arbitrary point in the
// past (MPI_Wtime). Before Init and after Finalize it falls back to Go's
// monotonic clock, whose origin differs: only compare values taken while MPI
// is initialised. In the MPI-thread mode (see Init) each call costs a
// hand-over to the MPI thread; for fine-grained timing of Go code prefer
// time.Now.
func Wtime() float64 {
	var t float64
	if err := do("wtime", func() error { t = float64(C.ocb_wtime()); return nil }); err != nil {
		return time.Since(start).Seconds()
	}
	return t
}

// abortWait bounds how long Abort waits for the MPI thread.
const abortWait = 5 * time.Second

// Abort terminates all ranks of the job with the given exit code
// (MPI_Abort on MPI_COMM_WORLD). It does not return. If MPI is not
// initialised, or the MPI thread is stuck in another call for abortWait, it
// calls os.Exit(code) instead; mpirun then ends the other ranks because this
// one exited without finalising.
func Abort(code int) {
	if stateMu.TryRLock() {
		if ch := calls; ch != nil {
			j := &job{f: func() error { C.ocb_abort(C.int(code)); return nil }, done: make(chan struct{}, 1)}
			timer := time.NewTimer(abortWait)
			select {
			case ch <- j:
				select {
				case <-j.done:
				case <-timer.C:
				}
			case <-timer.C:
			}
		}
		// No RUnlock: the process exits below.
	}
	os.Exit(code)
}

var (
	libVersionOnce sync.Once
	libVersion     string
)

// LibraryVersion returns the MPI library's version string
// (MPI_Get_library_version), e.g. "Open MPI v4.1.4, package: Debian OpenMPI,
// ...", trimmed of trailing white space. The MPI standard lets this function
// be called from any thread, before Init and after Finalize, so it does not
// use the MPI thread.
func LibraryVersion() string {
	libVersionOnce.Do(func() {
		buf := (*C.char)(C.malloc(C.MPI_MAX_LIBRARY_VERSION_STRING + 1))
		defer C.free(unsafe.Pointer(buf))
		var n C.int
		if rc := C.ocb_library_version(buf, &n); rc != C.MPI_SUCCESS || n <= 0 {
			libVersion = "unknown"
			return
		}
		libVersion = strings.TrimSpace(strings.TrimRight(C.GoStringN(buf, n), "\x00"))
	})
	return libVersion
}

// PingPong measures raw MPI point-to-point latency between the calling rank
// and peer, which must call PingPong with the calling rank as its peer and
// the same size and iters. The lower-numbered rank sends first; each round
// trip is one MPI_Send and one MPI_Recv of size bytes (MPI_BYTE, tag
// PingPongTag) on each side. iters/10 round trips (at least 1, at most 100)
// are made untimed first to set up connections; then iters round trips are
// timed with MPI_Wtime. The whole loop runs in C on the MPI thread, so the
// result is the library's own cost, free of Go and channel overheads: use it
// as the baseline for a runtime built on top of this package.
//
// It returns the mean time of one one-way message in seconds (elapsed time /
// (2 * iters)).
func PingPong(peer int, size int, iters int) (secondsPerOneWay float64, err error) {
	err = do("ping-pong", func() error {
		me := WorldRank()
		if err := checkPingPong(peer, me, WorldSize(), size, iters); err != nil {
			return err
		}
		buf := C.malloc(C.size_t(size + 1))
		defer C.free(buf)
		warmup := min(max(iters/10, 1), 100)
		first := C.int(0)
		if me < peer {
			first = 1
		}
		var elapsed C.double
		rc := C.ocb_pingpong(buf, C.int(size), C.int(peer), C.int(iters), C.int(warmup), first, PingPongTag, &elapsed)
		if rc != C.MPI_SUCCESS {
			return mpiErr(rc, "ping-pong of %d bytes with rank %d", size, peer)
		}
		secondsPerOneWay = float64(elapsed) / float64(2*iters)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return secondsPerOneWay, nil
}

func (m execMode) String() string {
	switch m {
	case modeSerialized:
		return "direct, serialized"
	case modeMultiple:
		return "direct, concurrent"
	}
	return "MPI thread"
}

// checkLen validates a buffer length against the MPI count limit.
func checkLen(what string, n int) error {
	if n > maxCount {
		return fmt.Errorf("mpi: %s: %d bytes exceeds the MPI count limit of %d", what, n, maxCount)
	}
	return nil
}

// checkPingPong validates PingPong's arguments.
func checkPingPong(peer, self, size, msgSize, iters int) error {
	if err := checkRank("ping-pong peer", peer, size); err != nil {
		return err
	}
	if peer == self {
		return fmt.Errorf("mpi: ping-pong peer %d is the calling rank itself", peer)
	}
	if msgSize < 0 || msgSize > maxCount {
		return fmt.Errorf("mpi: ping-pong message size %d out of range [0, %d]", msgSize, maxCount)
	}
	if iters < 1 {
		return fmt.Errorf("mpi: ping-pong needs at least 1 iteration, got %d", iters)
	}
	return nil
}
