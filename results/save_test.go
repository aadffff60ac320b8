package results

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func sampleSaved() *Saved {
	lo, hi := 9.5, 12.75
	return &Saved{
		Environment: Environment{Version: "test", Commit: "abc", GoVersion: "go1.26", Runtime: "simulator",
			Hostnames: []string{"h"}, Ranks: 1, DeltaSeconds: 0.001, Seed: 7, Repeat: 2, Preset: "ipsc2",
			Command: "ocbench --preset ipsc2", Header: []string{"what ran"}, Date: "2026-01-02T03:04:05Z"},
		Runs: []*Run{{
			Algorithm: "opencube", Nodes: 32, Ranks: 1, Runtime: "sim", Seed: 7, Seeds: []uint64{7, 8}, Workload: "poisson",
			Params: Params{DeltaSeconds: 0.001, CSTime: 1, ThinkTime: 320}, Checks: "full",
			Requests: Requests{RequestsIssued: 100, RequestsServed: 99, MessagesTotal: 480,
				MessagesByType: map[string]int64{"request": 250, "token": 230}, MessagesByCause: map[string]int64{"normal": 470, "failure": 10},
				MsgsPerRequest: Summary{Count: 99, Mean: 4.8123456789, Median: 5, P99: 7, Max: 8}},
			Crash: Crash{Failures: 3, OverheadPerFailure: Estimate{N: 3, Mean: 11.1, Stddev: 0.1, CI95Low: &lo, CI95High: &hi},
				OverheadSamples: []float64{2, 4, 27.3}, Paper: &PaperComparison{PerFailure: 8, Ratio: 11.1 / 8},
				RecoveryDelta: Summary{Count: 2, Mean: 10.7}, RecoverySamples: []float64{0.1, 21.3},
				OverheadByType: map[string]int64{"test": 7}},
			Timing: Timing{WallSeconds: 0.123},
		}},
	}
}

// TestSaveReadBack: a saved run reads back into the same numbers; a second
// save of the same run makes a second file (nothing is overwritten) and a
// second CSV row.
func TestSaveReadBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet")
	want := sampleSaved()
	var paths []string
	for k := 0; k < 2; k++ {
		s := sampleSaved()
		p, err := Save(dir, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		got, err := LoadSaved(p)
		if err != nil {
			t.Fatal(err)
		}
		want.Format = SavedFormat
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("read back:\n%+v\nwant\n%+v", got.Runs[0], want.Runs[0])
		}
	}
	if paths[0] == paths[1] || !strings.HasSuffix(paths[1], "-2.json") {
		t.Errorf("second save wrote %s after %s: want a new name", paths[1], paths[0])
	}
	if base := filepath.Base(paths[0]); base != "20260102T030405Z-ipsc2-seed7.json" {
		t.Errorf("file name %s", base)
	}
	f, err := os.Open(filepath.Join(dir, RunsDir, CSVName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || !reflect.DeepEqual(rows[0], CSVHeader()) {
		t.Fatalf("CSV has %d rows (header %v), want a header and 2 rows", len(rows), rows[0])
	}
	col := map[string]string{}
	for k, h := range rows[0] {
		col[h] = rows[2][k]
	}
	for k, v := range map[string]string{"file": filepath.Base(paths[1]), "nodes": "32", "seeds": "7 8", "overhead_per_failure": "11.1",
		"overhead_ci95_low": "9.5", "paper_overhead_per_failure": "8", "msgs_per_request_mean": "4.8123456789", "commit": "abc"} {
		if col[k] != v {
			t.Errorf("CSV %s = %q, want %q", k, col[k], v)
		}
	}
}

// TestSaveCSVHeaderChanged: rows never go under another format's header.
func TestSaveCSVHeaderChanged(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, RunsDir, CSVName)
	if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, []byte("file,other\nx,y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Save(dir, sampleSaved(), nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(old); string(b) != "file,other\nx,y\n" {
		t.Errorf("old CSV changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, RunsDir, "runs-2.csv")); err != nil {
		t.Errorf("no new CSV beside the old one: %v", err)
	}
}

func TestSaveUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Save(filepath.Join(file, "sub"), sampleSaved(), nil); err == nil || !strings.Contains(err.Error(), "saving the run") {
		t.Errorf("error %v, want a 'saving the run' error", err)
	}
}

