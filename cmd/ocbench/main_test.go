package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestBadInput(t *testing.T) {
	cases := []struct {
		args []string
		flag string
	}{
		{[]string{"--nodes", "12"}, "--nodes"},
		{[]string{"--nodes", "1"}, "--nodes"},
		{[]string{"--nodes", "-8"}, "--nodes"},
		{[]string{"--nodes", "abc"}, "--nodes"},
		{[]string{"--algo", "bakery"}, "--algo"},
		{[]string{"--workload", "bursty"}, "--workload"},
		{[]string{"--requests", "0"}, "--requests"},
		{[]string{"--requests", "-5"}, "--requests"},
		{[]string{"--delta", "0"}, "--delta"},
		{[]string{"--delta", "soon"}, "--delta"},
		{[]string{"--delta", "auto"}, "--delta auto: only MPI runs measure δ"},
		{[]string{"--nodes", "8", "--delta", "auto"}, "--delta auto"},
		{[]string{"--check", "some"}, "--check"},
		{[]string{"--repeat", "0"}, "--repeat"},
		{[]string{"--crashes", "5", "--algo", "raymond"}, "--crashes"},
		{[]string{"--crashes", "5", "--crash-target", "moon"}, "--crash-target"},
		{[]string{"--repair", "--nodes", "16"}, "--repair"},
		{[]string{"--preset", "ipsc2", "--nodes", "16"}, "--nodes"},
		{[]string{"--preset", "cray"}, "--preset"},
		{[]string{"--trace", "/tmp/x", "--algo", "all"}, "--trace"},
		{[]string{"--bogus"}, "bogus"},
		{[]string{"stray"}, "stray"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		msg := errb.String()
		if code != 2 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, c.flag) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line naming %s", c.args, code, msg, c.flag)
		}
	}
}

func TestJSONContract(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--nodes", "32", "--workload", "sequential", "--requests", "2000", "--seed", "1", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep struct {
		Runs []map[string]any `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Runs) != 1 {
		t.Fatalf("not one run in JSON: %v", err)
	}
	for _, k := range []string{"algorithm", "nodes", "ranks", "runtime", "seed", "workload", "requests_issued", "requests_served",
		"messages_total", "messages_by_type", "msgs_per_request", "safety_violations", "failures", "overhead_per_failure",
		"overhead_differential", "tokens_regenerated", "requests_lost", "liveness_violations"} {
		if _, ok := rep.Runs[0][k]; !ok {
			t.Errorf("JSON run lacks %q", k)
		}
	}
	m := rep.Runs[0]["msgs_per_request"].(map[string]any)
	for _, k := range []string{"mean", "median", "p99", "max"} {
		if _, ok := m[k]; !ok {
			t.Errorf("msgs_per_request lacks %q", k)
		}
	}
}

func TestDefaultRunsIPSC2(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the ipsc2 preset")
	}
	var out, errb bytes.Buffer
	if code := run(nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	for _, want := range []string{"preset ipsc2", "  32      1500", "  64      1000", "  8  ", "9.75"} {
		if !strings.Contains(s, want) {
			t.Errorf("default output lacks %q:\n%s", want, s)
		}
	}
}
