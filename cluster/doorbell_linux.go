package cluster

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"syscall"
	"time"
	"unsafe"
)

// A doorbell lets a rank sleep in the kernel until another rank on the same
// machine sends it a frame, instead of waking up to poll MPI: 32 ranks on 2
// cores then cost nothing while they wait. Each rank makes a named pipe; a
// rank on the same machine that sends it a frame writes one byte into it.
// MPI has no blocking receive with a timeout, and its blocking calls
// busy-poll. Ranks on other machines cannot ring: where some peer has no
// doorbell, an idle rank polls MPI every maxSleep.
type doorbell struct {
	fd    int   // read end of this rank's pipe
	peers []int // write ends, per rank (-1: none)
	all   bool  // every other rank can ring
	buf   [256]byte
}

// setupDoorbells makes the doorbells of every rank on the machine
// (collective) and returns this rank's. A rank whose pipe cannot be made gets
// no doorbell (nil) and polls.
func setupDoorbells(comm Comm) (*doorbell, error) {
	rank, size := comm.Rank(), comm.Size()
	host, _ := os.Hostname()
	h := fnv.New64a()
	h.Write([]byte(host))
	in := make([]int64, 2+size)
	if rank == 0 {
		in[0] = time.Now().UnixNano() ^ int64(os.Getpid())<<20
	}
	in[2+rank] = int64(h.Sum64() >> 1)
	ids, err := comm.SumInt64(in)
	if err != nil {
		return nil, fmt.Errorf("cluster: agreeing on a job id: %w", err)
	}
	path := func(r int) string {
		return filepath.Join(os.TempDir(), fmt.Sprintf("ocbench-%x-%d", uint64(ids[0]), r))
	}
	d := &doorbell{fd: -1, peers: make([]int, size)}
	for r := range d.peers {
		d.peers[r] = -1
	}
	made := int64(0)
	if err := syscall.Mkfifo(path(rank), 0o600); err == nil {
		if fd, err := syscall.Open(path(rank), syscall.O_RDWR|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0); err == nil {
			d.fd, made = fd, 1
		}
	}
	// Every pipe exists before any rank opens its peers'.
	if _, err := comm.SumInt64([]int64{made}); err != nil {
		return nil, fmt.Errorf("cluster: making doorbells: %w", err)
	}
	d.all = true
	for r := 0; r < size; r++ {
		if r == rank {
			continue
		}
		if ids[2+r] == ids[2+rank] {
			if fd, err := syscall.Open(path(r), syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0); err == nil {
				d.peers[r] = fd
			}
		}
		d.all = d.all && d.peers[r] >= 0
	}
	// Every rank has opened its peers' pipes: the names can go.
	_, err = comm.SumInt64([]int64{0})
	if d.fd >= 0 {
		os.Remove(path(rank))
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: making doorbells: %w", err)
	}
	if d.fd < 0 {
		d.close()
		return nil, nil
	}
	return d, nil
}

// ring tells rank r that a frame is on its way; a full pipe is fine (the
// rank will wake anyway).
func (d *doorbell) ring(r int) {
	if d != nil && d.peers[r] >= 0 {
		syscall.Write(d.peers[r], d.buf[:1])
	}
}

// canRing reports whether every other rank rings this one's doorbell.
func (d *doorbell) canRing() bool { return d != nil && d.all }

// rings reports whether rank r rings this rank's doorbell for every frame
// (it can if this rank can ring it: both are on the machine and made pipes).
func (d *doorbell) rings(r int) bool { return d != nil && d.peers[r] >= 0 }

// wait blocks until the doorbell rings or timeout passes, empties it, and
// returns the number of rings: frames sent to this rank, maybe not yet
// visible to MPI (a transport may need more progress calls on both sides).
// raw blocks the thread without the Go scheduler's knowledge: only for a
// goroutine locked to its own thread, with nothing else to run.
func (d *doorbell) wait(timeout time.Duration, raw bool) int {
	fds := [1]struct {
		fd      int32
		events  int16
		revents int16
	}{{fd: int32(d.fd), events: 0x1}} // POLLIN
	ts := syscall.NsecToTimespec(int64(max(timeout, 0)))
	if raw {
		// The caller owns its thread: block without telling the Go
		// scheduler, which otherwise hands the thread's P to another thread
		// and back on every wake, several times the cost of the wait itself.
		syscall.RawSyscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	} else {
		syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	}
	rings := 0
	for {
		n, err := syscall.Read(d.fd, d.buf[:])
		if n <= 0 || err != nil {
			return rings
		}
		rings += n
	}
}

func (d *doorbell) close() {
	if d == nil {
		return
	}
	for _, fd := range d.peers {
		if fd >= 0 {
			syscall.Close(fd)
		}
	}
	if d.fd >= 0 {
		syscall.Close(d.fd)
	}
}

// nap sleeps for d on the calling thread without handing it back to the Go
// scheduler: the runtime loop owns its (MPI) thread, and a short sleep
// through the scheduler costs several times more CPU on a virtual machine.
func nap(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}
