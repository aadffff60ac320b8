package rank

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// hostPage is a page of memory that the ranks of one machine share, made
// by mapHostPage.
type hostPage struct {
	// mem is the page (nil if this rank cannot use it).
	mem []byte
	// shares[r] says rank r shares this rank's page (this rank included,
	// when mem is not nil).
	shares []bool
	// flags is the sum over the ranks of the flag each passed.
	flags int64
}

// mapHostPage maps a page of length bytes that the ranks of each machine
// share, named by kind (collective: every rank calls it, with the same
// length). Beside the agreement it adds up one flag per rank (hostPage.flags).
// A rank shares the page of the ranks that report its host name and mapped
// it, and saw one another's marks on it: two machines with one host name, or
// a /tmp on a network file system, would otherwise each write a page the
// others never read, and a rank would wait on it for ever.
func mapHostPage(comm Comm, kind string, length int, flag int64) (hostPage, error) {
	rank, size := comm.Rank(), comm.Size()
	host, _ := os.Hostname()
	h := fnv.New64a()
	h.Write([]byte(host))
	in := make([]int64, 2+size)
	if rank == 0 {
		in[0] = time.Now().UnixNano() ^ int64(os.Getpid())<<20
	}
	in[1] = flag
	in[2+rank] = int64(h.Sum64() >> 1)
	ids, err := comm.SumInt64(in)
	if err != nil {
		return hostPage{}, fmt.Errorf("rank: agreeing on a %s page: %w", kind, err)
	}
	page := hostPage{flags: ids[1], shares: make([]bool, size)}
	path := filepath.Join(os.TempDir(), fmt.Sprintf("ocbench-%s-%x-%x", kind, uint64(ids[0]), uint64(ids[2+rank])))
	mem, err := mapShared(path, length+8*size) // the marks after the page
	marked := make([]int64, size)
	if err == nil {
		marked[rank] = 1
		atomic.StoreInt64(markOf(mem, length, rank), int64(rank)+1)
	}
	if marked, err = comm.SumInt64(marked); err != nil {
		return hostPage{}, fmt.Errorf("rank: making a %s page: %w", kind, err)
	}
	os.Remove(path) // every rank has it mapped (or failed): the name can go
	// Every rank has written its mark before the sum: this rank sees the
	// marks of the ranks it shares the page with.
	seen := make([]int64, size)
	if mem != nil {
		seen[rank] = 1
		for r := range size {
			if ids[2+r] == ids[2+rank] && marked[r] == 1 && atomic.LoadInt64(markOf(mem, length, r)) != int64(r)+1 {
				seen[rank] = 0
			}
		}
	}
	if seen, err = comm.SumInt64(seen); err != nil {
		return hostPage{}, fmt.Errorf("rank: checking a %s page: %w", kind, err)
	}
	if seen[rank] == 0 {
		if mem != nil {
			syscall.Munmap(mem)
		}
		return page, nil
	}
	page.mem = mem
	for r := range size {
		page.shares[r] = ids[2+r] == ids[2+rank] && seen[r] == 1
	}
	return page, nil
}

// markOf returns rank r's mark, after a page of length bytes.
func markOf(mem []byte, length, r int) *int64 {
	return (*int64)(unsafe.Pointer(&mem[length+8*r]))
}

// mapShared maps the file at path, made length bytes long, shared.
func mapShared(path string, length int) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_CREAT|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	if err := syscall.Ftruncate(fd, int64(length)); err != nil { // every rank asks the same length
		return nil, err
	}
	return syscall.Mmap(fd, 0, length, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}
