package main

import (
	"strings"
	"testing"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/workload"
)

// TestSuspicionLines: the header says what "false susp." counts for each
// fault-tolerant algorithm of the runs — the open-cube's detector error
// (must be 0), the others' request time-outs — and says nothing for
// algorithms without a failure protocol.
func TestSuspicionLines(t *testing.T) {
	list := func(algos ...string) []config {
		var out []config
		for _, a := range algos {
			for _, n := range []int{32, 64} {
				s := bench.Spec{Algorithm: a, Nodes: n, Requests: 1, Workload: workload.Sequential}
				p, err := s.Resolve()
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, config{spec: s, plan: p})
			}
		}
		return out
	}
	for _, c := range []struct {
		name  string
		algos []string
		want  []string
	}{
		{"ft", []string{"opencube", "mishra-srimani", "naimi-trehel-ft", "nishio"}, []string{
			"false susp. of opencube: its failure detector suspected a live node",
			"false susp. of mishra-srimani, naimi-trehel-ft, nishio: a request's time-out",
		}},
		{"opencube alone", []string{"opencube"}, []string{"false susp. of opencube: its failure detector"}},
		{"time-outs alone", []string{"nishio"}, []string{"false susp. of nishio: a request's time-out"}},
		{"no failure protocol", []string{"lamport", "suzuki-kasami-bounded"}, nil},
	} {
		got := suspicionLines(list(c.algos...))
		if len(got) != len(c.want) {
			t.Errorf("%s: %d lines %q, want %d", c.name, len(got), got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.HasPrefix(got[i], w) {
				t.Errorf("%s: line %d is %q, want it to start %q", c.name, i, got[i], w)
			}
		}
	}
}
