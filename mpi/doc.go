// Package mpi is a small cgo binding to the C API of MPI (the Message Passing
// Interface), written from the MPI standard, for running ocbench on several
// processes. It covers what ocbench needs: initialisation, blocking byte
// messages on MPI_COMM_WORLD (Send, Recv, Probe, Iprobe), one receive from
// any source posted ahead (PostRecv, then TestRecv or TestRecvOnce until a
// message has come, CancelRecv to end it), memory that MPI allocates for
// buffers sent often (AllocMem, FreeMem), a few collectives (Barrier,
// AllreduceInt64, AllreduceFloat64, GatherBytes, AllgatherBytes,
// BcastBytes), timing (Wtime, PingPong) and Abort.
//
// # Two builds
//
// Without build tags the package is a single-rank stand-in that needs neither
// cgo nor an MPI library: Init succeeds, WorldRank is 0 and WorldSize is 1,
// Barrier does nothing, reductions and gathers return (a copy of) their
// input, AllocMem returns Go memory and FreeMem does nothing, and Send, Recv,
// Probe, Iprobe, PostRecv and PingPong return an error wrapping ErrNoMPI
// (TestRecv, TestRecvOnce and CancelRecv find no posted receive). Compiled
// reports false.
//
// With the `mpi` build tag the package is compiled with cgo against Open MPI,
// found through pkg-config (module "ompi", installed on Debian by
// libopenmpi-dev; scripts/install-openmpi.sh installs it):
//
//	go build -tags mpi ./...
//	go test -c -tags mpi -o /tmp/mpi.test ./mpi
//
// The tags `mpi,mpich` use MPICH's pkg-config module "mpich" instead
// (Debian's libmpich-dev; scripts/install-mpich.sh, and scripts/mpich-check.sh
// tests it). The code uses only standard MPI: it compares an error code's
// class (MPI_Error_class), never the code, since MPICH returns codes that
// carry an error stack; and a blocking Send to one's own rank may wait for
// its receive (MPICH's does), so callers do not send to themselves. For an
// MPI installed elsewhere, point PKG_CONFIG_PATH at its .pc file, and add
// flags with CGO_CFLAGS and CGO_LDFLAGS if needed. Building with the `mpi`
// tag and CGO_ENABLED=0 fails with an error naming the problem.
//
// # Running
//
// Start the program with mpirun; each process is one rank:
//
//	mpirun -np 4 ./program
//	mpirun --oversubscribe -np 32 ./program   # more ranks than cores
//
// Started without mpirun, a program built with the tag runs as a one-rank MPI
// job. As root (in containers, for example), Open MPI's mpirun refuses to run
// unless both OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
// are set in its environment. On machines with fewer cores than ranks pass
// --oversubscribe. Open MPI's blocking calls busy-poll, so oversubscribed
// jobs are slow but correct. `--mca btl self,tcp` forces TCP instead of
// shared memory between local ranks.
//
// # Threads
//
// MPI ties a process's use of the library to OS threads, while Go moves
// goroutines between threads. Init therefore starts a dedicated goroutine,
// the MPI thread, that calls runtime.LockOSThread and keeps its OS thread
// until Finalize; MPI_Init_thread and MPI_Finalize run there. The thread
// level passed to Init decides where the other calls run:
//
//   - ThreadSingle or ThreadFunneled: every MPI call is handed to the MPI
//     thread over a channel and the caller waits for it. All MPI calls thus
//     come from one locked OS thread, and the package may be called from any
//     goroutine without runtime.LockOSThread. The hand-over between OS
//     threads costs roughly 10 µs per call on a small machine, far more than
//     a shared-memory MPI message (about 0.5 µs).
//   - ThreadSerialized (if the library provides it): calls run directly on
//     the caller's thread, one at a time under a mutex; no hand-over.
//   - ThreadMultiple (if the library provides it): calls run directly and
//     concurrently; a goroutine blocked in Recv or Probe does not delay the
//     others.
//
// In the first two modes a blocking call (Recv, Probe, a Send that waits for
// its receiver, a collective) holds up every other goroutine's MPI calls
// until it returns; poll with Iprobe where that matters. Open MPI 4.1 as
// packaged by Debian provides ThreadMultiple.
//
// # Semantics
//
// Init sets MPI_ERRORS_RETURN on MPI_COMM_WORLD, so failures come back as
// errors that name the operation, the MPI error code and its message, instead
// of aborting the job. Collectives must be called by every rank in the same
// order with matching arguments (same root, same reduction length), as in
// MPI; an argument error detected on one rank only leaves the others waiting.
// Messages are MPI_BYTE; tags are >= 0 and at most MPI_TAG_UB (at least
// 32767); AnySource and AnyTag are the wildcards. Slices are passed to C only
// for the duration of a call, and an empty slice is passed as a null pointer.
//
// # The posted receive
//
// PostRecv(capacity) posts one receive for any source and tag (MPI_Irecv)
// into C memory of two buffers that take turns. TestRecv tests it without
// blocking (MPI_Test, a few times; TestRecvOnce once) and returns the
// message's status and bytes, valid until the next TestRecv that returns a
// message; the next receive is posted by the next Send or TestRecv, after an
// answer has gone out. A message longer than capacity is dropped with an
// error wrapping ErrTruncated. While a receive is posted, Iprobe and Recv
// must not be used, and TestRecv and CancelRecv must not be called from two
// goroutines at once. CancelRecv (MPI_Cancel, MPI_Wait) ends it, returning a
// message that completed it first; it must end before Finalize.
//
// # Memory
//
// AllocMem(size) returns memory that MPI allocates (MPI_Alloc_mem), outside
// the Go heap: a buffer sent often is cheaper to send from it, since cgo
// checks every Go pointer passed to C. FreeMem (MPI_Free_mem) gives it back,
// before Finalize; the slice must not be used after.
//
// The C side of the binding is in ocb.c and ocb.h.
package mpi
