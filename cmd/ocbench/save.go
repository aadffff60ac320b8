package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
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
	args   []string // the command line, for the saved environment
}

// defaultOut is the default results directory; runs go in its runs/.
const defaultOut = "."

// addSaveFlags adds the flags of saveOptions to fs.
func addSaveFlags(fs *pflag.FlagSet, o *saveOptions) {
	fs.StringVar(&o.out, "out", defaultOut, "directory whose "+results.RunsDir+"/ gets every run, as a new JSON file and a row of runs.csv ('' or --no-save: don't save)")
	fs.BoolVar(&o.noSave, "no-save", false, "don't save the run (same as --out '')")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "no progress bar and no 'saved' line on stderr")
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
	if err := os.MkdirAll(filepath.Join(s.dir, results.RunsDir), 0o755); err != nil {
		if s.explicit {
			return nil, fmt.Errorf("--out: cannot create the results directory: %w (--no-save runs without saving)", err)
		}
		fmt.Fprintf(stderr, "ocbench: warning: not saving this run: %v (choose a directory with --out, or --no-save)\n", err)
		return nil, nil
	}
	return s, nil
}

// save writes rep with its environment; it reports where on stderr unless
// quiet. A failure to save is returned only if the directory was explicit.
func (s *saver) save(o *options, list []config, rep *results.Report, stderr io.Writer) error {
	if s == nil {
		return nil
	}
	saved := &results.Saved{Environment: environment(o, list), Runs: rep.Runs}
	path, err := results.Save(s.dir, saved)
	switch {
	case err != nil && s.explicit:
		return fmt.Errorf("--out: %w", err)
	case err != nil:
		fmt.Fprintf(stderr, "ocbench: warning: %v\n", err)
	case !o.save.quiet:
		fmt.Fprintf(stderr, "ocbench: saved %s (and a row per run in %s)\n", path, filepath.Join(s.dir, results.RunsDir, results.CSVName))
	}
	return nil
}

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
		Command:      results.QuoteCommand(append([]string{"ocbench"}, o.save.args...)),
		Header:       header(o, list),
	}
	if mpi.Compiled() {
		e.MPILibrary = mpi.LibraryVersion()
	}
	if ri := o.runtimeInfo; ri != nil {
		e.Runtime, e.Ranks, e.Placement = "mpi", ri.ranks, ri.placement
		e.Command = results.QuoteCommand(append([]string{"mpirun", "-np", fmt.Sprint(ri.ranks), "ocbench"}, o.save.args...))
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

// commitStamp is the commit, set at build time with
// -ldflags "-X main.commitStamp=..." (the Makefile does) when the build
// cannot stamp VCS information itself (-buildvcs=false).
var commitStamp = ""

// commit returns the VCS revision the binary was built from (with "-dirty"
// for uncommitted changes); under `go run` or `go test`, which do not stamp
// it, the revision of the git checkout in the working directory, if any.
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
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		rev += "-dirty"
	}
	return rev
}
