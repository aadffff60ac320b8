package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ocbench/ocbench/internal/infile"
)

// SavedFormat is the version of the saved-run file format. A reader accepts
// files of this version or older.
const SavedFormat = 1

// Environment says where, when and how a saved run was made.
type Environment struct {
	// Version and Commit identify the ocbench build (Commit is "unknown"
	// when the build carries no VCS stamp, e.g. under `go run`; empty in
	// files saved before that rule).
	Version   string `json:"ocbench_version"`
	Commit    string `json:"commit,omitempty"`
	GoVersion string `json:"go_version"`
	// Runtime is "simulator", "mpi" or "mpi task farm" (--mpi-mode farm).
	Runtime string `json:"runtime"`
	// MPILibrary is the MPI library's version string; empty without MPI.
	MPILibrary string `json:"mpi_library,omitempty"`
	// Hostnames are the machines the run used (one per distinct host).
	Hostnames []string `json:"hostnames"`
	Ranks     int      `json:"ranks"`
	// Placement is how nodes were placed on ranks ("" in the simulator,
	// where every node lives in one process).
	Placement    string  `json:"placement,omitempty"`
	DeltaSeconds float64 `json:"delta_seconds"`
	Seed         uint64  `json:"seed"`
	// Repeat is the number of seeds per configuration (seed, seed+1, …).
	Repeat int    `json:"repeat"`
	Preset string `json:"preset,omitempty"`
	// Command is the exact command line, shell-quoted.
	Command string `json:"command"`
	// Header is the readable table's header: what ran, in words.
	Header []string `json:"header,omitempty"`
	// Date is when the run finished, RFC 3339 in UTC; Started when the
	// command started (empty in files saved before it was recorded).
	Date    string `json:"date"`
	Started string `json:"started,omitempty"`
	// Host is the machine that ran the command, rank 0's under MPI (nil
	// in files saved before it was recorded).
	Host *Host `json:"host,omitempty"`
	// Validation is the verdict on the runs, the one the output's last
	// line states (nil in files saved before it was recorded).
	Validation *Validation `json:"validation,omitempty"`
	// Partial is set when the run was interrupted (Ctrl-C): Runs are the
	// runs that had finished, merged per configuration.
	Partial bool `json:"partial,omitempty"`
}

// Saved is the content of a saved-run file: the `--json` document (runs)
// plus the environment.
type Saved struct {
	Format      int         `json:"ocbench_saved_run"`
	Environment Environment `json:"environment"`
	Runs        []*Run      `json:"runs"`
}

// RunsDir is the directory, under the results directory, that holds the
// saved runs.
const RunsDir = "runs"

// CSVName is the name of the CSV file, in RunsDir, with one row per run.
const CSVName = "runs.csv"

// QuoteCommand shell-quotes args into one command line that a POSIX shell
// reads back as the same words.
func QuoteCommand(args []string) string {
	q := make([]string, len(args))
	for k, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=,:+@%", r))
		}) < 0 {
			q[k] = a
			continue
		}
		q[k] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// baseName returns the stem of a saved run's file name: the date, then what
// ran (the preset, or up to three algorithms by name, more by their number,
// and N), "-crashes" and "-partial" where they apply, then the seed.
func baseName(s *Saved, when time.Time) string {
	what := s.Environment.Preset
	if what == "" {
		var algos, nodes []string
		seenA, seenN := map[string]bool{}, map[int]bool{}
		for _, r := range s.Runs {
			if !seenA[r.Algorithm] {
				seenA[r.Algorithm] = true
				algos = append(algos, r.Algorithm)
			}
			if !seenN[r.Nodes] {
				seenN[r.Nodes] = true
				nodes = append(nodes, strconv.Itoa(r.Nodes))
			}
		}
		if len(algos) > 3 {
			algos = []string{fmt.Sprintf("%d-algorithms", len(algos))}
		}
		if len(nodes) > 3 {
			nodes = []string{nodes[0] + "-" + nodes[len(nodes)-1]}
		}
		what = strings.Join(algos, "+") + "-N" + strings.Join(nodes, ",")
		if len(s.Runs) > 0 && s.Runs[0].Failures > 0 {
			what += "-crashes"
		}
	}
	if s.Environment.Partial {
		what += "-partial"
	}
	what = unsafeName.ReplaceAllString(what, "_")
	return fmt.Sprintf("%s-%s-seed%d", when.UTC().Format("20060102T150405Z"), what, s.Environment.Seed)
}

