package hugepage

import "testing"

// TestMake: the slices Make and MakeCap return are make's, small or large
// (advised), and writable through.
func TestMake(t *testing.T) {
	for _, n := range []int{0, 1, 1000, 3 << 20} {
		s := Make[uint32](n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("Make(%d): len %d cap %d", n, len(s), cap(s))
		}
		for i := range s {
			if s[i] != 0 {
				t.Fatalf("Make(%d)[%d] = %d, want 0", n, i, s[i])
			}
			s[i] = uint32(i)
		}
		c := MakeCap[int64](n)
		if len(c) != 0 || cap(c) != n {
			t.Fatalf("MakeCap(%d): len %d cap %d", n, len(c), cap(c))
		}
	}
}
