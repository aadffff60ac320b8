//go:build !mpi

package mpi

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// This file is the single-rank build used when the `mpi` build tag is not
// set: no cgo, no MPI library, rank 0 of a world of size 1.

var (
	stateMu   sync.Mutex
	initState int // 0 = never initialised, 1 = initialised, 2 = finalised
)

// start is the reference point for Wtime.
var start = time.Now()

// Compiled reports whether MPI support is built in: false in this build
// (built without the `mpi` build tag), true with it.
func Compiled() bool { return false }

// Init initialises the package. Without MPI support it always succeeds (the
// first time) and provides the requested level: there is a single rank and no
// MPI library to share between threads. Calling Init twice, or after
// Finalize, returns an error, as in the MPI build.
func Init(level ThreadLevel) (provided ThreadLevel, err error) {
	if !level.valid() {
		return 0, fmt.Errorf("mpi: init: invalid thread level %d", int(level))
	}
	stateMu.Lock()
	defer stateMu.Unlock()
	switch initState {
	case 1:
		return 0, fmt.Errorf("mpi: init: already initialized")
	case 2:
		return 0, fmt.Errorf("mpi: init: already finalized; MPI cannot be initialized again")
	}
	initState = 1
	return level, nil
}

// Finalize ends the use of the package. It returns ErrNotInitialized (wrapped)
// if Init has not succeeded or Finalize was already called.
func Finalize() error {
	stateMu.Lock()
	defer stateMu.Unlock()
	if initState != 1 {
		return fmt.Errorf("mpi: finalize: %w", ErrNotInitialized)
	}
	initState = 2
	return nil
}

// Initialized reports whether Init has succeeded and Finalize has not been
// called yet.
func Initialized() bool {
	stateMu.Lock()
	defer stateMu.Unlock()
	return initState == 1
}

func checkInit(what string) error {
	if !Initialized() {
		return fmt.Errorf("mpi: %s: %w", what, ErrNotInitialized)
	}
	return nil
}

// WorldRank returns the rank of this process in MPI_COMM_WORLD: always 0
// without MPI support.
func WorldRank() int { return 0 }

// WorldSize returns the number of processes in MPI_COMM_WORLD: always 1
// without MPI support.
func WorldSize() int { return 1 }

// Send sends buf to rank dest with the given tag. Without MPI support there
// is nobody to send to (not even the calling rank), so after checking its
// arguments it returns ErrNoMPI (wrapped).
func Send(buf []byte, dest, tag int) error {
	if err := checkInit("send"); err != nil {
		return err
	}
	if err := checkRank("destination", dest, 1); err != nil {
		return err
	}
	if err := checkTag(tag); err != nil {
		return err
	}
	return fmt.Errorf("mpi: send %d bytes to rank %d (tag %d): %w", len(buf), dest, tag, ErrNoMPI)
}

// Probe waits for a matching message. Without MPI support no message can
// ever arrive, so it returns ErrNoMPI (wrapped) instead of blocking forever.
func Probe(source, tag int) (Status, error) {
	if err := checkInit("probe"); err != nil {
		return Status{}, err
	}
	if err := checkSource(source, 1); err != nil {
		return Status{}, err
	}
	if err := checkRecvTag(tag); err != nil {
		return Status{}, err
	}
	return Status{}, fmt.Errorf("mpi: probe source %d tag %d: %w", source, tag, ErrNoMPI)
}

// Iprobe checks for a matching message without blocking. Without MPI support
// it returns ErrNoMPI (wrapped), so that a polling loop fails loudly rather
// than spinning forever.
func Iprobe(source, tag int) (Status, bool, error) {
	if err := checkInit("iprobe"); err != nil {
		return Status{}, false, err
	}
	if err := checkSource(source, 1); err != nil {
		return Status{}, false, err
	}
	if err := checkRecvTag(tag); err != nil {
		return Status{}, false, err
	}
	return Status{}, false, fmt.Errorf("mpi: iprobe source %d tag %d: %w", source, tag, ErrNoMPI)
}

// PostRecv posts a receive for any source. Without MPI support no message
// can ever arrive, so it returns ErrNoMPI (wrapped).
func PostRecv(capacity int) error {
	if err := checkInit("post recv"); err != nil {
		return err
	}
	return fmt.Errorf("mpi: post recv: %w", ErrNoMPI)
}

// TestRecv tests the posted receive: without MPI support there is none.
func TestRecv() (st Status, data []byte, ok bool, err error) {
	if err := checkInit("test recv"); err != nil {
		return Status{}, nil, false, err
	}
	return Status{}, nil, false, fmt.Errorf("mpi: test recv: %w", ErrNoMPI)
}

// TestRecvOnce is TestRecv with one test: without MPI support there is no
// posted receive.
func TestRecvOnce() (st Status, data []byte, ok bool, err error) { return TestRecv() }

// CancelRecv cancels the posted receive: without MPI support there is none.
func CancelRecv() (st Status, data []byte, ok bool, err error) {
	return Status{}, nil, false, checkInit("cancel recv")
}

