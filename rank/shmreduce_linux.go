package rank

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// shmReduce is the window reduction of MPI in virtual time (Comm.SumMin)
// through memory that the ranks of one machine share, for a job whose
// ranks are all on one machine. MPI's collectives busy-poll (with
// sched_yield when ranks outnumber cores), so 32 ranks on 2 cores spend
// most of a window spinning for their turn: the default job's 13,145
// windows took about 1.7 ms each, 22 of its 25 s. Here every rank writes
// its vector in its own slot and adds one to a count; the last to arrive
// combines the slots into the result, bumps a generation word and wakes
// the ranks that sleep on it (futex(2)) with one system call; the others
// sleep on the generation until it changes. A waiting rank costs no CPU, so
// the cores go to the ranks that still run their windows. The frames of a
// window go through the page too: each rank has a box per window parity,
// which it fills before the reduction and the others read after it (what
// does not fit goes by MPI, after the reduction).
//
// The page: the generation (the futex word), the count of ranks arrived,
// the count of ranks asleep; then the result and one slot per rank, each
// of max int64s. A rank reads the generation before it adds itself to the
// count, so the last rank's bump cannot be missed; the last rank resets the
// count before it bumps the generation, and no rank writes its slot for
// the next window before it has seen the bump and read the result, so one
// result area serves every window.
type shmReduce struct {
	mem             []byte
	gen, arrived    *uint32
	sleepers        *uint32
	result          []int64
	slots           [][]int64
	rank, size, max int
	// raw: the caller owns its thread (MPI's): a wait blocks it without
	// telling the Go scheduler. Else (goroutine ranks) it goes through
	// the scheduler, so that the other ranks run meanwhile.
	raw bool
	// boxes[r][w] is rank r's frames of the windows of parity w: a length
	// (uint32), then per frame its destination and length (uint32 each)
	// and its bytes. A rank writes its box of a window before the
	// window's reduction and the others read it after; it writes the box
	// of that parity again two windows later, after the next reduction,
	// which every rank reaches only once it has read this one.
	boxes [][2][]byte
	// spin is how long a waiting rank polls the generation before it
	// sleeps (0: it sleeps at once), adapted to how long the waits are:
	// it doubles after a wait that polling ended, up to spinMax, and
	// halves after one it did not.
	spin, spinMax time.Duration
}

// shmBox is the size of a rank's box of frames for one window parity: a
// window's frames beyond it go by MPI. (A variable for the tests.)
var shmBox = 64 << 10

const shmHeader = 64

// setupShmReduce maps the job's reduction page (collective: every rank
// calls it) for vectors of at most max int64s, or returns nil if the ranks
// are not all on this machine, or one cannot map it (then the job uses
// Comm.SumMin and MPI frames). raw says the caller owns its thread (wait).
// OCBENCH_SHM_REDUCE=0 turns it off.
func setupShmReduce(comm Comm, max int, raw bool) (*shmReduce, error) {
	rank, size := comm.Rank(), comm.Size()
	off := int64(0)
	if os.Getenv("OCBENCH_SHM_REDUCE") == "0" {
		off = 1
	}
	length := shmHeader + 8*max*(size+1) + 2*shmBox*size
	page, err := mapHostPage(comm, "reduce", length, off)
	if err != nil {
		return nil, err
	}
	all := page.flags == 0 && size >= 2 && page.mem != nil
	for _, ok := range page.shares {
		all = all && ok
	}
	if !all {
		if page.mem != nil {
			syscall.Munmap(page.mem)
		}
		return nil, nil
	}
	mem := page.mem
	spinMax := spinFor(size)
	s := &shmReduce{mem: mem, rank: rank, size: size, max: max, raw: raw, spin: spinMax, spinMax: spinMax,
		gen: (*uint32)(unsafe.Pointer(&mem[0])), arrived: (*uint32)(unsafe.Pointer(&mem[4])), sleepers: (*uint32)(unsafe.Pointer(&mem[8]))}
	words := unsafe.Slice((*int64)(unsafe.Pointer(&mem[shmHeader])), max*(size+1))
	s.result = words[:max:max]
	for r := 0; r < size; r++ {
		s.slots = append(s.slots, words[max*(r+1):max*(r+2):max*(r+2)])
	}
	boxes := mem[shmHeader+8*max*(size+1):]
	for r := 0; r < size; r++ {
		b := boxes[2*shmBox*r:]
		s.boxes = append(s.boxes, [2][]byte{b[:shmBox:shmBox], b[shmBox : 2*shmBox : 2*shmBox]})
	}
	return s, nil
}

