package kofl

import (
	"strings"
	"testing"
	"time"
)

// TestCounts: the counts computed without listing are the lengths of the
// lists, for every domain, at Root and elsewhere.
func TestCounts(t *testing.T) {
	for _, c := range []Config{
		{Ell: 1, K: 1},
		{Ell: 2, K: 1, MaxSeq: 1},
		{Ell: 3, K: 2, MaxSeq: 2},
		{Ell: 4, K: 3, MaxVc: 3, MaxSeq: 1},
	} {
		for _, domain := range domains {
			for _, root := range []bool{false, true} {
				want := int64(len(localStates(c, root, domain)))
				if domain == "zero" {
					want = 1
				}
				if got := localCount(c, root, domain, 1<<40); got != want {
					t.Errorf("%+v, %s, root %v: localCount %d, want %d", c, domain, root, got, want)
				}
				if got := localCount(c, root, domain, want-1); got != want && want > 1 {
					t.Errorf("%+v, %s, root %v: localCount with limit %d is %d, want %d", c, domain, root, want-1, got, want)
				}
			}
		}
		if got, want := junkCount(c), int64(len(junk(c, 0, 1))); got != want {
			t.Errorf("%+v: junkCount %d, want %d", c, got, want)
		}
	}
	if got := mulCap(1<<40, 1<<40, 20_000_000); got != 20_000_001 {
		t.Errorf("mulCap overflowing: %d, want the limit + 1", got)
	}
}

// TestConfigurationsRefusedAtOnce: a space beyond the limit is refused
// before a state is listed, in bounded time (issue 40, defect 10: --ell 6,
// --domain zero --ell 99, --k-max 99 listed every local state first).
func TestConfigurationsRefusedAtOnce(t *testing.T) {
	const limit = 20_000_000
	for _, c := range []struct {
		cfg     Config
		n       int
		domain  string
		linkCap int
	}{
		{Config{Ell: 5, K: 5}, 2, "full", 0},
		{Config{Ell: 6, K: 6}, 2, "full", 0},
		{Config{Ell: 99, K: 99}, 2, "full", 0},
		{Config{Ell: 99, K: 99, MaxSeq: 15}, 64, "idle", 1},
	} {
		a := SelfStabilizing{Algorithm{Config: c.cfg}}
		start := time.Now()
		_, total, err := a.Configurations(c.n, c.domain, c.linkCap, limit)
		if err == nil || !strings.Contains(err.Error(), "more than 20000000 initial configurations") {
			t.Errorf("%+v N=%d %s: %d configurations, err %v; want a refusal", c.cfg, c.n, c.domain, total, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%+v N=%d %s: refused after %v", c.cfg, c.n, c.domain, d)
		}
	}
	// Within the limit, the count is the number generated.
	a := SelfStabilizing{Algorithm{Config: Config{Ell: 2, K: 1}}}
	gen, total, err := a.Configurations(2, "idle", 1, limit)
	if err != nil {
		t.Fatal(err)
	}
	if confs, err := gen(); err != nil || int64(len(confs)) != total {
		t.Errorf("idle, ℓ = 2: %d configurations generated (%v), counted %d", len(confs), err, total)
	}
}
