package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// refusal is a command line that must be refused: exit status 2, exactly
// one line on stderr that contains want, no panic, and quickly.
type refusal struct {
	args []string
	want string
}

// checkRefusals runs every case and checks that it is refused.
func checkRefusals(t *testing.T, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		code, _, errs := runWithin(t, 20*time.Second, c.args)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.HasSuffix(errs, "\n") || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, errs, c.want)
		}
	}
}

// TestCheckTraceInputs: check-trace refuses what is no trace at all (a
// directory, an empty file, a node beyond the largest N, a flag it does
// not have) with one line and exit status 2, quickly and without
// allocating per node number.
func TestCheckTraceInputs(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := file("empty.jsonl", "")
	huge := file("huge.jsonl", `{"t":0,"node":2147483647,"ev":"request"}`+"\n")
	far := file("far.jsonl", `{"t":0,"node":0,"ev":"send","type":"request","from":0,"to":9007199254740993,"msg":1}`+"\n")
	checkRefusals(t, []refusal{
		{[]string{"check-trace", dir}, "is a directory, not a trace file"},
		{[]string{"check-trace", empty}, "no events: not a trace"},
		{[]string{"check-trace", huge}, "node 2147483647 is not in 0..2^26−1"},
		{[]string{"check-trace", far}, "to 9007199254740993 is not in"},
		{[]string{"check-trace", "--k-exclusion", huge}, "node 2147483647"},
		{[]string{"check-trace", "--k-exclusion"}, "no trace files given"},
		{[]string{"check-trace", "--kexclusion", empty}, "unknown flag --kexclusion"},
	})
}