// shmProgress is how long a rank sleeps in the reduction before it lets
// the Go scheduler run its other goroutines (watchWindows: the rank
// blocks its thread without telling the scheduler) and calls progress (an
// MPI progress call), and sleeps again.
const shmProgress = 100 * time.Millisecond

// SumMin is Comm.SumMin through the page: the first nsum elements added
// up over the ranks, the others their minimum, appended to dst[:0] (a
// window's buffer, reused from one window to the next). Every rank passes
// as many. While it waits it calls progress every shmProgress.
func (s *shmReduce) SumMin(dst, in []int64, nsum int, progress func()) ([]int64, error) {
	if len(in) > s.max || nsum < 0 || nsum > len(in) {
		return nil, fmt.Errorf("rank: a reduction of %d elements (%d sums), at most %d", len(in), nsum, s.max)
	}
	copy(s.slots[s.rank], in)
	g := atomic.LoadUint32(s.gen)
	if int(atomic.AddUint32(s.arrived, 1)) == s.size {
		res := s.result[:len(in)]
		copy(res, s.slots[0][:len(in)])
		for r := 1; r < s.size; r++ {
			x := s.slots[r][:len(in)]
			for i := range nsum {
				res[i] += x[i]
			}
			for i := nsum; i < len(in); i++ {
				res[i] = min(res[i], x[i])
			}
		}
		atomic.StoreUint32(s.arrived, 0)
		atomic.AddUint32(s.gen, 1)
		if atomic.LoadUint32(s.sleepers) > 0 {
			s.wake()
		}
	} else if !s.poll(g) {
		for atomic.LoadUint32(s.gen) == g {
			atomic.AddUint32(s.sleepers, 1)
			if atomic.LoadUint32(s.gen) == g {
				s.wait(g, shmProgress)
			}
			atomic.AddUint32(s.sleepers, ^uint32(0))
			if atomic.LoadUint32(s.gen) == g {
				// Long: let the watch of the windows (watchWindows) run,
				// and MPI progress.
				runtime.Gosched()
				progress()
			}
		}
	}
	return append(dst[:0], s.result[:len(in)]...), nil
}

// shmSpin is the longest a waiting rank polls the generation before it
// sleeps, when every rank of the job has a core of this machine: a window
// takes a few microseconds, and a futex wake-up costs ten times as much
// (and a core that another rank would take, when ranks outnumber cores).
const shmSpin = 50 * time.Microsecond

// spinFor returns how long the ranks of a job of size ranks on this
// machine poll before they sleep: shmSpin if they are no more than its
// online cores, else 0. OCBENCH_SHM_SPIN (microseconds) sets it.
func spinFor(size int) time.Duration {
	if v, err := strconv.Atoi(os.Getenv("OCBENCH_SHM_SPIN")); err == nil && v >= 0 {
		return time.Duration(v) * time.Microsecond
	}
	if size > onlineCPUs() {
		return 0
	}
	return shmSpin
}

// onlineCPUs returns the cores of this machine that are online, whatever
// the process's affinity (mpirun binds a rank to one): 1 if unknown.
func onlineCPUs() int {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return 1
	}
	n := 0
	for _, r := range strings.Split(strings.TrimSpace(string(b)), ",") {
		lo, hi, ok := strings.Cut(r, "-")
		a, err1 := strconv.Atoi(lo)
		z, err2 := a, error(nil)
		if ok {
			z, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || z < a {
			return 1
		}
		n += z - a + 1
	}
	return max(n, 1)
}

