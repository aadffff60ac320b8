package main

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/mpi"
	"github.com/ocbench/ocbench/rank"
	"github.com/ocbench/ocbench/wire"
)

// rank0Flags are the flags that only rank 0 reads (its output and where it
// saves): the ranks need not agree on them, and the others' are overridden
// (runMPI).
var rank0Flags = map[string]bool{"out": true, "no-save": true, "quiet": true, "json": true, "help": true}

// agreeRanks makes the ranks of the MPI job agree before anything runs:
// every rank calls it once, right after its flags are parsed and its
// configurations built, whether that succeeded (list) or not (refusal, bad
// input this rank found). The ranks compare the build, every flag but
// rank0Flags, and every spec of the job (rank.Agree); any difference, or a
// refusal on any rank, ends every rank with status 2 and one line from
// rank 0. On agreement it sets the job's digest, which every frame then
// carries.
func agreeRanks(o *options, fs *pflag.FlagSet, list []config, refusal error) error {
	terms := []rank.Term{{Name: "build", Value: buildID()}, {Name: "the command", Value: benchmarkCommand}}
	fs.VisitAll(func(f *pflag.Flag) {
		if !rank0Flags[f.Name] {
			terms = append(terms, rank.Term{Name: "--" + f.Name, Value: flagValue(f)})
		}
	})
	terms = append(terms, rank.Term{Name: "preset", Value: o.preset})
	if refusal == nil {
		specs := make([]bench.Spec, len(list))
		for k, c := range list {
			specs[k] = c.spec
		}
		terms = append(terms, rank.SpecTerms(specs)...)
	}
	me := rank.Agreement{Terms: terms}
	if refusal != nil {
		me.Refusal = refusal.Error()
	}
	comm := rank.MPI{}
	digest, err := rank.Agree(comm, me)
	var ae *rank.AgreementError
	switch {
	case errors.As(err, &ae):
		return usageError{err}
	case err != nil:
		return runError{fmt.Errorf("agreeing with the other ranks: %w", err)}
	}
	o.rt = o.mpiRuntime(comm, digest)
	if o.runtimeInfo != nil {
		o.runtimeInfo.agreed = refusal == nil
	}
	return nil
}

// flagValue is a flag's value as given: a list without pflag's brackets.
func flagValue(f *pflag.Flag) string {
	v := f.Value.String()
	if strings.HasSuffix(f.Value.Type(), "Slice") {
		v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
	}
	return v
}

// buildID names this build for the ranks to compare: the version, the Go
// toolchain, the frame format and the SHA-256 of the executable (two
// builds of one commit differ in it; ranks that run copies of one binary
// agree). It is read once.
var buildID = sync.OnceValue(func() string {
	id := fmt.Sprintf("ocbench %s (%s %s/%s, frames v%d, MPI %v)", version, runtime.Version(), runtime.GOOS, runtime.GOARCH, wire.Version, mpi.Compiled())
	sum, err := executableSum()
	if err != nil {
		return id + ", executable unreadable: " + err.Error()
	}
	return fmt.Sprintf("%s, executable sha256 %x", id, sum[:8])
})

// executableSum returns the SHA-256 of the running executable.
func executableSum() ([32]byte, error) {
	var sum [32]byte
	path, err := os.Executable()
	if err != nil {
		return sum, fmt.Errorf("finding the executable: %w", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return sum, fmt.Errorf("reading the executable: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, fmt.Errorf("reading the executable %s: %w", path, err)
	}
	h.Sum(sum[:0])
	return sum, nil
}
