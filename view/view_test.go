package view

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/internal/palette"
	"github.com/ocbench/ocbench/trace"
)

// TestReadRefuses: what cannot be drawn is refused with an error naming
// its line; an empty trace with ErrEmpty.
func TestReadRefuses(t *testing.T) {
	const (
		req  = `{"t":0,"node":0,"ev":"request"}`
		send = `{"t":1,"node":0,"ev":"send","type":"request","from":0,"to":1,"msg":1,"j":0,"tag":1}`
		recv = `{"t":2,"node":1,"ev":"recv","type":"request","from":0,"to":1,"msg":1,"j":0,"tag":1}`
	)
	cases := []struct {
		name  string
		lines []string
		want  string
	}{
		{"empty", nil, "no events"},
		{"malformed", []string{req, `{"t":1,"node":`}, "trace line 2: not a trace event"},
		{"not an object", []string{req, send, `[1,2]`}, "trace line 3: not a trace event"},
		{"blank line", []string{req, ""}, "trace line 2: empty line"},
		{"no time", []string{`{"node":0,"ev":"request"}`}, "trace line 1: t, node and ev are needed"},
		{"unknown event", []string{req, `{"t":0,"node":0,"ev":"jump"}`}, `trace line 2: unknown event "jump"`},
		{"time goes back", []string{send, strings.Replace(recv, `"t":2`, `"t":0.5`, 1)}, "trace line 2: time 0.5 before"},
		{"node beyond", []string{`{"t":0,"node":67108864,"ev":"crash"}`}, "trace line 1: node 67108864 is not in"},
		{"receipt before send", []string{req, recv}, "trace line 2: message 1 recv before it is sent"},
		{"received twice", []string{send, recv, recv}, "trace line 3: message 1 received, dropped or destroyed twice"},
		{"sent twice", []string{send, send}, "trace line 2: message 1 sent twice"},
		{"message without type", []string{`{"t":1,"node":0,"ev":"send","from":0,"to":1,"msg":1}`}, "trace line 1: a send needs type"},
		{"father without father", []string{`{"t":0,"node":0,"ev":"father"}`}, "trace line 1: a father line needs"},
		{"father beyond", []string{`{"t":0,"node":0,"ev":"father","father":67108864}`}, "trace line 1: father 67108864"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := strings.Join(c.lines, "\n")
			if len(c.lines) > 0 {
				in += "\n"
			}
			_, err := Read(strings.NewReader(in))
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v, want one line with %q", err, c.want)
			}
			if c.name == "empty" && !errors.Is(err, ErrEmpty) {
				t.Errorf("an empty trace: %v, want ErrEmpty", err)
			}
		})
	}
}

// TestReadCrashTrace: the data of a crash trace has its events, messages,
// crashes and father lines, in the trace's order; a trace that breaks a
// check is drawn with a warning.
func TestReadCrashTrace(t *testing.T) {
	tr := crashTrace(t, 8, 30, 2)
	x := expect(t, tr)
	sum, err := trace.Check(bytes.NewReader(tr))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Read(bytes.NewReader(tr))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.T) != len(x.events) || len(d.MsgID) != x.sends || int64(len(d.MsgID)) != sum.Sent || d.Nodes != 8 || !d.Fathers || d.Warning != "" {
		t.Errorf("%d events, %d messages, N=%d, fathers %v, warning %q; want %d, %d, 8, true, none",
			len(d.T), len(d.MsgID), d.Nodes, d.Fathers, d.Warning, len(x.events), x.sends)
	}
	if len(x.crashes) < 2 {
		t.Fatalf("the trace has %d crashes, want 2", len(x.crashes))
	}
	if x.lead != 8 {
		t.Errorf("%d father lines at the start, want one per node (8)", x.lead)
	}
	for k, e := range x.events {
		if d.T[k] != e.T || int(d.Node[k]) != e.Node || d.Kind[k] != kinds[e.Ev] {
			t.Fatalf("event %d: %v %d %d, trace %+v", k, d.T[k], d.Node[k], d.Kind[k], e)
		}
		if e.Ev == "send" || e.Ev == "recv" || e.Ev == "drop" {
			m := d.Arg[k]
			if d.Types[d.MsgType[m]] != e.Type || int(d.MsgFrom[m]) != e.From || int(d.MsgTo[m]) != e.To {
				t.Fatalf("event %d: message %d is %s %d→%d, trace %+v", k, m, d.Types[d.MsgType[m]], d.MsgFrom[m], d.MsgTo[m], e)
			}
		}
	}
	if len(d.TokenTypes) != 1 || d.Types[d.TokenTypes[0]] != "token" {
		t.Errorf("token types %v of %v, want token", d.TokenTypes, d.Types)
	}
	// Two nodes in the critical section at once: drawn, with a warning.
	bad := `{"t":0,"node":0,"ev":"request"}` + "\n" + `{"t":0,"node":1,"ev":"request"}` + "\n" +
		`{"t":1,"node":0,"ev":"enter"}` + "\n" + `{"t":1,"node":1,"ev":"enter"}` + "\n"
	d, err = Read(strings.NewReader(bad))
	if err != nil || !strings.Contains(d.Warning, "while node 0 is in it") || !strings.Contains(d.Warning, "k-out-of-ℓ") {
		t.Errorf("an overlap: %v, warning %q", err, d.Warning)
	}
	// A node that sends while down breaks a check k-exclusion does not
	// excuse.
	bad = `{"t":0,"node":0,"ev":"crash"}` + "\n" + `{"t":1,"node":0,"ev":"send","type":"x","from":0,"to":1,"msg":1}` + "\n"
	d, err = Read(strings.NewReader(bad))
	if err != nil || !strings.HasPrefix(d.Warning, "check-trace: trace line 2: node 0 sends message 1 while down") {
		t.Errorf("a send while down: %v, warning %q", err, d.Warning)
	}
}