// poll waits for the generation to leave g for at most s.spin, and
// reports whether it did; it adapts s.spin.
func (s *shmReduce) poll(g uint32) bool {
	if s.spin <= 0 {
		return false
	}
	// The clock is read from the 256th look on, every 64th: most waits
	// end sooner, and a read of the clock (tens of nanoseconds on a
	// virtual machine) would delay seeing the generation move.
	var start time.Time
	for k := 1; ; k++ {
		if atomic.LoadUint32(s.gen) != g {
			s.spin = min(2*s.spin, s.spinMax)
			return true
		}
		if k == 256 {
			start = time.Now()
		}
		if k > 256 && k%64 == 0 && time.Since(start) > s.spin {
			s.spin /= 2
			if s.spin < time.Microsecond {
				s.spin = time.Microsecond
			}
			return false
		}
	}
}

// reset empties this rank's box of parity w, before the window's frames.
func (s *shmReduce) reset(w int) { binary.LittleEndian.PutUint32(s.boxes[s.rank][w], 4) }

// put adds frame f for rank to to this rank's box of parity w, and
// reports whether it fit.
func (s *shmReduce) put(w, to int, f []byte) bool {
	box := s.boxes[s.rank][w]
	n := int(binary.LittleEndian.Uint32(box))
	if n+8+len(f) > len(box) {
		return false
	}
	binary.LittleEndian.PutUint32(box[n:], uint32(to))
	binary.LittleEndian.PutUint32(box[n+4:], uint32(len(f)))
	copy(box[n+8:], f)
	binary.LittleEndian.PutUint32(box, uint32(n+8+len(f)))
	return true
}

// frames calls fn with every frame for this rank in the other ranks'
// boxes of parity w (a copy of it, to keep), rank by rank in order.
func (s *shmReduce) frames(w int, fn func(src int, b []byte) error) error {
	for r := range s.boxes {
		if r == s.rank {
			continue
		}
		box := s.boxes[r][w]
		end := int(binary.LittleEndian.Uint32(box))
		if end < 4 || end > len(box) {
			return fmt.Errorf("rank: rank %d's box of frames says %d bytes, of %d", r, end, len(box))
		}
		for n := 4; n < end; {
			if n+8 > end {
				return fmt.Errorf("rank: rank %d's box of frames is cut at byte %d", r, n)
			}
			to, l := int(binary.LittleEndian.Uint32(box[n:])), int(binary.LittleEndian.Uint32(box[n+4:]))
			if l > end-n-8 {
				return fmt.Errorf("rank: rank %d's box of frames has a frame of %d bytes at byte %d of %d", r, l, n, end)
			}
			if to == s.rank {
				if err := fn(r, append([]byte(nil), box[n+8:n+8+l]...)); err != nil {
					return err
				}
			}
			n += 8 + l
		}
	}
	return nil
}

const (
	futexWait = 0
	futexWake = 1
)

// wait sleeps while the generation word holds g, at most timeout (or
// until a signal). With raw it blocks the calling thread without telling
// the Go scheduler, which otherwise hands the thread's P to another thread
// and back on every wake (the window loop owns its MPI thread): 32 ranks
// on 2 cores spent 22 s of system time so in the default job, 5 s raw.
func (s *shmReduce) wait(g uint32, timeout time.Duration) {
	ts := syscall.NsecToTimespec(int64(timeout))
	if !s.raw {
		syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(s.gen)), futexWait, uintptr(g), uintptr(unsafe.Pointer(&ts)), 0, 0)
		return
	}
	syscall.RawSyscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(s.gen)), futexWait, uintptr(g), uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// wake wakes every rank asleep on the generation word.
func (s *shmReduce) wake() {
	syscall.RawSyscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(s.gen)), futexWake, math.MaxInt32, 0, 0, 0)
}

func (s *shmReduce) close() {
	if s != nil && s.mem != nil {
		syscall.Munmap(s.mem)
		s.mem = nil
	}
}