func TestReadSaved(t *testing.T) {
	cases := []struct {
		name, in, err string
		runs          int
	}{
		{"plain --json output", `{"runs": [{"algorithm": "raymond", "nodes": 8}]}`, "", 1},
		{"saved", `{"ocbench_saved_run": 1, "environment": {"seed": 3}, "runs": [{"nodes": 8}, {"nodes": 16}]}`, "", 2},
		{"newer format", `{"ocbench_saved_run": 99, "runs": [{}]}`, "newer", 0},
		{"no runs", `{"runs": []}`, "no runs", 0},
		{"null run", `{"runs": [null]}`, "null", 0},
		{"not JSON", `runs`, "invalid", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := ReadSaved(strings.NewReader(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil || len(s.Runs) != c.runs {
				t.Fatalf("%v, %d runs; want %d", err, len(s.Runs), c.runs)
			}
		})
	}
}

func TestQuoteCommand(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"ocbench", "--nodes", "32,64"}, "ocbench --nodes 32,64"},
		{[]string{"ocbench", "--out", ""}, "ocbench --out ''"},
		{[]string{"ocbench", "--trace", "a b"}, "ocbench --trace 'a b'"},
		{[]string{"x", "it's"}, `x 'it'\''s'`},
	}
	for _, c := range cases {
		if got := QuoteCommand(c.args); got != c.want {
			t.Errorf("QuoteCommand(%q) = %s, want %s", c.args, got, c.want)
		}
	}
}

func TestMergeRecoverySamples(t *testing.T) {
	a, b := sampleSaved().Runs[0], sampleSaved().Runs[0]
	b.RecoverySamples = []float64{5}
	m := Merge([]*Run{a, b})
	if m.RecoveryDelta.Count != 3 || m.RecoveryDelta.Max != 21.3 || len(m.RecoverySamples) != 3 {
		t.Errorf("merged recovery %+v, want the 3 pooled samples", m.RecoveryDelta)
	}
}

