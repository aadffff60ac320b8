package explore

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page.
const hugePage = 2 << 20

// bigAlloc returns n zeroed bytes b outside the Go heap, aligned to and
// advised onto huge pages: the visited set's tables and the levels'
// chunks are touched at random or in full, and on 4 KiB pages they cost a
// page fault every 4 KiB and a page walk at most accesses. m is the
// mapping that holds b, for bigFree; nil if the system refused it and b
// is the Go heap's.
func bigAlloc(n int) (b, m []byte) {
	size := (n + hugePage - 1) &^ (hugePage - 1)
	m, err := syscall.Mmap(-1, 0, size+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return make([]byte, n), nil
	}
	head := int((hugePage - uintptr(unsafe.Pointer(unsafe.SliceData(m)))%hugePage) % hugePage)
	b = m[head : head+size : head+size]
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // advice: 4 KiB pages work too
	return b[:n], m
}

// bigFree returns mapping m of bigAlloc to the system (nil: nothing).
func bigFree(m []byte) {
	if m != nil {
		if err := syscall.Munmap(m); err != nil {
			panic("explore: munmap: " + err.Error())
		}
	}
}
