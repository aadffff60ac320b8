package bench

import (
	"math"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/internal/field"
)

// TestBounds: Validate refuses every input outside its bounds with an error
// naming the flag and the range, and takes those at the bounds.
func TestBounds(t *testing.T) {
	base := Spec{Algorithm: "opencube", Nodes: 32, Requests: 10, Workload: "poisson", Delta: 1e-3, CSTime: 1,
		Faults: faults.FaultPlan{Crashes: 5, Spacing: "exp", Every: 50, Down: 20, DownDist: "exp", Target: "random"}}
	cases := []struct {
		name string
		edit func(*Spec)
		flag string // "" if valid
	}{
		{"think huge", func(s *Spec) { s.Think = 1e308 }, "Think"},
		{"think negative", func(s *Spec) { s.Think = -1 }, "Think"},
		{"think NaN", func(s *Spec) { s.Think = math.NaN() }, "Think"},
		{"think tiny", func(s *Spec) { s.Think = 1e-300 }, "Think"},
		{"think at most", func(s *Spec) { s.Think = field.MaxTime }, ""},
		{"think at least", func(s *Spec) { s.Think = MinThink }, ""},
		{"cs-time 0, think given", func(s *Spec) { s.CSTime, s.Think = 0, 10 }, ""},
		{"cs-time 0, sequential", func(s *Spec) { s.CSTime, s.Workload = 0, "sequential" }, ""},
		{"cs-time 0, saturated with crashes", func(s *Spec) { s.CSTime, s.Workload = 0, "saturated" }, "CSTime"},
		{"cs-time huge", func(s *Spec) { s.CSTime = 2e6 }, "CSTime"},
		{"cs-time Inf", func(s *Spec) { s.CSTime = math.Inf(1) }, "CSTime"},
		{"delta huge", func(s *Spec) { s.Delta = 1e300 }, "Delta"},
		{"delta tiny", func(s *Spec) { s.Delta = 1e-300 }, "Delta"},
		{"cs-estimate huge", func(s *Spec) { s.CSEstimate = 1e300 }, "CSEstimate"},
		{"late factor huge", func(s *Spec) { s.LateFraction, s.LateFactor = 0.1, 1e300 }, "LateFactor"},
		{"late factor 1", func(s *Spec) { s.LateFraction, s.LateFactor = 0.1, 1 }, "LateFactor"},
		{"crashes huge", func(s *Spec) { s.Faults.Crashes = faults.MaxCrashes + 1 }, "Faults.Crashes"},
		{"crashes on 2 nodes", func(s *Spec) { s.Nodes = 2 }, "Faults.Crashes"},
		{"crash gap huge", func(s *Spec) { s.Faults.Every = 1e308 }, "Faults.Every"},
		{"crash gap Inf", func(s *Spec) { s.Faults.Every = math.Inf(1) }, "Faults.Every"},
		{"crash gap 0", func(s *Spec) { s.Faults.Every = 0 }, "Faults.Every"},
		{"crash gap tiny", func(s *Spec) { s.Faults.Every = 1e-300 }, "Faults.Every"},
		{"crash gap below the floor", func(s *Spec) { s.Faults.Every = faults.MinGap / 2 }, "Faults.Every"},
		{"crash gap at the floor", func(s *Spec) { s.Faults.Every = faults.MinGap }, ""},
		{"fixed crash gap below the floor", func(s *Spec) { s.Faults.Spacing, s.Faults.Every = "fixed", 1e-6 }, "Faults.Every"},
		{"crash start huge", func(s *Spec) { s.Faults.Start = 1e308 }, "Faults.Start"},
		{"downtime huge", func(s *Spec) { s.Faults.Down = 1e308 }, "Faults.Down"},
		{"downtime tiny", func(s *Spec) { s.Faults.Down = 1e-300 }, "Faults.Down"},
		{"downtime 0", func(s *Spec) { s.Faults.Down = 0 }, "Faults.Down"},
		{"downtime at the floor", func(s *Spec) { s.Faults.Down = faults.MinGap }, ""},
		{"permanent above N−3", func(s *Spec) { s.Nodes, s.Faults.Crashes, s.Faults.Permanent = 8, 30, 0.2 }, "Faults.Permanent"},
		{"permanent at N−3", func(s *Spec) { s.Nodes, s.Faults.Crashes, s.Faults.Permanent = 8, 25, 0.2 }, ""},
	}
	for _, c := range cases {
		s := base
		c.edit(&s)
		err := s.Validate()
		switch {
		case c.flag == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.flag != "" && (err == nil || !strings.HasPrefix(err.Error(), c.flag+":") || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s: got %v, want one line starting %s:", c.name, err, c.flag)
		}
	}
}
