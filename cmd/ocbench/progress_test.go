package main

import "testing"

// TestProgressDescribe: the text before the bar says which run it is and
// what the bar counts, once.
func TestProgressDescribe(t *testing.T) {
	cases := []struct {
		p      progress
		served int64
		want   string
	}{
		{progress{runs: 3}, 40, "run 1/3; requests served"},
		{progress{runs: 3, run: 3}, 0, "run 3/3; requests served"},
		{progress{runs: 2, crashes: true, served: 100}, 40, "run 1/2, 140 requests served; failures injected"},
	}
	for _, c := range cases {
		if got := c.p.describe(c.served); got != c.want {
			t.Errorf("describe = %q, want %q", got, c.want)
		}
	}
}
