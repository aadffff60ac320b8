package main

import (
	"strings"
	"testing"

	"github.com/ocbench/ocbench/results"
)

// TestVerifyBrokenRun (issue 40, finding 18): under --verify, an MPI
// record that differs from the simulator's is called a bug only when the
// simulator's run breaks no invariant; where it breaks one (--protocol
// paper's two tokens), the simulator stops at that step and the ranks do
// not, so the records differ as docs/mpi.md says: the message says so and
// names the replay, in one line.
func TestVerifyBrokenRun(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
		not  string
	}{
		{"paper-protocol", []string{"--nodes", "8", "--requests", "50", "--protocol", "paper", "--crashes", "2", "--workload", "poisson"},
			"breaks an invariant (2 safety, 0 liveness violations)", "a bug"},
		{"sound", []string{"--nodes", "8", "--requests", "50", "--crashes", "2", "--workload", "poisson"},
			"a bug: please report it", "as expected"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var o options
			fs := newFlags(&o)
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			list, err := configs(&o, fs)
			if err != nil {
				t.Fatal(err)
			}
			want, err := simRun(list[0].spec)
			if err != nil {
				t.Fatal(err)
			}
			got := *want // as an MPI job that ran on past the simulator's stop
			got.RequestsServed++
			o.runtimeInfo = &runtimeInfo{clock: "virtual"}
			o.verify = true
			err = checkIdentical(&o, list[0].spec, []*results.Run{&got}, &results.Run{})
			if err == nil {
				t.Fatal("verify accepted a record that differs")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) || strings.Contains(msg, c.not) || strings.Contains(msg, "\n") ||
				!strings.Contains(msg, "requests_served") || !strings.Contains(msg, "ocbench --algo opencube --nodes 8") {
				t.Errorf("verify: %q; want %q in one line, the field and the replay, not %q", msg, c.want, c.not)
			}
		})
	}
}
