//go:build !linux

package explore

// hugePage is the size from which bigAlloc's memory is worth its own
// allocation.
const hugePage = 2 << 20

// bigAlloc returns n zeroed bytes from the Go heap (m nil: the collector
// frees them).
func bigAlloc(n int) (b, m []byte) { return make([]byte, n), nil }

// bigFree does nothing: bigAlloc maps nothing here.
func bigFree([]byte) {}
