package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ocbench/ocbench/results"
)

// interruptCode is the exit status after Ctrl-C or SIGTERM: 128 + SIGINT.
const interruptCode = 130

// runsMu guards what an interrupt's save reads while the runs go on: a
// finished's runs and the MPI job's records (runtimeInfo.records).
var runsMu sync.Mutex

// finished holds the runs finished so far, in the order of the
// configurations, for the save of an interrupted run.
type finished struct {
	runs [][]*results.Run
}

// add records the finished run r of configuration c.
func (f *finished) add(c int, r *results.Run) {
	runsMu.Lock()
	defer runsMu.Unlock()
	f.runs[c] = append(f.runs[c], r)
}

// interrupted is what an interrupt needs to end the run: where the runs
// are saved, the trace file to remove, the progress line to erase.
type interrupted struct {
	o       *options
	list    []config
	done    *finished
	sv      *saver
	prog    *progress
	trace   *os.File // the --trace file, if any: removed if a regular file
	stderr  io.Writer
	exit    func(int) // os.Exit; tests replace it
	signals chan os.Signal
	stop    chan struct{}
}

// catchInterrupts makes Ctrl-C (SIGINT) and SIGTERM end the run: on rank 0
// (or in the simulator) the runs finished so far are saved, marked as
// partial, one line says what was saved, an unfinished trace file is
// removed, and the process exits with status 130; other MPI ranks just
// exit with 130 (mpirun sends the signal to every rank, or ends them when
// one exits). The run in progress is abandoned. Call release once the runs
// are over: a signal after that is caught and ignored, so that the save
// and the output, which follow, complete; and stop when they are done.
func catchInterrupts(it *interrupted) (release, stop func()) {
	if it.exit == nil {
		it.exit = os.Exit
	}
	it.signals = make(chan os.Signal, 1)
	it.stop = make(chan struct{})
	signal.Notify(it.signals, interruptSignals(it.o)...)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		select {
		case <-it.signals:
			it.exit(it.end())
		case <-it.stop:
		}
	}()
	var once sync.Once
	release = func() {
		once.Do(func() {
			close(it.stop)
			<-ended
		})
	}
	return release, func() {
		release()
		signal.Stop(it.signals)
	}
}

// interruptSignals are the signals that interrupt a run: SIGINT and
// SIGTERM, and under MPI SIGUSR2, which Open MPI's mpirun forwards to every
// rank (scripts/mpirun.sh sends it on SIGINT and SIGTERM). mpirun itself
// answers SIGINT and SIGTERM by ending the job: SIGCONT, SIGTERM to every
// rank, SIGKILL a second later, and its own exit status 1, whatever the
// ranks' (docs/mpi.md).
func interruptSignals(o *options) []os.Signal {
	if o != nil && o.runtimeInfo != nil {
		return []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGUSR2}
	}
	return []os.Signal{os.Interrupt, syscall.SIGTERM}
}

// interrupting is set once a signal interrupts the run: a rank's failure
// from then on is the interrupt's doing (rank 0 ended the job), not news.
var interrupting atomic.Bool

// rankGrace is how long an interrupted MPI rank other than 0 waits before
// it exits: rank 0 saves, says so, and exits with status 130 first, which
// ends the job (mpirun reports the first rank's status and ends the
// others); an earlier exit of another rank would end rank 0 before its
// save.
var rankGrace = 10 * time.Second

// end saves the finished runs and says so in one line; it returns the
// exit status.
func (it *interrupted) end() int {
	interrupting.Store(true)
	it.prog.finish()
	if ri := it.o.runtimeInfo; ri != nil && ri.rank != 0 {
		time.Sleep(rankGrace)
		return interruptCode
	}
	removed := ""
	if it.trace != nil {
		it.trace.Close()
		if st, err := os.Stat(it.trace.Name()); err == nil && st.Mode().IsRegular() && os.Remove(it.trace.Name()) == nil {
			removed = "; removed the unfinished trace " + it.trace.Name()
		}
	}
	runsMu.Lock()
	defer runsMu.Unlock()
	rep := &results.Report{}
	n := 0
	var list []config
	for c, runs := range it.done.runs {
		if len(runs) == 0 {
			continue
		}
		n += len(runs)
		r := results.Merge(runs)
		if p := it.list[c].paper; p > 0 {
			r.Paper = &results.PaperComparison{PerFailure: p, Ratio: r.OverheadPerFailure.Mean / p}
		}
		rep.Runs = append(rep.Runs, r)
		list = append(list, it.list[c])
	}
	switch {
	case n == 0:
		fmt.Fprintf(it.stderr, "ocbench: interrupted; nothing saved (no run had finished)%s\n", removed)
	case it.sv == nil:
		fmt.Fprintf(it.stderr, "ocbench: interrupted; nothing saved (saving is off) though %d %s had finished%s\n", n, plural(n, "run", "runs"), removed)
	default:
		path, err := it.sv.savePartial(it.o, list, rep, n, len(it.list)*it.o.repeat)
		if err != nil {
			fmt.Fprintf(it.stderr, "ocbench: interrupted; saving the %d finished %s failed: %v%s\n", n, plural(n, "run", "runs"), err, removed)
			return interruptCode
		}
		fmt.Fprintf(it.stderr, "ocbench: interrupted; saved %d finished %s as partial to %s%s\n", n, plural(n, "run", "runs"), path, removed)
	}
	return interruptCode
}

// savePartial saves rep, the runs finished of an interrupted run (done of
// total), marked as partial; it returns the file's path.
func (s *saver) savePartial(o *options, list []config, rep *results.Report, done, total int) (string, error) {
	env := environment(o, list)
	env.Partial = true
	env.Header = append(env.Header, fmt.Sprintf("PARTIAL: interrupted after %d of %d runs; the runs that had finished", done, total))
	v := results.Invalid(fmt.Sprintf("interrupted after %d of %d runs", done, total))
	env.Validation = &v
	path, err := results.Save(s.dir, &results.Saved{Environment: env, Runs: rep.Runs}, nil)
	if err != nil {
		return "", err
	}
	if rel, err := filepath.Rel(".", path); err == nil && !filepath.IsAbs(s.dir) {
		path = rel
	}
	return path, nil
}

// plural returns one if n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
