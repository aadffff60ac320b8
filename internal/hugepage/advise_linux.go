package hugepage

import (
	"syscall"
	"unsafe"
)

// pageSize is the base page, to which madvise's start must be aligned.
const pageSize = 4096

// advise asks for huge pages over the whole pages of [p, p+size). A
// refusal (a kernel without transparent huge pages) changes nothing.
func advise(p unsafe.Pointer, size uintptr) {
	start := (uintptr(p) + pageSize - 1) &^ (pageSize - 1)
	end := (uintptr(p) + size) &^ (pageSize - 1)
	if end <= start {
		return
	}
	off := start - uintptr(p)
	b := unsafe.Slice((*byte)(p), size)[off : off+end-start]
	_ = syscall.Madvise(b, 14) // MADV_HUGEPAGE
}