// TestReadSavedNamed: a document of --json documents by name, as
// scripts/failure-free.sh writes, gives their runs in the order of the
// names; an empty one is refused.
func TestReadSavedNamed(t *testing.T) {
	doc := `{"saturated": {"runs": [{"algorithm": "raymond", "nodes": 4}]},
		"each": {"runs": [{"algorithm": "opencube", "nodes": 2}, {"algorithm": "centralized", "nodes": 2}]}}`
	s, err := ReadSaved(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range s.Runs {
		got = append(got, r.Algorithm)
	}
	if strings.Join(got, ",") != "opencube,centralized,raymond" {
		t.Errorf("runs %v, want each's then saturated's", got)
	}
	if _, err := ReadSaved(strings.NewReader(`{"x": {"runs": []}}`)); err == nil || !strings.Contains(err.Error(), "no runs") {
		t.Errorf("an empty document: %v", err)
	}
}

// manySaved is a saved run of 40 runs: its rows, about 8 KiB, are more
// than one 4 KiB chunk, which an append in chunks would tear.
func manySaved() *Saved {
	s := sampleSaved()
	one := s.Runs[0]
	s.Runs = nil
	for k := range 40 {
		r := *one
		r.Nodes = 2 << (k % 10)
		r.Seed = uint64(k)
		s.Runs = append(s.Runs, &r)
	}
	return s
}

// checkRunsDir checks dir's runs/: the CSV has the header once, then rows
// of the header's field count whose file is a readable saved run in runs/
// (each with as many runs as it has rows), and nothing else is there but
// tmp stale temporary files and the files named in also. It returns the
// number of rows of each saved file (0 for a file without rows).
func checkRunsDir(t *testing.T, dir string, tmp int, also ...string) map[string]int {
	t.Helper()
	runs := filepath.Join(dir, RunsDir)
	ents, err := os.ReadDir(runs)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]int{}
	runsIn := map[string]int{}
	for _, e := range ents {
		name := e.Name()
		switch {
		case name == CSVName || slices.Contains(also, name):
		case strings.HasSuffix(name, ".json"):
			s, err := LoadSaved(filepath.Join(runs, name))
			if err != nil {
				t.Errorf("a saved file does not read: %v", err)
				continue
			}
			rows[name], runsIn[name] = 0, len(s.Runs)
		case strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp"):
			tmp--
		default:
			t.Errorf("unexpected file %s in %s", name, runs)
		}
	}
	if tmp != 0 {
		t.Errorf("%d temporary files more than expected", -tmp)
	}
	f, err := os.Open(filepath.Join(runs, CSVName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = len(CSVHeader())
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", CSVName, err)
	}
	if len(recs) == 0 || !reflect.DeepEqual(recs[0], CSVHeader()) {
		t.Fatalf("%s does not start with the header", CSVName)
	}
	for k, rec := range recs[1:] {
		if _, ok := rows[rec[0]]; !ok {
			t.Errorf("row %d names %q, not a saved file", k+2, rec[0])
			continue
		}
		rows[rec[0]]++
	}
	for name, n := range rows {
		if n != 0 && n != runsIn[name] {
			t.Errorf("%s: %d rows for its %d runs", name, n, runsIn[name])
		}
	}
	return rows
}

// envSaver names, in a child process of TestSaveConcurrent, the directory
// whose d1, d2, … it saves into.
const envSaver = "OCBENCH_TEST_SAVER"

// saveRounds is the number of directories eight savers save into at once.
const saveRounds = 50

// TestSaveConcurrent: eight savers save into one directory at once, in 50
// fresh directories (so that they also race to create runs.csv): goroutines
// of this process, then eight processes. Every saved file reads back and
// has a whole row per run, all in runs.csv under one header.
func TestSaveConcurrent(t *testing.T) {
	const savers = 8
	noWarn := func(msg string) { t.Errorf("warning: %s", msg) }
	t.Run("goroutines", func(t *testing.T) {
		base := t.TempDir()
		for round := range saveRounds {
			dir := filepath.Join(base, strconv.Itoa(round))
			start := make(chan struct{})
			var wg sync.WaitGroup
			for range savers {
				wg.Go(func() {
					<-start
					if _, err := Save(dir, manySaved(), noWarn); err != nil {
						t.Error(err)
					}
				})
			}
			close(start)
			wg.Wait()
			if rows := checkRunsDir(t, dir, 0); len(rows) != savers {
				t.Fatalf("round %d: %d saved files, want %d", round, len(rows), savers)
			}
		}
	})
	t.Run("processes", func(t *testing.T) {
		base := t.TempDir()
		var cmds []*exec.Cmd
		var outs []*bytes.Buffer
		for range savers {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSaverProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), envSaver+"="+base)
			out := new(bytes.Buffer)
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, outs = append(cmds, cmd), append(outs, out)
		}
		for k, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("a saver: %v\n%s", err, outs[k])
			}
		}
		for round := range saveRounds {
			dir := filepath.Join(base, "d"+strconv.Itoa(round))
			if rows := checkRunsDir(t, dir, 0); len(rows) != savers {
				t.Fatalf("%s: %d saved files, want %d", dir, len(rows), savers)
			}
		}
	})
}

