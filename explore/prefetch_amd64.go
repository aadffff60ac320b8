package explore

import "unsafe"

// prefetch asks the processor to bring the cache line at p in, without
// waiting for it (an address that is not mapped is ignored).
//
//go:noescape
func prefetch(p unsafe.Pointer)
