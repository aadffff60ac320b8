package explore

import (
	"os"
	"strings"
	"testing"
)

// TestSpill: with a memory share so small that the BFS levels go to disk,
// a search counts the same states and transitions and finds the same
// verdict at the same depth as in memory, on clean and broken systems,
// with one worker and two.
func TestSpill(t *testing.T) {
	// mem is the memory share: the visited set fits, the levels do not
	// (a worker's level spills past a 16th of it).
	cases := []struct {
		name string
		cfg  Config
		mem  int64
	}{
		{"broken copy N=3", Config{Algorithm: brokenRA{}, Nodes: 3, Requests: 1}, 128 << 10},
		{"ricart-agrawala N=3", Config{Algorithm: lookup(t, "ricart-agrawala"), Nodes: 3, Requests: 1}, 256 << 10},
		{"naimi-trehel N=4", Config{Algorithm: benchAlgorithm(t, "naimi-trehel", 4), Nodes: 4, Requests: 1}, 128 << 10},
		{"opencube paper N=4 crash strict", Config{Algorithm: paperOpenCube(t, 4), Nodes: 4, Requests: 1, Requesters: 2, Crashes: 1,
			Ticks: 2, MinTicks: 1, CSTicks: 2, StrictTimers: true}, 1 << 20},
	}
	for _, c := range cases {
		for _, w := range []int{1, 2} {
			cfg := c.cfg
			cfg.Workers, cfg.MaxStates = w, 1<<20
			want := searched(t, cfg)
			cfg.MaxBytes = c.mem
			res := explored(t, cfg)
			got := searched(t, cfg)
			switch {
			case res.Limit != "":
				t.Errorf("%s, %d worker(s): %s", c.name, w, res.Limit)
			case got != want:
				t.Errorf("%s, %d worker(s): %+v spilling, %+v in memory", c.name, w, got, want)
			case res.SpilledBytes == 0:
				t.Errorf("%s, %d worker(s): a level of %d B, nothing spilled", c.name, w, res.PeakFrontier)
			default:
				t.Logf("%s, %d worker(s): %d states, largest level %d B, %d B spilled", c.name, w, res.States, res.PeakFrontier, res.SpilledBytes)
			}
		}
	}
}

// TestDiskGuard: a search stops, INCOMPLETE and saying why, when the file
// system of its temporary files has less free than Config.MinDiskFree (a
// figure no disk has here), and runs to its end when the check is off; with
// the default, a small search runs to its end on a nearly full disk and a
// search that has written 64 MiB stops there.
func TestDiskGuard(t *testing.T) {
	if _, _, ok := diskFree(os.TempDir()); !ok {
		t.Skip("this system does not tell the free disk")
	}
	t.Run("nearly full", func(t *testing.T) {
		defer func(f func(string) (int64, int64, bool)) { diskFree = f }(diskFree)
		diskFree = func(string) (int64, int64, bool) { return 10 << 20, 100 << 30, true }
		cfg := Config{Algorithm: lookup(t, "ricart-agrawala"), Nodes: 3, Requests: 1, Workers: 2, MaxStates: 1 << 20}
		if res := explored(t, cfg); res.Limit != "" {
			t.Errorf("a small search on a disk with 10 MiB free: limit %q", res.Limit)
		}
		cfg = Config{Algorithm: lookup(t, "ricart-agrawala"), Nodes: 4, Requests: 1, Workers: 2, MaxStates: 1 << 23}
		if res := explored(t, cfg); !strings.Contains(res.Limit, "the disk of its temporary files") || res.States < diskFrom/PathLogBytes {
			t.Errorf("a search of %d states on a disk with 10 MiB free: limit %q", res.States, res.Limit)
		}
	})
	for _, w := range []int{1, 2} {
		cfg := Config{Algorithm: lookup(t, "ricart-agrawala"), Nodes: 3, Requests: 1, Workers: w, MaxStates: 1 << 20}
		cfg.MinDiskFree = 1 << 62
		res := explored(t, cfg)
		if !strings.Contains(res.Limit, "the disk of its temporary files") {
			t.Errorf("%d worker(s), MinDiskFree 2^62: limit %q, want the disk's", w, res.Limit)
		}
		cfg.MinDiskFree = -1
		if res := explored(t, cfg); res.Limit != "" {
			t.Errorf("%d worker(s), no disk check: limit %q", w, res.Limit)
		}
	}
}