// Save writes s under dir/RunsDir: one new JSON file (never overwriting an
// existing one: a numeric suffix makes the name unique) and one row per run
// appended to the CSV file. It creates the directories it needs and returns
// the JSON file's path (also when only the CSV append failed: the run is
// saved then, its rows are not).
//
// Saves are atomic and safe to run concurrently, from any number of
// processes: the JSON is written to a hidden temporary file in the same
// directory (".<name>.<pid>-<k>.tmp") and renamed into place, so a save
// that fails or is killed leaves no partial .json file (at most a stale
// .tmp file, safe to delete); the rows are appended in one write under an
// exclusive flock(2) lock on the CSV file, which also guards the choice of
// the JSON's name. A partial last row, left by an append that failed or was
// killed, is moved to the CSV's name + ".torn" before the next append
// (setAsideTorn); warn, if not nil, gets a line saying so.
func Save(dir string, s *Saved, warn func(string)) (string, error) {
	if s.Format == 0 {
		s.Format = SavedFormat
	}
	when := time.Now()
	if s.Environment.Date == "" {
		s.Environment.Date = when.UTC().Format(time.RFC3339)
	} else if t, err := time.Parse(time.RFC3339, s.Environment.Date); err == nil {
		when = t
	}
	runs := filepath.Join(dir, RunsDir)
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return "", fmt.Errorf("saving the run: %w", err)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return "", fmt.Errorf("saving the run: encoding JSON: %w", err)
	}
	data = append(data, '\n')
	base := baseName(s, when)
	tmp, err := writeTemp(runs, base, data)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp) // nothing once renamed
	csvPath := filepath.Join(runs, CSVName)
	lock, err := os.OpenFile(csvPath, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return "", fmt.Errorf("saving the run: %w", err)
	}
	defer lock.Close() // releases the lock
	if err := lockFile(lock); errors.Is(err, errors.ErrUnsupported) || errors.Is(err, syscall.ENOLCK) {
		// A file system without locks (some NFS mounts): save all the
		// same, unguarded against a concurrent save.
		if warn != nil {
			warn(fmt.Sprintf("cannot lock %s (%v): saving without the lock, so a save into this directory at the same time may tear rows", csvPath, err))
		}
	} else if err != nil {
		return "", fmt.Errorf("saving the run: locking %s: %w", csvPath, err)
	}
	path, err := renameUnique(tmp, filepath.Join(runs, base))
	if err != nil {
		return "", err
	}
	syncDir(runs)
	if err := appendCSV(lock, csvPath, filepath.Base(path), s, warn); err != nil {
		return path, fmt.Errorf("%w; the run itself is saved in %s", err, path)
	}
	return path, nil
}

// writeHook, if set (tests), writes b to f in place of f.Write; what is
// "json" or "csv". It stands for a disk that fills up, or a process killed
// in the middle of a write.
var writeHook func(what string, f *os.File, b []byte) (int, error)

// write writes b to f, through writeHook if set.
func write(what string, f *os.File, b []byte) error {
	if writeHook != nil {
		_, err := writeHook(what, f, b)
		return err
	}
	_, err := f.Write(b)
	return err
}

// tempSerial makes the names of one process's temporary files unique.
var tempSerial atomic.Int64

// writeTemp writes data, synced to disk, into a new hidden temporary file
// in dir named after base, and returns its path. On failure it removes the
// file.
func writeTemp(dir, base string, data []byte) (string, error) {
	var f *os.File
	var err error
	for range 1000 {
		name := filepath.Join(dir, fmt.Sprintf(".%s.%d-%d.tmp", base, os.Getpid(), tempSerial.Add(1)))
		f, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("saving the run: %w", err)
	}
	err = write("json", f, data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("saving the run: writing %s: %w", filepath.Join(dir, base+".json"), err)
	}
	return f.Name(), nil
}

