package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/ocbench/ocbench/mpi"
	"github.com/ocbench/ocbench/results"
)

// saveOptions are the flags about saving runs and showing progress.
type saveOptions struct {
	out    string
	noSave bool
	quiet  bool
	force  bool     // --trace may overwrite an existing file
	args   []string // the command line, for the saved environment
}

// defaultOut is the default results directory; runs go in its runs/.
const defaultOut = "."

// addSaveFlags adds the flags of saveOptions to fs.
func addSaveFlags(fs *pflag.FlagSet, o *saveOptions) {
	fs.StringVar(&o.out, "out", defaultOut, "directory whose "+results.RunsDir+"/ gets every run, as a new JSON file and a row of runs.csv ('' or --no-save: don't save)")
	fs.BoolVar(&o.noSave, "no-save", false, "don't save the run (same as --out '')")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "no progress bar and no 'saved' line on stderr")
	fs.BoolVar(&o.force, "force", false, "let --trace overwrite an existing file (refused without it)")
}

// saver saves the run's record once it is done; nil when saving is off.
type saver struct {
	dir      string
	explicit bool // --out given: failing to save is an error, not a warning
}

// newSaver checks that the results directory can be created before anything
// runs, so that a long run is not lost at the end. With the default
// directory, a failure is a warning on stderr and the run goes on unsaved;
// with --out, it is an error.
func newSaver(o *saveOptions, fs *pflag.FlagSet, stderr io.Writer) (*saver, error) {
	if o.noSave || o.out == "" {
		return nil, nil
	}
	s := &saver{dir: o.out, explicit: fs.Changed("out")}
	runs := filepath.Join(s.dir, results.RunsDir)
	err := os.MkdirAll(runs, 0o755)
	if err != nil {
		err = fmt.Errorf("cannot create the results directory: %w", err)
	} else {
		err = checkSavable(runs)
	}
	if err != nil {
		if s.explicit {
			return nil, fmt.Errorf("--out: %w (--no-save runs without saving)", err)
		}
		fmt.Fprintf(stderr, "ocbench: warning: not saving this run: %v (choose a directory with --out, or --no-save)\n", err)
		return nil, nil
	}
	return s, nil
}

// checkSavable makes, before anything runs, the calls that saving into
// the runs directory runs will make (results.Save): a new file in it
// (created, then removed) and runs.csv opened to append, if it exists. A
// read-only directory or runs.csv, a full or read-only file system, are
// found now whatever the user (root is refused by neither permission
// bits nor this check, only by what refuses root too).
func checkSavable(runs string) error {
	f, err := os.CreateTemp(runs, ".ocbench-check-*.tmp")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", runs, err)
	}
	f.Close()
	if err := os.Remove(f.Name()); err != nil {
		return fmt.Errorf("cannot remove a file in %s: %w", runs, err)
	}
	path := filepath.Join(runs, results.CSVName)
	c, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("cannot append to %s: %w", path, err)
	}
	return c.Close()
}

// save writes rep with its environment and returns the saved file's path
// ("" if not saved); it reports where on stderr unless quiet, and warns of
// a partial CSV row it set aside (quiet or not). A failure to save is
// returned only if the directory was explicit.
func (s *saver) save(o *options, list []config, rep *results.Report, stderr io.Writer) (string, error) {
	if s == nil {
		return "", nil
	}
	saved := &results.Saved{Environment: environment(o, list), Runs: rep.Runs}
	saved.Environment.Validation = rep.Validation
	warn := func(msg string) { fmt.Fprintf(stderr, "ocbench: warning: %s\n", msg) }
	path, err := results.Save(s.dir, saved, warn)
	switch {
	case err != nil && s.explicit:
		return path, fmt.Errorf("--out: %w", err)
	case err != nil:
		warn(err.Error())
	case !o.save.quiet:
		fmt.Fprintf(stderr, "ocbench: saved %s (and a row per run in %s)\n", path, filepath.Join(s.dir, results.RunsDir, results.CSVName))
	}
	return path, nil
}