// Recv receives a message into buf. Without MPI support no message can ever
// arrive, so it returns ErrNoMPI (wrapped) instead of blocking forever.
func Recv(buf []byte, source, tag int) (Status, error) {
	if err := checkInit("recv"); err != nil {
		return Status{}, err
	}
	if err := checkSource(source, 1); err != nil {
		return Status{}, err
	}
	if err := checkRecvTag(tag); err != nil {
		return Status{}, err
	}
	return Status{}, fmt.Errorf("mpi: recv from source %d tag %d: %w", source, tag, ErrNoMPI)
}

// AllocMem returns size bytes (size ≥ 1); without MPI support, of the Go
// heap.
func AllocMem(size int) ([]byte, error) {
	if err := checkInit("alloc mem"); err != nil {
		return nil, err
	}
	if size < 1 || size > maxCount {
		return nil, fmt.Errorf("mpi: alloc mem: %d bytes out of range", size)
	}
	return make([]byte, size), nil
}

// FreeMem frees memory that AllocMem returned: without MPI support, nothing
// to do.
func FreeMem(b []byte) error { return checkInit("free mem") }

// Barrier synchronises all ranks: a no-op with a single rank.
func Barrier() error { return checkInit("barrier") }

// AllreduceInt64 combines in element-wise over all ranks with op and returns
// the result on every rank. With a single rank the result is a copy of in.
func AllreduceInt64(in []int64, op Op) ([]int64, error) {
	if err := checkInit("allreduce int64"); err != nil {
		return nil, err
	}
	if !op.valid() {
		return nil, fmt.Errorf("mpi: allreduce int64: invalid op %d", int(op))
	}
	return append([]int64{}, in...), nil
}

// AllreduceSumMin returns a copy of in: the world is one rank.
func AllreduceSumMin(in []int64, nsum int) ([]int64, error) {
	if err := checkInit("allreduce sum-min"); err != nil {
		return nil, err
	}
	if nsum < 0 || nsum > len(in) {
		return nil, fmt.Errorf("mpi: allreduce sum-min: %d sums of %d elements", nsum, len(in))
	}
	return append([]int64(nil), in...), nil
}

// AllreduceFloat64 combines in element-wise over all ranks with op and
// returns the result on every rank. With a single rank the result is a copy
// of in.
func AllreduceFloat64(in []float64, op Op) ([]float64, error) {
	if err := checkInit("allreduce float64"); err != nil {
		return nil, err
	}
	if !op.valid() {
		return nil, fmt.Errorf("mpi: allreduce float64: invalid op %d", int(op))
	}
	return append([]float64{}, in...), nil
}

// GatherBytes collects every rank's buf on root: root gets one slice per rank
// (indexed by rank), other ranks get nil. With a single rank, root must be 0
// and the result is a one-element slice holding a copy of buf.
func GatherBytes(buf []byte, root int) ([][]byte, error) {
	if err := checkInit("gather"); err != nil {
		return nil, err
	}
	if err := checkRank("gather root", root, 1); err != nil {
		return nil, err
	}
	return [][]byte{append([]byte{}, buf...)}, nil
}

// AllgatherBytes collects every rank's buf on every rank, one slice per
// rank in rank order. With a single rank the result is a one-element slice
// holding a copy of buf (empty, not nil, if buf is empty).
func AllgatherBytes(buf []byte) ([][]byte, error) {
	if err := checkInit("allgather"); err != nil {
		return nil, err
	}
	return [][]byte{append([]byte{}, buf...)}, nil
}

// BcastBytes sends root's buf to every rank and returns it; the buf argument
// of the other ranks is ignored. With a single rank, root must be 0 and buf is
// returned as is.
func BcastBytes(buf []byte, root int) ([]byte, error) {
	if err := checkInit("bcast"); err != nil {
		return nil, err
	}
	if err := checkRank("bcast root", root, 1); err != nil {
		return nil, err
	}
	if buf == nil {
		buf = []byte{}
	}
	return buf, nil
}

// Wtime returns elapsed wall-clock seconds since an arbitrary point in the
// past (here: package initialisation, from Go's monotonic clock).
func Wtime() float64 { return time.Since(start).Seconds() }

// Abort terminates the program with the given exit code (os.Exit without
// MPI support). It does not return.
func Abort(code int) { os.Exit(code) }

// LibraryVersion returns the MPI library's version string: "none" without
// MPI support.
func LibraryVersion() string { return "none" }

// PingPong measures raw MPI point-to-point latency against peer. Without MPI
// support there is no peer, so it returns ErrNoMPI (wrapped).
func PingPong(peer int, size int, iters int) (secondsPerOneWay float64, err error) {
	if err := checkInit("ping-pong"); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("mpi: ping-pong with rank %d: %w", peer, ErrNoMPI)
}

// OnThread runs f. In the MPI build it runs f on the MPI thread, so that the
// calls f makes need no hand-over between threads; here there is no MPI
// thread. It returns ErrNotInitialized (wrapped) before Init or after Finalize.
func OnThread(f func() error) error {
	if err := checkInit("on-thread"); err != nil {
		return err
	}
	return f()
}
