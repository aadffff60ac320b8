package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/ocbench/ocbench/bench"
)

// progress shows how far the runs have got on stderr, in one line redrawn
// in place: failures injected of the total (runs with crashes) or requests
// served of the total, elapsed time and time left, counted over every run
// under way (the workers of --jobs, the runs of an MPI job). The line is at
// most the terminal's width less one (so that the terminal never wraps it
// onto a second line, which a redraw from its start would leave behind),
// measured at every redraw. It is nil (and costs nothing) when stderr is
// not a terminal or with --quiet.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	width    func() int // the terminal's columns
	now      func() time.Time
	start    time.Time
	drawn    time.Time // when the line was last drawn
	shown    bool      // a line is on the screen
	crashes  bool
	its      string // what the bar counts: "failures injected" or "requests served"
	total    int64  // failures or requests in all
	runs     int    // runs in all
	batch    int    // runs under way (the workers' runs, an MPI job's)
	run      int    // runs finished
	doneBase int64  // failures or requests of the finished runs
	served   int64  // requests served by the finished runs
	live     []*runSlot
}

// runSlot is what one callback has reported of the runs it covers, while
// they are under way.
type runSlot struct {
	v, served int64 // failures or requests so far; requests served so far
	runs      int   // runs it covers (at least 1)
}

// progressEvery is the least time between two redraws.
const progressEvery = 200 * time.Millisecond

// fallbackWidth is the width of a terminal whose size cannot be read.
const fallbackWidth = 80

// newProgress returns the progress display of the runs in list, each
// repeated repeat times, or nil. Under mpirun, a rank's stderr is a pipe
// to mpirun, which copies what comes through it to its own stderr as it
// comes: rank 0 shows progress when that is a terminal (mpiTerminal), and
// follows the terminal's width.
func newProgress(quiet bool, stderr io.Writer, list []config, repeat int) *progress {
	f, ok := stderr.(*os.File)
	if quiet || !ok {
		return nil
	}
	if term.IsTerminal(int(f.Fd())) {
		return newProgressTo(f, func() int { return termWidth(f) }, list, repeat)
	}
	if tty := mpiTerminal(); tty != nil {
		return newProgressTo(f, func() int { return termWidth(tty) }, list, repeat)
	}
	return nil
}

// mpiTerminal returns the terminal of mpirun's stderr, opened for reading
// its size, when this process is rank 0 of a job that mpirun started on
// this machine (mpirun is its parent: Open MPI starts the local ranks
// itself) and mpirun's stderr is a terminal; else nil (no /proc, a rank
// started by a remote daemon, output to a file).
func mpiTerminal() *os.File {
	if _, me, ok := launcher(); !ok || me != 0 {
		return nil
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/fd/2", os.Getppid()))
	if err != nil {
		return nil
	}
	if !term.IsTerminal(int(f.Fd())) {
		f.Close()
		return nil
	}
	return f
}

// newProgressTo returns the progress display of list on w, a terminal of
// width() columns.
func newProgressTo(w io.Writer, width func() int, list []config, repeat int) *progress {
	p := &progress{w: w, width: width, now: time.Now, runs: len(list) * repeat, its: "requests served"}
	p.start = p.now()
	for _, c := range list {
		if c.spec.Faults.Crashes > 0 {
			p.crashes, p.its = true, "failures injected"
		}
	}
	for _, c := range list {
		if p.crashes {
			p.total += int64(c.spec.Faults.Crashes) * int64(repeat)
		} else {
			p.total += c.spec.Requests * int64(repeat)
		}
	}
	return p
}

// termWidth is the width of the terminal f, or fallbackWidth.
func termWidth(f *os.File) int {
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil || w <= 0 {
		return fallbackWidth
	}
	return w
}

// describe is the text before the bar: which run, or which runs are under
// way at once (--jobs, an MPI job).
func (p *progress) describe() string {
	if p.batch > 1 {
		return fmt.Sprintf("runs %d–%d/%d", min(p.run+1, p.runs), min(p.run+p.batch, p.runs), p.runs)
	}
	return fmt.Sprintf("run %d/%d", min(p.run+1, p.runs), p.runs)
}

// extra is what the line says after the count when there is room: with
// crashes, the requests served so far (served of the runs under way).
func (p *progress) extra(served int64) string {
	if !p.crashes {
		return ""
	}
	return fmt.Sprintf(", %d requests served", p.served+served)
}

// callback returns the bench.Spec.Progress of the next run (or MPI job),
// or nil. The callbacks of runs under way at once (--jobs) may be called
// from their own goroutines: the line adds them up.
func (p *progress) callback() func(bench.Progress) {
	if p == nil {
		return nil
	}
	slot := &runSlot{}
	return func(b bench.Progress) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if !slices.Contains(p.live, slot) {
			p.live = append(p.live, slot)
		}
		slot.v, slot.served, slot.runs = b.Served, b.Served, max(b.Runs, 1)
		if p.crashes {
			slot.v = int64(b.Failures)
		}
		p.batch = 0
		v, served := p.doneBase, int64(0)
		for _, l := range p.live {
			p.batch += l.runs
			v += l.v
			served += l.served
		}
		if now := p.now(); now.Sub(p.drawn) >= progressEvery || b.Done {
			p.drawn = now
			fmt.Fprintf(p.w, "\r%s\x1b[K", p.line(v, p.extra(served), now, p.width()))
			p.shown = true
		}
		if b.Done {
			p.doneBase += slot.v
			p.served += slot.served
			p.run += slot.runs
			p.live = slices.DeleteFunc(p.live, func(l *runSlot) bool { return l == slot })
		}
	}
}

// line is the progress line for done of the total at now, extra after the
// count, in at most width−1 runes: "run 2/10 [=====     ] 23% 345/1500
// failures injected, 4000 requests served (12s, ~40s left)". Where it does
// not fit, extra goes first, then the bar; then the line is cut.
func (p *progress) line(done int64, extra string, now time.Time, width int) string {
	done = min(done, p.total)
	elapsed := now.Sub(p.start).Round(time.Second)
	times := elapsed.String()
	if done > 0 && done < p.total {
		left := time.Duration(float64(now.Sub(p.start)) * float64(p.total-done) / float64(done)).Round(time.Second)
		times += ", ~" + left.String() + " left"
	}
	pct := 0
	if p.total > 0 {
		pct = int(100 * done / p.total)
	}
	desc := p.describe()
	count := fmt.Sprintf(" %3d%% %d/%d %s", pct, done, p.total, p.its)
	room := width - 1
	for _, ex := range []string{extra, ""} {
		right := count + ex + " (" + times + ")"
		bar := min(room-utf8.RuneCountInString(desc)-utf8.RuneCountInString(right)-3, 30) // " [" and "]"
		if bar >= minBar {
			fill := 0
			if p.total > 0 {
				fill = int(int64(bar) * done / p.total)
			}
			return desc + " [" + strings.Repeat("=", fill) + strings.Repeat(" ", bar-fill) + "]" + right
		}
	}
	return truncate(desc+count+extra+" ("+times+")", room)
}

// minBar is the narrowest bar drawn.
const minBar = 10

// truncate cuts s to at most n runes.
func truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// finish removes the line.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
	p.w = io.Discard // a run still going after an interrupt draws nothing more
}
