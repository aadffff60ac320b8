package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/ocbench/ocbench/bench"
)

// progress shows how far the runs have got on stderr: failures injected of
// the total (runs with crashes) or requests served of the total, elapsed
// time and time left. It is nil (and costs nothing) when stderr is not a
// terminal or with --quiet.
type progress struct {
	bar      *progressbar.ProgressBar
	crashes  bool
	runs     int   // runs in all
	run      int   // runs finished
	doneBase int64 // failures or requests of the finished runs
	served   int64 // requests served by the finished runs
}

// newProgress returns the progress display of the runs in list, each
// repeated repeat times, or nil.
func newProgress(quiet bool, stderr io.Writer, list []config, repeat int) *progress {
	f, ok := stderr.(*os.File)
	if quiet || !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	p := &progress{runs: len(list) * repeat}
	var total int64
	for _, c := range list {
		if c.spec.Faults.Crashes > 0 {
			p.crashes = true
		}
	}
	for _, c := range list {
		if p.crashes {
			total += int64(c.spec.Faults.Crashes) * int64(repeat)
		} else {
			total += c.spec.Requests * int64(repeat)
		}
	}
	its := "requests"
	if p.crashes {
		its = "failures"
	}
	p.bar = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription(p.describe(0)),
		progressbar.OptionShowCount(),
		progressbar.OptionSetItsString(its),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetWidth(30),
		progressbar.OptionClearOnFinish(),
	)
	return p
}

// describe is the text before the bar, which names what the bar counts:
// requests served, or with crashes failures injected (the requests served
// so far are then in the text).
func (p *progress) describe(served int64) string {
	run := fmt.Sprintf("run %d/%d", min(p.run+1, p.runs), p.runs)
	if p.crashes {
		return fmt.Sprintf("%s, %d requests served; failures injected", run, p.served+served)
	}
	return run + "; requests served"
}

// callback returns the bench.Spec.Progress of the next run, or nil.
func (p *progress) callback() func(bench.Progress) {
	if p == nil {
		return nil
	}
	return func(b bench.Progress) {
		v := b.Served
		if p.crashes {
			v = int64(b.Failures)
		}
		p.bar.Describe(p.describe(b.Served))
		p.bar.Set64(p.doneBase + v)
		if b.Done {
			p.doneBase += v
			p.served += b.Served
			p.run += max(b.Runs, 1)
		}
	}
}

// finish removes the bar.
func (p *progress) finish() {
	if p != nil {
		p.bar.Finish()
		p.bar.Exit()
	}
}