// TestSaverProcess is a saver of TestSaveConcurrent, in a child process.
func TestSaverProcess(t *testing.T) {
	base := os.Getenv(envSaver)
	if base == "" {
		t.Skip("the child process of TestSaveConcurrent")
	}
	for round := range saveRounds {
		if _, err := Save(filepath.Join(base, "d"+strconv.Itoa(round)), manySaved(), func(msg string) { t.Errorf("warning: %s", msg) }); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSaveTornRow: a CSV file that ends in a partial row (or header), as
// an append that failed or was killed leaves it, gets it set aside in
// runs.csv.torn, with a warning, before the next rows; a whole file is
// left as it is.
func TestSaveTornRow(t *testing.T) {
	header := strings.Join(CSVHeader(), ",") + "\n"
	cases := []struct {
		name    string
		saved   bool   // one run saved first
		tail    string // then appended to runs.csv (or written, if not saved)
		rows    int    // saved files with rows, after one more save
		torn    string // runs.csv.torn then ("" : none)
		warning bool
	}{
		{"partial row", true, "20260102T030405Z-ipsc2-seed7.json,2026-01", 2, "20260102T030405Z-ipsc2-seed7.json,2026-01\n", true},
		{"partial header", false, header[:20], 1, header[:20] + "\n", true},
		{"empty file", false, "", 1, "", false},
		{"whole rows", true, "", 2, "", false},
		{"header only", false, header, 1, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			csvPath := filepath.Join(dir, RunsDir, CSVName)
			var warnings []string
			warn := func(msg string) { warnings = append(warnings, msg) }
			if c.saved {
				if _, err := Save(dir, sampleSaved(), warn); err != nil {
					t.Fatal(err)
				}
			} else if err := os.MkdirAll(filepath.Dir(csvPath), 0o755); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(csvPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(c.tail); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if _, err := Save(dir, sampleSaved(), warn); err != nil {
				t.Fatal(err)
			}
			rows := 0
			for _, n := range checkRunsDir(t, dir, 0, CSVName+TornSuffix) {
				if n > 0 {
					rows++
				}
			}
			if rows != c.rows {
				t.Errorf("%d saved files with rows, want %d", rows, c.rows)
			}
			torn, err := os.ReadFile(csvPath + TornSuffix)
			if string(torn) != c.torn || c.torn == "" && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: %q (%v), want %q", CSVName+TornSuffix, torn, err, c.torn)
			}
			if got := len(warnings) == 1 && strings.Contains(warnings[0], CSVName+TornSuffix) && strings.Contains(warnings[0], "partial row"); got != c.warning || len(warnings) > 1 {
				t.Errorf("warnings %q, want one naming %s: %v", warnings, CSVName+TornSuffix, c.warning)
			}
		})
	}
}

// failHalfway is a writeHook that writes the first half of what it is
// given to what (json or csv) and fails, as a full disk does.
func failHalfway(what string) func(string, *os.File, []byte) (int, error) {
	return func(w string, f *os.File, b []byte) (int, error) {
		if w != what {
			return f.Write(b)
		}
		n, _ := f.Write(b[:len(b)/2])
		return n, syscall.ENOSPC
	}
}

// TestSaveWriteFails: a write that fails halfway leaves no partial file
// and no partial row: a failed JSON leaves the directory as it was; a
// failed CSV append is cut back off, and the run's JSON is kept (its path
// returned, and named in the error). The next save adds whole rows.
func TestSaveWriteFails(t *testing.T) {
	cases := []struct {
		what  string
		saved bool // the failed save's JSON is there
	}{
		{"json", false},
		{"csv", true},
	}
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			dir := t.TempDir()
			noWarn := func(msg string) { t.Errorf("warning: %s", msg) }
			if _, err := Save(dir, sampleSaved(), noWarn); err != nil {
				t.Fatal(err)
			}
			csvPath := filepath.Join(dir, RunsDir, CSVName)
			before, _ := os.ReadFile(csvPath)
			writeHook = failHalfway(c.what)
			path, err := Save(dir, sampleSaved(), noWarn)
			writeHook = nil
			if err == nil || !strings.Contains(err.Error(), "no space left") {
				t.Fatalf("error %v, want the write's", err)
			}
			if _, serr := os.Stat(path); c.saved != (path != "" && serr == nil) || c.saved && !strings.Contains(err.Error(), path) {
				t.Errorf("the failed save's JSON %q (%v): want it kept %v, and named in %q", path, serr, c.saved, err)
			}
			if after, _ := os.ReadFile(csvPath); !bytes.Equal(after, before) {
				t.Errorf("%s changed by the failed save:\n%s", CSVName, after[len(before):])
			}
			if _, err := Save(dir, sampleSaved(), noWarn); err != nil {
				t.Fatal(err)
			}
			files, rows := 0, 0
			for _, n := range checkRunsDir(t, dir, 0) {
				files++
				rows += n
			}
			if want := map[bool]int{false: 2, true: 3}[c.saved]; files != want || rows != 2 {
				t.Errorf("%d saved files, %d rows; want %d and 2", files, rows, want)
			}
		})
	}
}

