package rank

import (
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// A doorbell lets a rank sleep in the kernel until another rank on the same
// machine sends it a frame, instead of waking up to poll MPI: 32 ranks on 2
// cores then cost nothing while they wait. MPI has no blocking receive with
// a timeout, and its blocking calls busy-poll.
//
// The ranks of a machine share one page (a file in the temporary
// directory, mapped by each): a word seq, and per rank a count of rings and
// a sleeping flag. A sender adds one to the count of every rank it is about
// to send a frame (before the send: a small MPI_Send may wait until the
// receiver makes MPI progress), then reads their sleeping flags; if some
// sleep, it bumps seq and wakes them with one futex call
// (FUTEX_WAKE_BITSET on seq, a bit per rank). One system call per burst
// matters when ranks outnumber cores: with one wake-up call per destination,
// each woken rank preempted the sender between its calls, and a broadcast
// to 31 ranks took 5 ms to go out instead of tens of microseconds.
// A rank sets its flag, reads seq, checks its count, and waits with
// FUTEX_WAIT_BITSET on seq, its own bit; a change of seq in between makes
// the wait return at once. No ring is lost: the sender writes the count
// before it reads the flag, the sleeper the flag before it reads the count
// (atomics are sequentially consistent), so either the sleeper sees the
// count or the sender sees the flag and wakes it. A rank that is awake costs
// its sender no write to seq, a cache line that every sender shares.
// Ranks on other machines cannot ring: where some peer cannot, an idle rank
// polls MPI every δ/4.
type doorbell struct {
	mem   []byte
	seq   *uint32
	count []*uint32 // per rank on this machine (nil: another machine)
	sleep []*uint32
	rank  int
	seen  uint32 // this rank's count when it last looked
	all   bool   // every other rank can ring
	raw   bool   // the caller owns its thread: syscalls bypass the Go scheduler
}

const (
	futexWaitBitset = 9
	futexWakeBitset = 10
	bellHeader      = 64 // seq, then padding
)

// setupDoorbells maps the machine's doorbell page (collective) and returns
// this rank's doorbell. A rank that cannot map it gets none (nil) and polls.
func setupDoorbells(comm Comm) (*doorbell, error) {
	rank, size := comm.Rank(), comm.Size()
	page, err := mapHostPage(comm, "bell", bellHeader+8*size, 0)
	if err != nil {
		return nil, err
	}
	if page.mem == nil {
		return nil, nil
	}
	mem := page.mem
	d := &doorbell{mem: mem, seq: (*uint32)(unsafe.Pointer(&mem[0])), rank: rank, all: true,
		count: make([]*uint32, size), sleep: make([]*uint32, size)}
	for r := 0; r < size; r++ {
		if page.shares[r] {
			d.count[r] = (*uint32)(unsafe.Pointer(&mem[bellHeader+8*r]))
			d.sleep[r] = (*uint32)(unsafe.Pointer(&mem[bellHeader+8*r+4]))
		}
		d.all = d.all && d.count[r] != nil
	}
	return d, nil
}

// ringAll rings rank r's doorbell once for every r in dests (a rank once
// per frame sent to it), waking the sleeping ones with one system call.
// Ranks on other machines, which have no doorbell here, are skipped.
func (d *doorbell) ringAll(dests []int) {
	if d == nil || len(dests) == 0 {
		return
	}
	for _, r := range dests {
		if c := d.count[r]; c != nil {
			atomic.AddUint32(c, 1)
		}
	}
	bits := uint32(0)
	for _, r := range dests {
		if s := d.sleep[r]; s != nil && atomic.LoadUint32(s) != 0 {
			bits |= 1 << (r % 32)
		}
	}
	if bits != 0 {
		atomic.AddUint32(d.seq, 1)
		d.futex(futexWakeBitset, 1<<30, nil, bits)
	}
}

// canRing reports whether every other rank rings this one's doorbell.
func (d *doorbell) canRing() bool { return d != nil && d.all }

// rings reports whether rank r rings this rank's doorbell for every frame
// (both are on this machine).
func (d *doorbell) rings(r int) bool { return d != nil && d.count[r] != nil }

// wait blocks until the doorbell rings or timeout passes and returns the
// number of rings since the last look: frames sent or about to be sent to
// this rank, maybe not yet visible to MPI (a transport may need more
// progress calls). A wait that the kernel ends early (a signal, a ring for
// another rank that changed seq) goes on until the deadline.
func (d *doorbell) wait(timeout time.Duration) int {
	me := d.count[d.rank]
	if timeout > 0 && atomic.LoadUint32(me) == d.seen {
		deadline := monotonic() + int64(timeout)
		atomic.StoreUint32(d.sleep[d.rank], 1) // before reading seq and the count: see ringAll
		for {
			seq := atomic.LoadUint32(d.seq)
			if atomic.LoadUint32(me) != d.seen || monotonic() >= deadline {
				break
			}
			abs := syscall.NsecToTimespec(deadline)
			d.futexWait(seq, &abs)
		}
		atomic.StoreUint32(d.sleep[d.rank], 0)
	}
	return d.rung()
}

// rung returns the number of rings since the last look, without waiting.
func (d *doorbell) rung() int {
	if d == nil {
		return 0
	}
	now := atomic.LoadUint32(d.count[d.rank])
	rings := int(now - d.seen)
	d.seen = now
	return rings
}

// monotonic reads CLOCK_MONOTONIC, the clock of futex deadlines, in
// nanoseconds.
func monotonic() int64 {
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&ts)), 0)
	return syscall.TimespecToNsec(ts)
}

// futexWait sleeps on seq while it holds the value seq, until the absolute
// monotonic time abs, for a wake-up with this rank's bit.
func (d *doorbell) futexWait(seq uint32, abs *syscall.Timespec) {
	d.futex(futexWaitBitset, int(seq), abs, 1<<(d.rank%32))
}

// futex calls futex(2) on seq with val and the absolute time abs (waits) and
// bits (the bitset).
func (d *doorbell) futex(op int, val int, abs *syscall.Timespec, bits uint32) {
	if d.raw {
		// The caller owns its thread: block without telling the Go
		// scheduler, which otherwise hands the thread's P to another thread
		// and back on every wake, several times the cost of the wait itself.
		syscall.RawSyscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(d.seq)), uintptr(op), uintptr(val), uintptr(unsafe.Pointer(abs)), 0, uintptr(bits))
		return
	}
	syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(d.seq)), uintptr(op), uintptr(val), uintptr(unsafe.Pointer(abs)), 0, uintptr(bits))
}

func (d *doorbell) close() {
	if d != nil && d.mem != nil {
		syscall.Munmap(d.mem)
		d.mem = nil
	}
}

// nap sleeps for d on the calling thread without handing it back to the Go
// scheduler: the runtime loop owns its (MPI) thread, and a short sleep
// through the scheduler costs several times more CPU on a virtual machine.
func nap(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}
