package trace

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// TestCheckTrace: a small valid trace passes; each way of breaking it is
// caught, on the line that breaks it.
func TestCheckTrace(t *testing.T) {
	const (
		req0  = `{"t":0,"node":0,"ev":"request"}`
		send  = `{"t":1,"node":0,"ev":"send","type":"request","from":0,"to":1,"msg":1,"j":0,"tag":1}`
		recv  = `{"t":2,"node":1,"ev":"recv","type":"request","from":0,"to":1,"msg":1,"j":0,"tag":1}`
		tok   = `{"t":2,"node":1,"ev":"send","type":"token","from":1,"to":0,"msg":2,"j":-1,"tag":1,"payload":[1,2]}`
		tokR  = `{"t":3,"node":0,"ev":"recv","type":"token","from":1,"to":0,"msg":2,"j":-1,"tag":1,"payload":[1,2]}`
		enter = `{"t":3,"node":0,"ev":"enter"}`
		exit  = `{"t":4,"node":0,"ev":"exit"}`
	)
	good := []string{req0, send, recv, tok, tokR, enter, exit}
	sum, err := Check(strings.NewReader(strings.Join(good, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Lines != 7 || sum.Sent != 2 || sum.Received != 2 || sum.Entries != 1 || sum.MaxDelay != 1 || sum.Nodes != 2 || sum.InFlight != 0 {
		t.Errorf("summary %+v", sum)
	}
	cases := []struct {
		name  string
		lines []string
		want  string
	}{
		{"not JSON", []string{req0, "{"}, "line 2: not a trace event"},
		{"unknown field", []string{`{"t":0,"node":0,"ev":"request","x":1}`}, "line 1: not a trace event"},
		{"unknown event", []string{`{"t":0,"node":0,"ev":"jump"}`}, `unknown event "jump"`},
		{"no time", []string{`{"node":0,"ev":"request"}`}, "t, node and ev"},
		{"time goes back", []string{req0, send, strings.Replace(recv, `"t":2`, `"t":0.5`, 1)}, "line 3: time 0.5 before"},
		{"send from another node", []string{req0, strings.Replace(send, `"node":0`, `"node":1`, 1)}, "sends a message from node 0"},
		{"number used twice", []string{req0, send, recv, strings.Replace(tok, `"msg":2`, `"msg":1`, 1)}, "message 1 sent twice"},
		{"received before sent", []string{req0, recv}, "message 1 recv before it is sent"},
		{"received twice", []string{req0, send, recv, recv}, "line 4: message 1 received, dropped or destroyed twice"},
		{"received elsewhere", []string{req0, send, strings.Replace(recv, `"node":1`, `"node":2`, 1)}, "at node 2"},
		{"changed on the way", []string{req0, send, strings.Replace(recv, `"tag":1`, `"tag":2`, 1)}, "differs from its send (line 2)"},
		{"payload changed", []string{req0, send, recv, tok, strings.Replace(tokR, `[1,2]`, `[1,3]`, 1)}, "line 5: message 2 differs"},
		{"received while down", []string{req0, send, `{"t":1,"node":1,"ev":"crash"}`, recv}, "receives message 1 while down"},
		{"dropped while up", []string{req0, send, strings.Replace(recv, `"recv"`, `"drop"`, 1)}, "dropped at node 1, which is up"},
		{"sent while down", []string{`{"t":0,"node":0,"ev":"crash"}`, send}, "sends message 1 while down"},
		{"crash twice", []string{`{"t":0,"node":0,"ev":"crash"}`, `{"t":0,"node":0,"ev":"crash"}`}, "crashes while down"},
		{"recover while up", []string{`{"t":0,"node":0,"ev":"recover"}`}, "recovers while up"},
		{"enter without request", []string{enter}, "without a request pending"},
		{"request twice", []string{req0, req0}, "requests the critical section again"},
		{"request twice across a fault's exit", []string{req0, `{"t":0,"node":0,"ev":"corrupt"}`, req0, req0}, "line 4: node 0 requests the critical section again"},
		{"two in the critical section", []string{req0, `{"t":0,"node":1,"ev":"request"}`, enter, `{"t":3,"node":1,"ev":"enter"}`}, "node 1 enters the critical section while node 0 is in it"},
		{"father field on another event", []string{`{"t":0,"node":0,"ev":"request","father":1}`}, "and only a father line, has the father field"},
		{"father line without father", []string{`{"t":0,"node":0,"ev":"father"}`}, "and only a father line, has the father field"},
		{"father beyond the largest N", []string{`{"t":0,"node":0,"ev":"father","father":67108864}`}, "father 67108864 is not in"},
		{"father -2", []string{`{"t":0,"node":0,"ev":"father","father":-2}`}, "father -2 is not in"},
		{"father line with message fields", []string{`{"t":0,"node":0,"ev":"father","father":1,"msg":3}`}, "a father has message fields"},
		{"enter after crash ended the request", []string{req0, `{"t":1,"node":0,"ev":"crash"}`, `{"t":2,"node":0,"ev":"recover"}`, enter}, "without a request pending"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Check(strings.NewReader(strings.Join(c.lines, "\n") + "\n"))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
	// Father lines (optional) are accepted and counted, -1 being none.
	withFathers := []string{`{"t":0,"node":0,"ev":"father","father":-1}`, `{"t":0,"node":1,"ev":"father","father":0}`, req0, send, recv, tok,
		`{"t":2,"node":1,"ev":"father","father":0}`, tokR, `{"t":3,"node":0,"ev":"father","father":-1}`, enter, exit}
	if sum, err := Check(strings.NewReader(strings.Join(withFathers, "\n"))); err != nil || sum.Fathers != 4 || sum.Sent != 2 {
		t.Errorf("a trace with father lines: %+v, %v", sum, err)
	}
	// A transient fault destroys a message in flight, at a node up or down;
	// then it cannot arrive.
	destroy := strings.Replace(recv, `"recv"`, `"destroy"`, 1)
	if sum, err := Check(strings.NewReader(strings.Join([]string{req0, send, destroy}, "\n"))); err != nil || sum.Destroyed != 1 || sum.InFlight != 0 {
		t.Errorf("a destroyed message: %+v, %v", sum, err)
	}
	if _, err := Check(strings.NewReader(strings.Join([]string{req0, send, destroy, recv}, "\n"))); err == nil || !strings.Contains(err.Error(), "line 4: message 1 received, dropped or destroyed twice") {
		t.Errorf("a destroyed message received: %v", err)
	}
	// A crash ends a stay: another node may enter; the stale exit is allowed.
	ok := []string{req0, `{"t":0,"node":1,"ev":"request"}`, enter, `{"t":3,"node":0,"ev":"crash"}`, `{"t":4,"node":1,"ev":"enter"}`, exit}
	if _, err := Check(strings.NewReader(strings.Join(ok, "\n"))); err != nil {
		t.Errorf("a crash ending a stay: %v", err)
	}
}

// TestCheckTraceKExclusion: a k-exclusion trace may have two nodes in the
// critical section, and system-wide events of transient faults (node -1).
func TestCheckTraceKExclusion(t *testing.T) {
	lines := strings.Join([]string{
		`{"t":0,"node":-1,"ev":"fault"}`,
		`{"t":0,"node":0,"ev":"request"}`, `{"t":0,"node":1,"ev":"request"}`,
		`{"t":1,"node":0,"ev":"enter"}`, `{"t":1,"node":1,"ev":"enter"}`,
		`{"t":1.5,"node":1,"ev":"corrupt"}`,
		`{"t":2,"node":-1,"ev":"legitimate"}`,
		`{"t":3,"node":0,"ev":"exit"}`, `{"t":3,"node":1,"ev":"exit"}`,
	}, "\n") + "\n"
	if _, err := CheckWith(strings.NewReader(lines), Options{KExclusion: true}); err != nil {
		t.Errorf("k-exclusion trace: %v", err)
	}
	if _, err := Check(strings.NewReader(lines)); err == nil || !strings.Contains(err.Error(), "while node 0 is in it") {
		t.Errorf("the same trace checked for mutual exclusion: %v, want the overlap", err)
	}
}

// TestCheckTraceBounds: crafted input that is no trace of any run (no
// events, a node number beyond the largest N, a reader that fails) is
// refused with an error wrapping ErrNotTrace, quickly and without
// allocating per node number; a node at the bound's edge is a trace.
func TestCheckTraceBounds(t *testing.T) {
	cases := []struct {
		name, input, want string
	}{
		{"empty", "", "no events"},
		{"node 2^31-1", `{"t":0,"node":2147483647,"ev":"request"}`, "node 2147483647 is not in 0..2^26−1"},
		{"node 2^26", `{"t":0,"node":67108864,"ev":"request"}`, "node 67108864 is not in"},
		{"node 2^62", `{"t":0,"node":4611686018427387904,"ev":"crash"}`, "node 4611686018427387904"},
		{"negative node", `{"t":0,"node":-5,"ev":"request"}`, "node -5 is not in"},
		{"node -1, not a system event", `{"t":0,"node":-1,"ev":"request"}`, "node -1 is not in"},
		{"destination beyond", `{"t":0,"node":0,"ev":"send","type":"request","from":0,"to":2147483647,"msg":1}`, "to 2147483647 is not in"},
		{"sender beyond", `{"t":0,"node":0,"ev":"send","type":"request","from":-3,"to":1,"msg":1}`, "from -3 is not in"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Check(strings.NewReader(c.input))
			runtime.ReadMemStats(&after)
			if err == nil || !errors.Is(err, ErrNotTrace) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an ErrNotTrace with %q", err, c.want)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<24 {
				t.Errorf("allocated %d bytes", grew)
			}
		})
	}
	if _, err := Check(iotest.ErrReader(errors.New("is a directory"))); !errors.Is(err, ErrNotTrace) {
		t.Errorf("a failing reader: %v, want ErrNotTrace", err)
	}
	edge := `{"t":0,"node":67108863,"ev":"request"}`
	if sum, err := Check(strings.NewReader(edge)); err != nil || sum.Nodes != 1<<26 {
		t.Errorf("node 2^26−1: %+v, %v", sum, err)
	}
	// A check that fails is not ErrNotTrace.
	if _, err := Check(strings.NewReader(`{"t":0,"node":0,"ev":"recover"}`)); err == nil || errors.Is(err, ErrNotTrace) {
		t.Errorf("a broken check: %v, want an error other than ErrNotTrace", err)
	}
}

// TestCheckTraceReissue: a request issued again after a transient fault
// scrambled the node (the runtime ends the critical section the fault
// invented, then re-issues the request it may have wiped out) is accepted
// and counted once.
func TestCheckTraceReissue(t *testing.T) {
	lines := []string{
		`{"t":0,"node":0,"ev":"request"}`,
		`{"t":1,"node":0,"ev":"corrupt"}`,
		`{"t":2,"node":0,"ev":"exit"}`,
		`{"t":2,"node":0,"ev":"request"}`,
		`{"t":3,"node":0,"ev":"enter"}`,
		`{"t":4,"node":0,"ev":"exit"}`,
	}
	sum, err := Check(strings.NewReader(strings.Join(lines, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Requests != 1 || sum.Entries != 1 {
		t.Errorf("requests %d, entries %d; want 1 and 1", sum.Requests, sum.Entries)
	}
}

// TestCheckTraceAutomaton: each node follows request → enter → exit; an
// exit without an entry of the node's own is refused, naming the node and
// the line, unless a crash ended a stay (its exit comes later) or a
// transient fault may have invented one. A message numbered 0 is a message
// like any other.
func TestCheckTraceAutomaton(t *testing.T) {
	const (
		req   = `{"t":0,"node":0,"ev":"request"}`
		enter = `{"t":1,"node":0,"ev":"enter"}`
		exit  = `{"t":2,"node":0,"ev":"exit"}`
		crash = `{"t":2,"node":0,"ev":"crash"}`
		recov = `{"t":2,"node":0,"ev":"recover"}`
		exit1 = `{"t":2,"node":1,"ev":"exit"}`
	)
	cases := []struct {
		name  string
		lines []string
		want  string // "" for a trace that passes
	}{
		{"request, enter, exit", []string{req, enter, exit}, ""},
		{"exit twice", []string{req, enter, exit, exit}, "trace line 4: node 0 exits the critical section without an entry"},
		{"exit of a node never seen", []string{req, enter, exit, exit1}, "trace line 4: node 1 exits the critical section without an entry"},
		{"exit before the entry", []string{req, exit}, "trace line 2: node 0 exits"},
		{"exit alone", []string{exit}, "trace line 1: node 0 exits"},
		{"a crash's stay ends after the recovery", []string{req, enter, crash, recov, exit}, ""},
		{"a crash's stay ends while down", []string{req, enter, crash, exit}, ""},
		{"one exit per crashed stay", []string{req, enter, crash, recov, exit, exit}, "trace line 6: node 0 exits"},
		{"a crash while waiting owes no exit", []string{req, crash, recov, exit}, "trace line 4: node 0 exits"},
		{"a stay after a crashed one", []string{req, enter, crash, recov, `{"t":3,"node":0,"ev":"request"}`, `{"t":3,"node":0,"ev":"enter"}`, `{"t":4,"node":0,"ev":"exit"}`, `{"t":4,"node":0,"ev":"exit"}`}, ""},
		{"a corruption's invented stay", []string{`{"t":0,"node":0,"ev":"corrupt"}`, exit}, ""},
		{"one exit per corruption", []string{`{"t":0,"node":0,"ev":"corrupt"}`, exit, exit}, "trace line 3: node 0 exits"},
		{"an arbitrary initial configuration", []string{`{"t":0,"node":-1,"ev":"fault"}`, exit, exit1}, ""},
		{"one exit per system fault", []string{`{"t":0,"node":-1,"ev":"fault"}`, exit, exit}, "trace line 3: node 0 exits"},
		{"message 0", []string{req,
			`{"t":1,"node":0,"ev":"send","type":"request","from":0,"to":1,"msg":0,"j":0,"tag":1}`,
			`{"t":2,"node":1,"ev":"recv","type":"request","from":0,"to":1,"msg":0,"j":0,"tag":1}`}, ""},
		{"message 0 received twice", []string{req,
			`{"t":1,"node":0,"ev":"send","type":"request","from":0,"to":1,"msg":0,"j":0,"tag":1}`,
			`{"t":2,"node":1,"ev":"recv","type":"request","from":0,"to":1,"msg":0,"j":0,"tag":1}`,
			`{"t":2,"node":1,"ev":"recv","type":"request","from":0,"to":1,"msg":0,"j":0,"tag":1}`}, "line 4: message 0 received, dropped or destroyed twice"},
		{"a send without msg", []string{req, `{"t":1,"node":0,"ev":"send","type":"request","from":0,"to":1,"j":0,"tag":1}`}, "a send needs type, from, to and msg"},
		{"msg 0 on a request", []string{`{"t":0,"node":0,"ev":"request","msg":0}`}, "a request has message fields"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Check(strings.NewReader(strings.Join(c.lines, "\n") + "\n"))
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}
