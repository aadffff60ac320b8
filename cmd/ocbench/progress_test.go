package main

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
)

// TestProgressDescribe: the text before the bar says which run it is, or
// which runs an MPI job runs at once.
func TestProgressDescribe(t *testing.T) {
	cases := []struct {
		p    *progress
		want string
	}{
		{&progress{runs: 3}, "run 1/3"},
		{&progress{runs: 3, run: 3}, "run 3/3"},
		{&progress{runs: 300, run: 64, batch: 64}, "runs 65–128/300"},
		{&progress{runs: 100, run: 64, batch: 64}, "runs 65–100/100"},
	}
	for _, c := range cases {
		if got := c.p.describe(); got != c.want {
			t.Errorf("describe = %q, want %q", got, c.want)
		}
	}
}

// TestProgressFitsTerminal: whatever the terminal's width, every redraw
// goes back to the line's start, erases what is left of the old line and
// takes at most width−1 columns, so that the terminal never wraps it and
// redraws never stack; a resize between redraws is followed.
func TestProgressFitsTerminal(t *testing.T) {
	list := []config{{spec: bench.Spec{Nodes: 32, Requests: 1, Faults: faults.FaultPlan{Crashes: 300}}},
		{spec: bench.Spec{Nodes: 64, Requests: 1, Faults: faults.FaultPlan{Crashes: 200}}}}
	for _, width := range []int{1, 10, 40, 80, 100, 200} {
		var b strings.Builder
		clock := time.Unix(0, 0)
		w := width
		p := newProgressTo(&b, func() int { return w }, list, 5)
		p.now = func() time.Time { clock = clock.Add(time.Second); return clock }
		cb := p.callback()
		for k := range 10 {
			for f := range 10 {
				cb(bench.Progress{Served: int64(100 * f), Failures: 30 * f})
			}
			cb(bench.Progress{Served: 1000, Failures: 300, Done: true})
			if k == 5 {
				w = width/2 + 1 // the terminal shrinks
			}
		}
		p.finish()
		out := b.String()
		if strings.Contains(out, "\n") {
			t.Errorf("width %d: a newline in the progress output", width)
		}
		draws := strings.Split(out, "\r")[1:]
		if len(draws) < 100 {
			t.Fatalf("width %d: %d redraws, want at least 100", width, len(draws))
		}
		for i, d := range draws[:len(draws)-1] {
			text, ok := strings.CutSuffix(d, "\x1b[K")
			limit := width - 1
			if i >= 66 { // after the shrink
				limit = width/2 + 1 - 1
			}
			if !ok || utf8.RuneCountInString(text) > limit {
				t.Errorf("width %d: redraw %d is %q (%d runes), want at most %d and an erase", width, i, text, utf8.RuneCountInString(text), limit)
			}
		}
		if last := draws[len(draws)-1]; last != "\x1b[K" {
			t.Errorf("width %d: finish left %q, want the line erased", width, last)
		}
	}
	var b strings.Builder
	p := newProgressTo(&b, func() int { return 120 }, list, 5)
	for _, c := range []struct {
		width int
		want  string
	}{
		{120, "run 1/10 [===============               ]  50% 1250/2500 failures injected, 400 requests served (10s, ~10s left)"},
		{80, "run 1/10 [=========         ]  50% 1250/2500 failures injected (10s, ~10s left)"},
		{40, "run 1/10  50% 1250/2500 failures inject"},
	} {
		if got := p.line(1250, p.extra(400), p.start.Add(10*time.Second), c.width); got != c.want {
			t.Errorf("width %d: line at half way\n%q, want\n%q", c.width, got, c.want)
		}
	}
}
