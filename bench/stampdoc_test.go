package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/faults"
)

// TestStampDocumented: every message type that carries a Stamp says what
// it holds (proto.MessageType.Stamp), for every algorithm, failure-free and
// with crashes for the fault-tolerant ones (docs/design.md, "The message").
func TestStampDocumented(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every algorithm")
	}
	specs := map[string]Spec{}
	for _, a := range algo.Ordered() {
		specs[a] = Spec{Algorithm: a, Nodes: 8, Workload: "poisson", Requests: 30, Seed: 7, CSTime: DefaultCSTime}
	}
	for _, a := range algo.FaultTolerant() {
		s := specs[a]
		s.Faults = faults.FaultPlan{Crashes: 2, Spacing: "exp", Every: 200, Start: 50, Down: 100, DownDist: "exp", Target: "random"}
		specs[a+"/crashes"] = s
	}
	for name, s := range specs {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			s.Trace = &buf
			if _, err := Run(s); err != nil {
				t.Fatal(err)
			}
			doc := map[string]string{}
			for _, mt := range MustResolve(s).Algorithm.MessageTypes() {
				doc[mt.Name] = mt.Stamp
			}
			sc := bufio.NewScanner(&buf)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var ev struct {
					Ev, Type string
					Gen      uint64 // the trace's name of Message.Stamp
				}
				if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
					t.Fatal(err)
				}
				if ev.Ev == "send" && ev.Gen != 0 && doc[ev.Type] == "" {
					t.Fatalf("a %s message carries Stamp %d, and its MessageType does not say what Stamp holds", ev.Type, ev.Gen)
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