// createTrace creates the --trace file. An existing regular file is
// refused unless force (--force): a mistyped path must not overwrite a
// saved run, runs.csv or an earlier trace. A device or a named pipe
// (/dev/stdout, a FIFO) is opened as it is, without truncating.
func createTrace(path string, force bool) (*os.File, error) {
	st, err := os.Stat(path)
	switch {
	case err == nil && !st.Mode().IsRegular() && !st.IsDir():
		return os.OpenFile(path, os.O_WRONLY, 0)
	case err == nil && !force:
		return nil, fmt.Errorf("%s exists (--force overwrites it)", path)
	case force:
		return os.Create(path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("%s exists (--force overwrites it)", path)
	}
	return f, err
}

// outputError is the error of a run whose output could not be written
// (err): it says whether the run was saved anyway, and prints a failure to
// save (saveErr) first.
func outputError(err error, saved string, saveErr error, stderr io.Writer) error {
	if saveErr != nil {
		fmt.Fprintf(stderr, "ocbench: %v\n", saveErr)
	}
	if saved != "" {
		return fmt.Errorf("writing the output: %w (the run is saved in %s)", err, saved)
	}
	return fmt.Errorf("writing the output: %w", err)
}

// ignoreSIGPIPE makes a write to a closed pipe on stdout fail with EPIPE,
// which execute reports in one line, instead of killing the process with
// SIGPIPE (status 141): the run is saved before anything is printed.
func ignoreSIGPIPE() { signal.Ignore(syscall.SIGPIPE) }

// clock is the time of a save (tests replace it).
var clock = time.Now

// environment describes this run for the saved file.
func environment(o *options, list []config) results.Environment {
	host, _ := os.Hostname()
	e := results.Environment{
		Version:      version,
		Commit:       commit(),
		GoVersion:    runtime.Version(),
		Runtime:      "simulator",
		Hostnames:    []string{host},
		Ranks:        1,
		DeltaSeconds: o.delta,
		Seed:         o.seed,
		Repeat:       o.repeat,
		Preset:       o.preset,
		Command:      savedCommand(o),
		Header:       header(o, list),
		Date:         clock().UTC().Format(time.RFC3339),
		Host:         results.ReadHost(),
	}
	if !o.started.IsZero() {
		e.Started = o.started.UTC().Format(time.RFC3339)
	}
	if mpi.Compiled() {
		e.MPILibrary = mpi.LibraryVersion()
	}
	if ri := o.runtimeInfo; ri != nil && ri.farm {
		e.Runtime, e.Ranks = "mpi task farm", ri.ranks
		e.Command = results.QuoteCommand(append([]string{"mpirun", "-np", fmt.Sprint(ri.ranks), "ocbench"}, o.save.args...))
	} else if ri != nil {
		e.Runtime, e.Ranks, e.Placement = "mpi", ri.ranks, ri.placement
		e.Hostnames = nil
		seen := map[string]bool{}
		for _, r := range ri.records {
			for _, h := range r.Hosts {
				if !seen[h] {
					seen[h] = true
					e.Hostnames = append(e.Hostnames, h)
				}
			}
		}
	}
	return e
}

// savedCommand is the command that ran, shell-quoted: ocbench and its
// arguments, after mpirun -np P under MPI.
func savedCommand(o *options) string {
	if ri := o.runtimeInfo; ri != nil {
		return results.QuoteCommand(append([]string{"mpirun", "-np", fmt.Sprint(ri.ranks), "ocbench"}, o.save.args...))
	}
	return results.QuoteCommand(append([]string{"ocbench"}, o.save.args...))
}

// commitStamp is the commit, set at build time with
// -ldflags "-X main.commitStamp=..." (the Makefile does) when the build
// cannot stamp VCS information itself (-buildvcs=false).
var commitStamp = ""

// commit returns the VCS revision the binary was built from (with "-dirty"
// for uncommitted changes): commitStamp if set, else the revision `go
// build` stamped, else "unknown" (`go run`, `go test`, -buildvcs=false
// without the stamp). Never that of the git checkout the current directory
// is in, which need not be the one the binary was built from.
func commit() string {
	if commitStamp != "" {
		return commitStamp
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, kv := range bi.Settings {
			switch kv.Key {
			case "vcs.revision":
				rev = kv.Value
			case "vcs.modified":
				dirty = kv.Value == "true"
			}
		}
		if rev != "" {
			if dirty {
				rev += "-dirty"
			}
			return rev
		}
	}
	return "unknown"
}
