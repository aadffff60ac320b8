package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/rank"
	"github.com/ocbench/ocbench/workload"
)

// TestBatches: the simulator runs one run at a time; MPI runs the seeds and
// sizes of one algorithm at once, never two algorithms in one job, and
// never more than rank.MaxConcurrent runs.
func TestBatches(t *testing.T) {
	cfg := func(algo string, n int) config {
		return config{spec: bench.Spec{Algorithm: algo, Nodes: n, Seed: 1}}
	}
	ipsc2 := []config{cfg("opencube", 32), cfg("opencube", 64)}
	ft := []config{cfg("opencube", 32), cfg("opencube", 64), cfg("nishio", 32), cfg("nishio", 64)}
	mpi := &runtimeInfo{ranks: 32}
	for _, c := range []struct {
		name   string
		list   []config
		repeat int
		rt     *runtimeInfo
		want   string
	}{
		{"simulator", ipsc2, 2, nil, "[[{0 0}] [{0 1}] [{1 0}] [{1 1}]]"},
		{"ipsc2 under MPI", ipsc2, 5, mpi, "[[{0 0} {0 1} {0 2} {0 3} {0 4} {1 0} {1 1} {1 2} {1 3} {1 4}]]"},
		{"ft under MPI", ft, 1, mpi, "[[{0 0} {1 0}] [{2 0} {3 0}]]"},
		{"interleaved algorithms", []config{cfg("a", 8), cfg("b", 8), cfg("a", 16)}, 1, mpi, "[[{0 0} {2 0}] [{1 0}]]"},
		{"more than a job takes", ipsc2[:1], rank.MaxConcurrent + 1, mpi, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := &options{repeat: c.repeat, runtimeInfo: c.rt, rt: runtimeOf(c.rt)}
			b := batches(o, c.list)
			runs := 0
			for _, job := range b {
				runs += len(job)
				if len(job) > rank.MaxConcurrent {
					t.Errorf("a job of %d runs", len(job))
				}
				for _, r := range job {
					if a := c.list[r.c].spec.Algorithm; a != c.list[job[0].c].spec.Algorithm {
						t.Errorf("%s and %s in one job", a, c.list[job[0].c].spec.Algorithm)
					}
				}
			}
			if runs != len(c.list)*c.repeat {
				t.Errorf("%d runs, want %d", runs, len(c.list)*c.repeat)
			}
			if got := fmt.Sprint(b); c.want != "" && got != c.want {
				t.Errorf("batches %s, want %s", got, c.want)
			}
			if c.want == "" && len(b) != 2 {
				t.Errorf("%d jobs, want 2", len(b))
			}
		})
	}
	if got := describeBatch(ipsc2, batches(&options{repeat: 5, runtimeInfo: mpi, rt: runtimeOf(mpi)}, ipsc2)[0]); got != "runs opencube N=32 seeds 1..5, opencube N=64 seeds 1..5" {
		t.Errorf("describeBatch = %q", got)
	}
}

// runtimeOf returns the runtime that ri describes: MPI, or the simulator.
func runtimeOf(ri *runtimeInfo) bench.Runtime {
	if ri != nil {
		return rank.Runtime{}
	}
	return bench.Simulator{}
}

// TestWarnLong: under MPI a job that the estimate makes longer than ten
// minutes of wall-clock time is announced with its length; a short one is
// not.
func TestWarnLong(t *testing.T) {
	mpi := &runtimeInfo{ranks: 4}
	for _, c := range []struct {
		think float64
		want  string
	}{{1e6, "ocbench: warning: under MPI these runs last about 1h6m"}, {16, ""}} {
		s := bench.Spec{Algorithm: "opencube", Nodes: 8, Requests: 8, Workload: workload.Poisson, Delta: 4e-3, CSTime: 1, Think: c.think}
		o := &options{repeat: 1, runtimeInfo: mpi, rt: runtimeOf(mpi)}
		var errb strings.Builder
		warnLong(o, []config{{spec: s}}, &errb)
		if got := errb.String(); c.want == "" && got != "" || c.want != "" && !strings.HasPrefix(got, c.want) {
			t.Errorf("think %gδ: %q, want %q…", c.think, got, c.want)
		}
	}
}
