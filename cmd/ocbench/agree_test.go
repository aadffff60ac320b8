package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestSimUnderMPIRun: the simulator under mpirun with several ranks is
// refused with one line and status 2 (every rank would run and save the
// same runs); with one rank it runs.
func TestSimUnderMPIRun(t *testing.T) {
	t.Setenv("OMPI_COMM_WORLD_SIZE", "4")
	t.Setenv("OMPI_COMM_WORLD_RANK", "0")
	var out, errb bytes.Buffer
	code := run([]string{"--runtime", "sim", "--nodes", "8", "--requests", "5", "--no-save"}, &out, &errb)
	if code != 2 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "--runtime sim: the simulator runs in one process") || out.Len() != 0 {
		t.Errorf("exit %d, stderr %q, stdout %d bytes", code, errb.String(), out.Len())
	}
	t.Setenv("OMPI_COMM_WORLD_SIZE", "1")
	out.Reset()
	errb.Reset()
	if code := run([]string{"--runtime", "sim", "--nodes", "8", "--requests", "5", "--no-save"}, &out, &errb); code != 0 {
		t.Errorf("one rank: exit %d, stderr %q", code, errb.String())
	}
}

// TestFlagValue: the ranks compare a list flag as given, without pflag's
// brackets ("rank 2 has --nodes 3").
func TestFlagValue(t *testing.T) {
	var o options
	fs := newFlags(&o)
	if err := fs.Parse([]string{"--nodes", "8,16", "--delta", "0.002"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"nodes": "8,16", "delta": "0.002", "algo": "opencube"} {
		if got := flagValue(fs.Lookup(name)); got != want {
			t.Errorf("--%s: %q, want %q", name, got, want)
		}
	}
	for name := range rank0Flags {
		if fs.Lookup(name) == nil {
			t.Errorf("rank0Flags names --%s, which is no flag", name)
		}
	}
}
