// Package hugepage makes the large arrays of a run (a million nodes and
// more) in memory the kernel may back with huge pages: one page fault per
// 2 MiB instead of one per 4 KiB when the array is first written, and a
// TLB entry that covers 512 times as many nodes when the run reads them at
// random. Linux only, where transparent huge pages are enabled for
// madvise'd memory (the default "madvise" mode); elsewhere, and for small
// arrays, Make is make.
package hugepage

import "unsafe"

// minBytes is the smallest array advised: below a few huge pages, there
// is nothing to win.
const minBytes = 8 << 20

// Make returns make([]T, n), advised for huge pages when it is large.
func Make[T any](n int) []T {
	s := make([]T, n)
	var zero T
	if size := uintptr(n) * unsafe.Sizeof(zero); size >= minBytes {
		advise(unsafe.Pointer(unsafe.SliceData(s)), size)
	}
	return s
}

// MakeCap returns make([]T, 0, c), advised for huge pages when it is large.
func MakeCap[T any](c int) []T {
	return Make[T](c)[:0]
}
