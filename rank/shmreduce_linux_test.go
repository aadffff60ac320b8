package rank

import (
	"testing"

	"github.com/ocbench/ocbench/bench"
)

// TestVirtualShmPaths: a job gives the same records whichever way its
// windows' reports and frames go: the shared page (the default for ranks
// of one machine), the page with boxes too small for most frames (the
// rest by the Comm, after the reduction), and the Comm alone
// (OCBENCH_SHM_REDUCE=0).
func TestVirtualShmPaths(t *testing.T) {
	cases := virtualCases()
	specs := []bench.Spec{cases["opencube/crashes"], cases["kofl/initial-poisson"], cases["suzuki-kasami/poisson"]}
	want := runVirtual(t, 4, "cyclic", specs)
	for _, c := range []struct {
		name string
		box  int
		off  string
	}{
		{"small boxes", 600, ""},
		{"no page", 64 << 10, "0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			old := shmBox
			shmBox = c.box
			defer func() { shmBox = old }()
			t.Setenv("OCBENCH_SHM_REDUCE", c.off)
			got := runVirtual(t, 4, "cyclic", specs)
			for k := range specs {
				if g, w := comparable(t, got[k]), comparable(t, want[k]); g != w {
					t.Errorf("spec %d: record differs:\n got %s\nwant %s", k, g, w)
				}
			}
		})
	}
}
