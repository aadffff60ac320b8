// Package reference holds the simulator's reference runs: records and trace
// digests that every refactor must leave byte-identical. `go test
// ./internal/reference -update` rewrites them (only for a change that is
// meant to change results, said in its commit).
package reference

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/workload"
)

var update = flag.Bool("update", false, "rewrite testdata/reference.json")

// cases are the reference specs: every algorithm failure-free, the open-cube
// with every crash target and both protocols, every fault-tolerant algorithm
// with crashes, late messages, the repair pass, kofl with transient faults.
func cases() map[string]bench.Spec {
	base := func(algo string, n int, wl workload.Kind, req int64) bench.Spec {
		return bench.Spec{Algorithm: algo, Nodes: n, Workload: wl, Requests: req, Seed: 7, CSTime: bench.DefaultCSTime}
	}
	crashes := func(k int, target faults.Target) faults.FaultPlan {
		return faults.FaultPlan{Crashes: k, Spacing: "exp", Every: 200, Start: 50, Down: 100, DownDist: "exp", Target: target}
	}
	out := map[string]bench.Spec{}
	for _, a := range algo.Ordered() {
		out[a+"/poisson"] = base(a, 16, "poisson", 40)
		s := base(a, 8, "saturated", 30)
		s.MinDelay = 0.5
		out[a+"/saturated"] = s
	}
	out["opencube/sequential-256"] = base("opencube", 256, "sequential", 300)
	out["opencube/each"] = base("opencube", 32, "each", 1)
	out["raymond/fifo"] = func() bench.Spec { s := base("raymond", 16, "poisson", 60); s.FIFO = true; return s }()
	for _, t := range faults.Targets {
		s := base("opencube", 32, "poisson", 60)
		s.Faults = crashes(4, t)
		out["opencube/crash-"+string(t)] = s
	}
	for _, p := range bench.Protocols {
		s := base("opencube", 16, "saturated", 40)
		s.Faults = crashes(3, "random")
		s.Protocol = p
		out["opencube/protocol-"+string(p)] = s
	}
	for _, a := range algo.FaultTolerant() {
		s := base(a, 16, "poisson", 40)
		s.Faults = crashes(3, "random")
		out[a+"/crashes"] = s
		f := base(a, 16, "poisson", 40)
		f.FT = true
		out[a+"/ft"] = f
	}
	late := base("opencube", 16, "poisson", 60)
	late.LateFraction = 0.05
	out["opencube/late"] = late
	rep := base("opencube", 16, "poisson", 40)
	rep.Faults = crashes(3, "random")
	rep.Faults.Permanent = 0.3
	rep.Repair = true
	out["opencube/repair"] = rep
	for _, m := range []faults.TransientMode{"initial", "during"} {
		s := base("kofl", 8, "poisson", 40)
		s.Transient = faults.TransientPlan{Mode: m}
		out["kofl/transient-"+string(m)] = s
	}
	return out
}

// entry is what a reference run keeps: the record without wall-clock
// figures, and the digest of its trace.
type entry struct {
	Record json.RawMessage `json:"record"`
	Trace  string          `json:"trace_sha256"`
}

func runCase(t *testing.T, spec bench.Spec) entry {
	t.Helper()
	var tr bytes.Buffer
	spec.Trace = &tr
	r, err := bench.Run(spec)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	r.WallSeconds = 0
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(tr.Bytes())
	return entry{Record: b, Trace: hex.EncodeToString(sum[:])}
}

func TestReference(t *testing.T) {
	path := filepath.Join("testdata", "reference.json")
	got := map[string]entry{}
	for name, spec := range cases() {
		got[name] = runCase(t, spec)
	}
	if *update {
		b, err := json.MarshalIndent(got, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the reference runs: %v (go test -update writes them)", err)
	}
	want := map[string]entry{}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("%s: in the reference file, no longer a case", name)
		}
	}
	for name, g := range got {
		w, ok := want[name]
		switch {
		case !ok:
			t.Errorf("%s: not in the reference file (go test -update)", name)
		case !bytes.Equal(compact(t, g.Record), compact(t, w.Record)):
			t.Errorf("%s: the record changed:\n got %s\nwant %s", name, firstDiff(string(compact(t, g.Record)), string(compact(t, w.Record))), firstDiff(string(compact(t, w.Record)), string(compact(t, g.Record))))
		case g.Trace != w.Trace:
			t.Errorf("%s: the trace changed (sha256 %s, was %s)", name, g.Trace, w.Trace)
		}
	}
}

func compact(t *testing.T, b []byte) []byte {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// firstDiff returns a's text around its first difference from b.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo, hi := max(0, i-80), min(len(a), i+80)
	return fmt.Sprintf("…%s…", strings.TrimSpace(a[lo:hi]))
}
