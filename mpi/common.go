package mpi

import (
	"errors"
	"fmt"
	"math"
)

// ThreadLevel is an MPI thread-support level, as requested from and provided
// by MPI_Init_thread.
type ThreadLevel int

// Thread-support levels, in increasing order of support (MPI_THREAD_SINGLE,
// MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE).
//
// Because this package makes every MPI call from one dedicated, locked OS
// thread (see the package documentation), ThreadFunneled is sufficient for any
// use of the package, including calls from many goroutines.
const (
	// ThreadSingle: only one thread will execute (MPI_THREAD_SINGLE).
	ThreadSingle ThreadLevel = iota
	// ThreadFunneled: only the thread that initialised MPI makes MPI calls
	// (MPI_THREAD_FUNNELED). This is what the package needs.
	ThreadFunneled
	// ThreadSerialized: any thread may make MPI calls, but never two at once
	// (MPI_THREAD_SERIALIZED).
	ThreadSerialized
	// ThreadMultiple: any thread may make MPI calls at any time
	// (MPI_THREAD_MULTIPLE).
	ThreadMultiple
)

// String returns the MPI name of the level, e.g. "MPI_THREAD_FUNNELED".
func (l ThreadLevel) String() string {
	switch l {
	case ThreadSingle:
		return "MPI_THREAD_SINGLE"
	case ThreadFunneled:
		return "MPI_THREAD_FUNNELED"
	case ThreadSerialized:
		return "MPI_THREAD_SERIALIZED"
	case ThreadMultiple:
		return "MPI_THREAD_MULTIPLE"
	}
	return fmt.Sprintf("ThreadLevel(%d)", int(l))
}

func (l ThreadLevel) valid() bool { return l >= ThreadSingle && l <= ThreadMultiple }

// Op is a reduction operation for AllreduceInt64 and AllreduceFloat64.
type Op int

// Reduction operations (MPI_SUM, MPI_MAX, MPI_MIN).
const (
	// OpSum adds the contributions of all ranks element-wise (MPI_SUM).
	OpSum Op = iota
	// OpMax takes the element-wise maximum over all ranks (MPI_MAX).
	OpMax
	// OpMin takes the element-wise minimum over all ranks (MPI_MIN).
	OpMin
)

// String returns the MPI name of the operation, e.g. "MPI_SUM".
func (o Op) String() string {
	switch o {
	case OpSum:
		return "MPI_SUM"
	case OpMax:
		return "MPI_MAX"
	case OpMin:
		return "MPI_MIN"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

func (o Op) valid() bool { return o >= OpSum && o <= OpMin }

// Wildcards for Probe, Iprobe and Recv. They are translated to the MPI
// library's own MPI_ANY_SOURCE and MPI_ANY_TAG values (which differ between
// implementations), so other negative ranks or tags are rejected rather than
// being silently taken as a wildcard or as MPI_PROC_NULL.
const (
	// AnySource matches a message from any rank (MPI_ANY_SOURCE).
	AnySource = -1
	// AnyTag matches a message with any tag (MPI_ANY_TAG).
	AnyTag = -1
)

// PingPongTag is the message tag that PingPong uses. Do not have messages
// with this tag in flight between the two ranks while they run PingPong.
const PingPongTag = 32767 // the MPI standard guarantees MPI_TAG_UB >= 32767

// Status describes a received or probed message.
type Status struct {
	// Source is the rank that sent the message.
	Source int
	// Tag is the message's tag.
	Tag int
	// Count is the message's length in bytes.
	Count int
}

// ErrNoMPI is returned (wrapped) by point-to-point calls in a build without
// MPI support, where the only rank is 0 and nothing can be sent.
var ErrNoMPI = errors.New("ocbench built without MPI support; build with `make mpi`")

// ErrTruncated reports a message longer than the buffer of a posted
// receive (MPI_ERR_TRUNCATE): it was dropped.
var ErrTruncated = errors.New("message truncated")

// ErrNotInitialized is returned (wrapped) by calls made before Init or after
// Finalize.
var ErrNotInitialized = errors.New("mpi: not initialized (call Init first; MPI cannot be used after Finalize)")

// maxCount is the largest element count an MPI call takes (a C int).
const maxCount = math.MaxInt32

// checkRank validates a destination/root rank against the world size.
func checkRank(what string, r, size int) error {
	if r < 0 || r >= size {
		return fmt.Errorf("mpi: invalid %s rank %d (world size %d)", what, r, size)
	}
	return nil
}

// checkSource validates a source rank that may be AnySource.
func checkSource(src, size int) error {
	if src == AnySource {
		return nil
	}
	return checkRank("source", src, size)
}

// checkTag validates a tag for sending (wildcards not allowed).
func checkTag(tag int) error {
	if tag < 0 {
		return fmt.Errorf("mpi: invalid tag %d (tags must be >= 0)", tag)
	}
	return nil
}

// checkRecvTag validates a tag for receiving/probing (AnyTag allowed).
func checkRecvTag(tag int) error {
	if tag == AnyTag {
		return nil
	}
	return checkTag(tag)
}

// checkLens validates the buffer lengths that the ranks contribute to a
// gather (lens, indexed by rank) against the MPI count limit, each and in
// total, since the receive buffer's displacements are C ints too, and
// returns the total. Every rank sees the same lens, so every rank fails
// alike and none is left alone in the collective.
func checkLens(what string, lens []int64) (int64, error) {
	var total int64
	for r, l := range lens {
		if l < 0 || l > maxCount {
			return 0, fmt.Errorf("mpi: %s: rank %d contributes %d bytes, over the MPI count limit of %d", what, r, l, maxCount)
		}
		total += l
	}
	if total > maxCount {
		return 0, fmt.Errorf("mpi: %s: %d bytes in total from %d ranks, over the MPI count limit of %d", what, total, len(lens), maxCount)
	}
	return total, nil
}
