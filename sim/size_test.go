package sim

import (
	"testing"
	"unsafe"
)

// TestSizes checks the sizes the simulator's layout counts on: a payload
// of 128 bytes (a power of two: indexing the slab is a shift) and a slot
// of 32 (two per cache line).
func TestSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"payload", unsafe.Sizeof(payload{}), 128},
		{"slot", unsafe.Sizeof(slot{}), 32},
	} {
		if c.got != c.want {
			t.Errorf("a %s takes %d bytes, want %d", c.name, c.got, c.want)
		}
	}
}