// TestPageSelfContained: the page has its script, style and data inline,
// and nothing that would fetch (no src, href, url(), @import, http).
func TestPageSelfContained(t *testing.T) {
	tr := crashTrace(t, 8, 30, 2)
	d, err := Read(bytes.NewReader(tr))
	if err != nil {
		t.Fatal(err)
	}
	d.Title = `</script><script>alert(1)</script>`
	var page bytes.Buffer
	if err := Write(&page, d); err != nil {
		t.Fatal(err)
	}
	p := page.String()
	for _, re := range []string{`(?i)\bsrc\s*=`, `(?i)\bhref\s*=`, `(?i)url\(`, `(?i)@import`, `(?i)https?://`, `(?i)<link`, `<script>alert`} {
		if loc := regexp.MustCompile(re).FindStringIndex(p); loc != nil {
			t.Errorf("the page has %q: …%s…", re, p[max(0, loc[0]-40):min(len(p), loc[1]+40)])
		}
	}
	for _, want := range []string{"window.ocbData = {", "window.ocbView", "<canvas id=\"st\">", "#controls"} {
		if !strings.Contains(p, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestFatherLines: the father lines of a crash-free run give, once the run
// is over, one tree whose root is the token's last holder (an open-cube's
// root holds the token when no request is pending).
func TestFatherLines(t *testing.T) {
	for _, n := range []int{8, 32} {
		x := expect(t, crashTrace(t, n, 200, 0))
		f := x.fathers[len(x.fathers)-1]
		h := x.holders[len(x.holders)-1]
		if len(h) != 1 {
			t.Fatalf("N=%d: the token at the end is at %v, want one node", n, h)
		}
		root := -1
		for id, p := range f {
			if p == -1 {
				if root >= 0 {
					t.Fatalf("N=%d: two roots, %d and %d (fathers %v)", n, root, id, f)
				}
				root = id
			}
		}
		if root != h[0] {
			t.Errorf("N=%d: the root is %d, the token is at %d", n, root, h[0])
		}
		for id := range f { // every node reaches the root
			p, steps := id, 0
			for p != root && steps <= n {
				p, steps = f[p], steps+1
			}
			if p != root {
				t.Errorf("N=%d: node %d does not reach the root (fathers %v)", n, id, f)
			}
		}
	}
}

// TestEveryAlgorithm: with father lines, every algorithm's trace still
// passes the checker and is read; the algorithms of the general scheme
// have father lines, and a page.
func TestEveryAlgorithm(t *testing.T) {
	for _, a := range algo.Ordered() {
		t.Run(a, func(t *testing.T) {
			var buf bytes.Buffer
			s := bench.Spec{Algorithm: a, Nodes: 8, Requests: 40, Workload: "poisson", Seed: 2, CSTime: 1, Trace: &buf, TraceTree: true, NoBaseline: true}
			if _, err := bench.Run(s); err != nil {
				t.Fatal(err)
			}
			if _, err := trace.CheckWith(bytes.NewReader(buf.Bytes()), trace.Options{KExclusion: algo.IsKExclusion(a)}); err != nil {
				t.Fatal(err)
			}
			d, err := Read(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			tree := slices.Contains([]string{"opencube", "naimi-trehel", "raymond", "centralized"}, a)
			if tree && !d.Fathers {
				t.Errorf("no father lines")
			}
			if err := Write(io.Discard, d); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestFatherLinesSplit: a run split into parts (as MPI in virtual time
// runs it) writes the father lines the simulator writes: with the nodes
// in blocks, its merged trace is the simulator's, byte for byte; round
// robin, the same lines with the initial fathers in another order.
func TestFatherLinesSplit(t *testing.T) {
	spec := bench.Spec{Algorithm: "opencube", Nodes: 16, Requests: 100, Workload: "poisson", Seed: 4, CSTime: 1, MinDelay: bench.MinVirtualDelay,
		TraceTree: true, NoBaseline: true, Faults: faults.FaultPlan{Crashes: 2, Spacing: "exp", Every: 30, Down: 10, DownDist: "exp", Target: "random"}}
	var want bytes.Buffer
	spec.Trace = &want
	if _, err := bench.Run(spec); err != nil {
		t.Fatal(err)
	}
	blocks, rr := make([]int, spec.Nodes), make([]int, spec.Nodes)
	for i := range blocks {
		blocks[i], rr[i] = i/4, i%4
	}
	for _, c := range []struct {
		name  string
		owner []int
	}{{"blocks", blocks}, {"round robin", rr}} {
		var got bytes.Buffer
		spec.Trace = &got
		if _, err := bench.RunSplit(spec, c.owner); err != nil {
			t.Fatal(err)
		}
		if c.name == "blocks" && !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: the merged trace differs from the simulator's", c.name)
		}
		g, w := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
		slices.Sort(g)
		slices.Sort(w)
		if !slices.Equal(g, w) || strings.Count(got.String(), `"ev":"father"`) <= spec.Nodes {
			t.Errorf("%s: the merged trace has other lines than the simulator's, or no father changes", c.name)
		}
	}
}

// TestTypeColorsByName: a message type has the colour its name gives it
// (palette.Message), whatever the order types appear in a trace.
func TestTypeColorsByName(t *testing.T) {
	msg := func(k int, ty string, from, to int) string {
		return fmt.Sprintf(`{"t":%d,"node":%d,"ev":"send","type":%q,"from":%d,"to":%d,"msg":%d,"j":0,"tag":1}`+"\n"+
			`{"t":%d,"node":%d,"ev":"recv","type":%q,"from":%d,"to":%d,"msg":%d,"j":0,"tag":1}`+"\n",
			2*k, from, ty, from, to, k, 2*k+1, to, ty, from, to, k)
	}
	a := msg(1, "request", 0, 1) + msg(2, "token", 1, 0) + msg(3, "enquiry", 0, 1)
	b := msg(1, "enquiry", 0, 1) + msg(2, "request", 1, 0) + msg(3, "token", 0, 1)
	colors := map[string]string{}
	for _, tr := range []string{a, b} {
		d, err := Read(strings.NewReader(tr))
		if err != nil {
			t.Fatal(err)
		}
		if len(d.TypeColors) != len(d.Types) {
			t.Fatalf("%d colours for %d types", len(d.TypeColors), len(d.Types))
		}
		for k, ty := range d.Types {
			if c, ok := colors[ty]; ok && c != d.TypeColors[k] {
				t.Errorf("type %s is %s in one trace and %s in another", ty, c, d.TypeColors[k])
			}
			colors[ty] = d.TypeColors[k]
			if d.TypeColors[k] != palette.Message(ty) {
				t.Errorf("type %s is %s, not palette.Message's %s", ty, d.TypeColors[k], palette.Message(ty))
			}
		}
	}
	if colors["request"] == colors["enquiry"] || colors["token"] != palette.TokenColor {
		t.Errorf("colours %v: request and enquiry alike, or the token not the token's colour", colors)
	}
}

// TestReadDelta: Read gives the page the simulator's default δ, which
// the page divides the trace's seconds by (`ocbench view --delta` sets
// another); the page's data carries it.
func TestReadDelta(t *testing.T) {
	for _, delta := range []float64{0, 0.004} {
		d, err := Read(strings.NewReader(`{"t":0,"node":0,"ev":"request"}` + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		if d.Delta != bench.DefaultDelta {
			t.Fatalf("Read: Delta %g, want bench.DefaultDelta %g", d.Delta, bench.DefaultDelta)
		}
		want := bench.DefaultDelta
		if delta > 0 {
			d.Delta, want = delta, delta
		}
		var page bytes.Buffer
		if err := Write(&page, d); err != nil {
			t.Fatal(err)
		}
		if s := fmt.Sprintf(`"delta":%g,`, want); !strings.Contains(page.String(), s) {
			t.Errorf("the page's data lacks %s", s)
		}
	}
}