// renameUnique renames tmp to stem.json, or stem-2.json, stem-3.json, … if
// that exists, and returns the new path. The caller holds the CSV's lock,
// which every save takes before choosing a name.
func renameUnique(tmp, stem string) (string, error) {
	for k := 1; k <= 1000; k++ {
		path := stem + ".json"
		if k > 1 {
			path = fmt.Sprintf("%s-%d.json", stem, k)
		}
		if _, err := os.Lstat(path); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("saving the run: %w", err)
		}
		if err := os.Rename(tmp, path); err != nil {
			return "", fmt.Errorf("saving the run: %w", err)
		}
		return path, nil
	}
	return "", fmt.Errorf("saving the run: %s.json and 999 numbered names beside it exist", stem)
}

// syncDir flushes dir's entries to disk (a rename is durable only then); a
// failure is ignored: the file is in place, only a power cut could lose it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// csvColumns are the CSV's columns; the header row names them.
var csvColumns = []struct {
	name string
	cell func(file string, e *Environment, r *Run) string
}{
	{"file", func(f string, _ *Environment, _ *Run) string { return f }},
	{"date", func(_ string, e *Environment, _ *Run) string { return e.Date }},
	{"ocbench_version", func(_ string, e *Environment, _ *Run) string { return e.Version }},
	{"commit", func(_ string, e *Environment, _ *Run) string { return e.Commit }},
	{"runtime", func(_ string, e *Environment, _ *Run) string { return e.Runtime }},
	{"ranks", func(_ string, e *Environment, _ *Run) string { return strconv.Itoa(e.Ranks) }},
	{"placement", func(_ string, e *Environment, _ *Run) string { return e.Placement }},
	{"algorithm", func(_ string, _ *Environment, r *Run) string { return r.Algorithm }},
	{"nodes", func(_ string, _ *Environment, r *Run) string { return strconv.Itoa(r.Nodes) }},
	{"workload", func(_ string, _ *Environment, r *Run) string { return r.Workload }},
	{"seeds", func(_ string, _ *Environment, r *Run) string { return seedList(r) }},
	{"delta_seconds", func(_ string, _ *Environment, r *Run) string { return ff(r.DeltaSeconds) }},
	{"think_time_delta", func(_ string, _ *Environment, r *Run) string { return ff(r.ThinkTime) }},
	{"fault_plan", func(_ string, _ *Environment, r *Run) string { return r.FaultPlan }},
	{"requests_issued", func(_ string, _ *Environment, r *Run) string { return strconv.FormatInt(r.RequestsIssued, 10) }},
	{"requests_served", func(_ string, _ *Environment, r *Run) string { return strconv.FormatInt(r.RequestsServed, 10) }},
	{"messages_total", func(_ string, _ *Environment, r *Run) string { return strconv.FormatInt(r.MessagesTotal, 10) }},
	{"msgs_per_request_mean", func(_ string, _ *Environment, r *Run) string { return ff(r.MsgsPerRequest.Mean) }},
	{"msgs_per_request_max", func(_ string, _ *Environment, r *Run) string { return ff(r.MsgsPerRequest.Max) }},
	{"wait_delta_mean", func(_ string, _ *Environment, r *Run) string { return ff(r.WaitDelta.Mean) }},
	{"failures", func(_ string, _ *Environment, r *Run) string { return strconv.Itoa(r.Failures) }},
	{"overhead_per_failure", func(_ string, _ *Environment, r *Run) string { return estimateCell(r.OverheadPerFailure, r.Failures) }},
	{"overhead_ci95_low", func(_ string, _ *Environment, r *Run) string { return ptrCell(r.OverheadPerFailure.CI95Low) }},
	{"overhead_ci95_high", func(_ string, _ *Environment, r *Run) string { return ptrCell(r.OverheadPerFailure.CI95High) }},
	{"overhead_differential", func(_ string, _ *Environment, r *Run) string {
		return estimateCell(r.OverheadDifferential, r.OverheadDifferential.N)
	}},
	{"paper_overhead_per_failure", func(_ string, _ *Environment, r *Run) string {
		if r.Paper == nil {
			return ""
		}
		return ff(r.Paper.PerFailure)
	}},
	{"ratio_to_paper", func(_ string, _ *Environment, r *Run) string {
		if r.Paper == nil {
			return ""
		}
		return ff(r.Paper.Ratio)
	}},
	{"tokens_regenerated", func(_ string, _ *Environment, r *Run) string { return strconv.FormatInt(r.TokensRegenerated, 10) }},
	{"recovery_delta_mean", func(_ string, _ *Environment, r *Run) string {
		if r.RecoveryDelta.Count == 0 {
			return ""
		}
		return ff(r.RecoveryDelta.Mean)
	}},
	{"requests_lost", func(_ string, _ *Environment, r *Run) string { return strconv.FormatInt(r.RequestsLost, 10) }},
	{"violations", func(_ string, _ *Environment, r *Run) string {
		return strconv.Itoa(r.SafetyViolations + r.LivenessViolations)
	}},
	{"wall_seconds", func(_ string, _ *Environment, r *Run) string { return ff(r.WallSeconds) }},
}

