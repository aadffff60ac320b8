package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCheckTraceCommand: a trace written by --trace passes check-trace
// (status 0); a broken one fails (1); a missing file is bad input (2).
func TestCheckTraceCommand(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "run.jsonl")
	if code := run([]string{"--nodes", "16", "--requests", "20", "--workload", "poisson", "--trace", good, "--no-save", "--quiet"}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("the run exited %d", code)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	bad := filepath.Join(dir, "bad.jsonl")
	// Without its first request line (father lines come first), the first
	// request's send has no request.
	first := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, `"ev":"request"`) })
	if first < 0 {
		t.Fatal("the trace has no request")
	}
	if err := os.WriteFile(bad, []byte(strings.Join(slices.Delete(lines, first, first+1), "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{good}, 0, "ok: "},
		{[]string{bad}, 1, "trace line"},
		{[]string{filepath.Join(dir, "none.jsonl")}, 2, "no such file"},
		{nil, 2, "ocbench: check-trace: no trace files given (see ocbench check-trace --help)"},
	} {
		var out strings.Builder
		if code := run(append([]string{"check-trace"}, c.args...), &out, &out); code != c.code || !strings.Contains(out.String(), c.out) {
			t.Errorf("check-trace %v: status %d, want %d; output %q, want %q in it", c.args, code, c.code, out.String(), c.out)
		}
	}
}