// envKill tells a child process of TestSaveKilled to save into a
// directory and to stop halfway through a write: "json:DIR" or "csv:DIR".
const envKill = "OCBENCH_TEST_KILL"

// TestSaveKilled: a save killed (SIGKILL) halfway through writing its JSON
// leaves no .json file, only a hidden temporary file; one killed halfway
// through its CSV append leaves a partial row, which the next save sets
// aside. Either way every saved file then reads, and every row is whole.
func TestSaveKilled(t *testing.T) {
	cases := []struct {
		what             string
		tmp, files, rows int // left: temporary files; saved files, rows after one more save
		warning          bool
	}{
		{"json", 1, 2, 2, false},
		{"csv", 0, 3, 2, true},
	}
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := Save(dir, sampleSaved(), nil); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestKilledSaver$", "-test.count=1")
			cmd.Env = append(os.Environ(), envKill+"="+c.what+":"+dir)
			halfway, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(halfway).ReadString('\n')
			if line != "halfway\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the saver said %q (%v), want halfway", line, err)
			}
			cmd.Process.Kill() // SIGKILL
			if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
				t.Fatalf("the saver ended with %v, want killed", err)
			}
			var warnings []string
			if _, err := Save(dir, sampleSaved(), func(msg string) { warnings = append(warnings, msg) }); err != nil {
				t.Fatal(err)
			}
			files, rows := 0, 0
			for _, n := range checkRunsDir(t, dir, c.tmp, CSVName+TornSuffix) {
				files++
				if n > 0 {
					rows++
				}
			}
			if files != c.files || rows != c.rows || (len(warnings) == 1) != c.warning {
				t.Errorf("%d saved files, %d with rows, warnings %q; want %d, %d, a warning: %v", files, rows, warnings, c.files, c.rows, c.warning)
			}
		})
	}
}

// TestKilledSaver is the saver of TestSaveKilled, in a child process: it
// writes half of the JSON or of the CSV rows, says "halfway" on stdout and
// waits to be killed.
func TestKilledSaver(t *testing.T) {
	what, dir, ok := strings.Cut(os.Getenv(envKill), ":")
	if !ok {
		t.Skip("the child process of TestSaveKilled")
	}
	writeHook = func(w string, f *os.File, b []byte) (int, error) {
		if w != what {
			return f.Write(b)
		}
		f.Write(b[:len(b)/2])
		fmt.Println("halfway")
		time.Sleep(time.Minute)
		return 0, errors.New("not killed")
	}
	Save(dir, sampleSaved(), nil)
}

// TestSaveRowOneLine: a cell with a line break (a version stamped with
// -ldflags) still makes one line per row, which setAsideTorn relies on.
func TestSaveRowOneLine(t *testing.T) {
	dir := t.TempDir()
	s := sampleSaved()
	s.Environment.Version = "1.0\r\nbeta\nx"
	if _, err := Save(dir, s, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, RunsDir, CSVName))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != 2 || !bytes.Contains(b, []byte(",1.0 beta x,")) {
		t.Errorf("%d lines, want 2:\n%s", n, b)
	}
}