func ff(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func estimateCell(e Estimate, n int) string {
	if n == 0 || e.N == 0 {
		return ""
	}
	return ff(e.Mean)
}

func ptrCell(p *float64) string {
	if p == nil {
		return ""
	}
	return ff(*p)
}

func seedList(r *Run) string {
	seeds := r.Seeds
	if len(seeds) == 0 {
		seeds = []uint64{r.Seed}
	}
	s := make([]string, len(seeds))
	for k, x := range seeds {
		s[k] = strconv.FormatUint(x, 10)
	}
	return strings.Join(s, " ")
}

// CSVHeader returns the CSV's header row.
func CSVHeader() []string {
	h := make([]string, len(csvColumns))
	for k, c := range csvColumns {
		h[k] = c.name
	}
	return h
}

// appendCSV appends one row per run to the CSV file at path, open in
// lock (whose lock the caller holds), writing the header first if the file
// is empty. A file whose header differs (an older format) is left alone:
// the rows go to a new file beside it (runs-2.csv, …), under the same lock.
// The rows go in one write; if it fails, the file is cut back to its
// former size, and if that fails too the next save sets the partial row
// aside.
func appendCSV(lock *os.File, path, file string, s *Saved, warn func(string)) error {
	header := CSVHeader()
	line := strings.Join(header, ",") + "\n"
	stem := strings.TrimSuffix(path, ".csv")
	f := lock
	for k := 2; ; k++ {
		first := make([]byte, len(line))
		n, err := f.ReadAt(first, 0)
		if err != nil && err != io.EOF {
			return fmt.Errorf("saving the run: reading %s: %w", path, err)
		}
		// The header, or the start of one (a partial header is torn and
		// set aside below), or any line shorter than it (an older
		// format: so is a header longer than the first line).
		if i := bytes.IndexByte(first[:n], '\n'); i < 0 && strings.HasPrefix(line, string(first[:n])) || string(first[:n]) == line {
			break
		}
		if f != lock {
			f.Close()
		}
		path = fmt.Sprintf("%s-%d.csv", stem, k)
		if f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644); err != nil {
			return fmt.Errorf("saving the run: %w", err)
		}
	}
	if f != lock {
		defer f.Close()
	}
	size, err := setAsideTorn(f, path, warn)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if size == 0 {
		w.Write(header)
	}
	for _, r := range s.Runs {
		row := make([]string, len(csvColumns))
		for k, c := range csvColumns {
			// One line per row, whatever a cell holds (a version set
			// with -ldflags): setAsideTorn cuts at the last newline.
			row[k] = oneLine.Replace(c.cell(file, &s.Environment, r))
		}
		w.Write(row)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return fmt.Errorf("saving the run: %s: %w", path, err)
	}
	err = write("csv", f, buf.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		if terr := f.Truncate(size); terr != nil {
			return fmt.Errorf("saving the run: appending to %s: %w (and cutting off the partial row: %v; the next save sets it aside)", path, err, terr)
		}
		return fmt.Errorf("saving the run: appending to %s: %w (no row added)", path, err)
	}
	return nil
}

