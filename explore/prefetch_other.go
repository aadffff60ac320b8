//go:build !amd64

package explore

import "unsafe"

// prefetch does nothing where the explorer has no prefetch instruction.
func prefetch(unsafe.Pointer) {}
