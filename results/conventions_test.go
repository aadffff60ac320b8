package results

import (
	"math"
	"strings"
	"testing"
)

// TestConventions: each count adds or removes its messages from the run's
// failure-cause total, the shown one is the overhead/failure mean, and the
// eight are distinct.
func TestConventions(t *testing.T) {
	r := testRun("ocbench")
	for _, tc := range []struct {
		c    Convention
		name string
		want float64
	}{
		{ShownCount, "AR", 7.5},
		{Convention{Announcements: true, Reissued: true, Detection: true}, "ARH", 7.8},
		{Convention{Reissued: true}, "R", 6.7},
		{Convention{Announcements: true}, "A", 7.3},
		{Convention{}, "-", 6.5},
		{Convention{Detection: true}, "H", 6.8},
	} {
		got, ok := tc.c.PerFailure(r)
		if !ok || math.Abs(got-tc.want) > 1e-9 || tc.c.String() != tc.name {
			t.Errorf("%+v: %q %v (ok %v), want %q %v", tc.c, tc.c.String(), got, ok, tc.name, tc.want)
		}
	}
	seen := map[Convention]bool{}
	for _, c := range Conventions {
		seen[c] = true
	}
	if len(Conventions) != 8 || len(seen) != 8 || Conventions[0] != ShownCount {
		t.Errorf("Conventions = %v, want the 8 counts, the shown one first", Conventions)
	}
	if _, ok := ShownCount.PerFailure(&Run{}); ok {
		t.Error("a run without failures has an overhead per failure")
	}
}

// TestIPSC2Lines: the lines name the protocol and the count of the ratio,
// and give each run's range over the counts; none without a paper figure.
func TestIPSC2Lines(t *testing.T) {
	r := testRun("paper")
	h := strings.Join(IPSC2Lines([]*Run{r}), "\n")
	for _, want := range []string{"protocol paper under count AR", "N = 32", "AR 7.50 (0.94)", "range 6.50–7.80 (0.81–0.97)"} {
		if !strings.Contains(h, want) {
			t.Errorf("IPSC2Lines lacks %q:\n%s", want, h)
		}
	}
	r.Paper = nil
	if h := IPSC2Lines([]*Run{r}); h != nil {
		t.Errorf("without a paper figure: %q, want none", h)
	}
}

// testRun is a run of 10 failures, 75 failure-cause messages of which 8
// announcements and 2 re-issued requests, and 3 heartbeats.
func testRun(protocol string) *Run {
	r := &Run{Algorithm: "opencube", Nodes: 32}
	r.Failures, r.Protocol = 10, protocol
	r.OverheadPerFailure = Estimate{Mean: 7.5}
	r.OverheadByType = map[string]int64{"regenerate": 8, "request": 2, "test": 50}
	r.MessagesByCause = map[string]int64{"failure": 75, "liveness": 3}
	r.Paper = &PaperComparison{PerFailure: 8, Ratio: 7.5 / 8}
	return r
}