// oneLine replaces the line breaks of a CSV cell.
var oneLine = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

// TornSuffix is added to the CSV file's name to name the file that gets
// the partial rows set aside (runs.csv.torn), one a line.
const TornSuffix = ".torn"

// setAsideTorn moves a partial last row of the CSV file f at path (what
// follows its last newline: an append that failed or was killed) to
// path+TornSuffix, cuts it off f, and says so through warn. It returns f's
// size after that. The partial row is appended to the .torn file before it
// is cut off: a save killed in between leaves it in both, never in neither.
func setAsideTorn(f *os.File, path string, warn func(string)) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("saving the run: %w", err)
	}
	size := st.Size()
	cut := size // the offset just after the last newline
	buf := make([]byte, 4096)
	for cut > 0 {
		n := int64(len(buf))
		if n > cut {
			n = cut
		}
		if _, err := f.ReadAt(buf[:n], cut-n); err != nil {
			return 0, fmt.Errorf("saving the run: reading %s: %w", path, err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			cut = cut - n + int64(i) + 1
			break
		}
		cut -= n
	}
	if cut == size {
		return size, nil
	}
	torn := make([]byte, size-cut, size-cut+1)
	if _, err := f.ReadAt(torn, cut); err != nil {
		return 0, fmt.Errorf("saving the run: reading %s: %w", path, err)
	}
	tornPath := path + TornSuffix
	t, err := os.OpenFile(tornPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return 0, fmt.Errorf("saving the run: %s ends in a partial row, which cannot be set aside: %w", path, err)
	}
	_, err = t.Write(append(torn, '\n'))
	if err == nil {
		err = t.Sync()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = f.Truncate(cut)
	}
	if err != nil {
		return 0, fmt.Errorf("saving the run: %s ends in a partial row, which cannot be set aside: %w", path, err)
	}
	if warn != nil {
		warn(fmt.Sprintf("%s ended in a partial row (%d bytes, from a save that failed or was killed): moved it to %s", path, len(torn), tornPath))
	}
	return cut, nil
}

// ReadSaved reads a saved-run file. It also accepts the plain `--json`
// document ({"runs": [...]}), with an empty environment, and a document of
// such documents by name (published/failure-free.json: {"sequential":
// {"runs": [...]}, ...}), whose runs it takes in the order of the names.
func ReadSaved(r io.Reader) (*Saved, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading a saved run: %w", err)
	}
	var s Saved
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("reading a saved run: %w", err)
	}
	if s.Format > SavedFormat {
		return nil, fmt.Errorf("reading a saved run: format %d is newer than this ocbench reads (%d)", s.Format, SavedFormat)
	}
	if len(s.Runs) == 0 {
		var named map[string]Report
		if json.Unmarshal(data, &named) == nil {
			names := make([]string, 0, len(named))
			for name := range named {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				s.Runs = append(s.Runs, named[name].Runs...)
			}
		}
	}
	if len(s.Runs) == 0 {
		return nil, errors.New("reading a saved run: no runs in it")
	}
	for k, r := range s.Runs {
		if r == nil {
			return nil, fmt.Errorf("reading a saved run: run %d is null", k)
		}
	}
	return &s, nil
}

// LoadSaved reads the saved-run file at path: a regular file (links
// followed) of at most infile.SavedCap bytes (256 MiB); anything else (a
// directory, a device, a FIFO, a socket) is refused before it is read.
func LoadSaved(path string) (*Saved, error) {
	f, err := infile.Open(path, infile.SavedCap)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := ReadSaved(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
