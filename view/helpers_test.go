package view

import (
	"bufio"
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	_ "github.com/ocbench/ocbench/algo/all" // registers the algorithms
	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
)

// crashTrace runs the open-cube in the simulator (N = 8, poisson, two
// crashes) and returns its trace, with father lines.
func crashTrace(t testing.TB, nodes, requests, crashes int) []byte {
	t.Helper()
	var buf bytes.Buffer
	s := bench.Spec{Algorithm: "opencube", Nodes: nodes, Requests: int64(requests), Workload: "poisson", Seed: 1, CSTime: 1,
		Trace: &buf, TraceTree: true, NoBaseline: true}
	if crashes > 0 {
		s.Faults = faults.FaultPlan{Crashes: crashes, Spacing: "exp", Every: 30, Down: 10, DownDist: "exp", Target: "random"}
	}
	if _, err := bench.Run(s); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// event is a trace line as the tests read it, apart from package view.
type event struct {
	T      float64 `json:"t"`
	Node   int     `json:"node"`
	Ev     string  `json:"ev"`
	Type   string  `json:"type"`
	From   int     `json:"from"`
	To     int     `json:"to"`
	Father *int    `json:"father"`
}

// expected is what a trace says, event by event: the token's holders and
// the father pointers after each event, and the crashes.
type expected struct {
	events  []event
	sends   int
	crashes [][2]float64   // node, time
	holders [][]int        // after event k
	fathers [][]int        // after event k
	lead    int            // father lines at time 0, before the first other event
	types   map[string]int // sends by type
}

// expect reads a trace line by line: the holders of the token are the
// sender of the first token message until it sends it (if it sends one
// before any is received), then the nodes that received one and did not
// yet send it on or crash.
func expect(t testing.TB, tr []byte) expected {
	t.Helper()
	var x expected
	x.types = map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(tr))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		x.events = append(x.events, e)
	}
	n := 0
	for _, e := range x.events {
		n = max(n, e.Node+1, e.From+1, e.To+1)
	}
	hold := map[int]bool{}
	for _, e := range x.events {
		if strings.Contains(e.Type, "token") {
			if e.Ev == "send" {
				hold[e.From] = true
			}
			break
		}
	}
	father := make([]int, n)
	for i := range father {
		father[i] = -1
	}
	for k, e := range x.events {
		tok := strings.Contains(e.Type, "token")
		switch e.Ev {
		case "send":
			x.sends++
			x.types[e.Type]++
			if tok {
				delete(hold, e.Node)
			}
		case "recv":
			if tok {
				hold[e.Node] = true
			}
		case "crash":
			delete(hold, e.Node)
			x.crashes = append(x.crashes, [2]float64{float64(e.Node), e.T})
		case "father":
			father[e.Node] = *e.Father
			if e.T == x.events[0].T && x.lead == k {
				x.lead++
			}
		}
		var h []int
		for id := range hold {
			h = append(h, id)
		}
		slices.Sort(h)
		x.holders = append(x.holders, h)
		x.fathers = append(x.fathers, slices.Clone(father))
	}
	return x
}
