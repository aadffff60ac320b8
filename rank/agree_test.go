package rank

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/ocbench/ocbench/bench"
	"github.com/ocbench/ocbench/opencube"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
	"github.com/ocbench/ocbench/wire"
)

// onRanks calls f on p goroutine ranks at once and returns each rank's
// error; a rank that waits for ever fails the test by its time limit.
func onRanks(p int, f func(r int, c Comm) error) []error {
	comms := Local(p)
	errs := make([]error, p)
	var wg sync.WaitGroup
	for r := range comms {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			errs[r] = f(r, comms[r])
		}(r)
	}
	wg.Wait()
	return errs
}

func terms(nodes, algo string) []Term {
	return []Term{{"build", "ocbench test"}, {"--algo", algo}, {"--nodes", nodes}}
}

// TestAgree: ranks that agree get the same digest; the first term on which
// a rank differs from rank 0 ends every rank, with one line on rank 0
// naming it; a refusal on some ranks ends every rank with the lowest
// refusing rank's line, unless a term shared by every rank differs first.
func TestAgree(t *testing.T) {
	for _, c := range []struct {
		name    string
		mine    func(r int) Agreement
		want    string // rank 0's error, "" for agreement
		refused bool
	}{
		{"alike", func(r int) Agreement { return Agreement{Terms: terms("8", "opencube")} }, "", false},
		{"nodes", func(r int) Agreement {
			if r >= 2 {
				return Agreement{Terms: terms("3", "raymond")}
			}
			return Agreement{Terms: terms("8", "opencube")}
		}, "ranks disagree: rank 2 has --algo raymond, rank 0 has --algo opencube", false},
		{"refused on rank 2 with a bad value", func(r int) Agreement {
			if r >= 2 {
				return Agreement{Refusal: "--nodes: 3 is not a power of two", Terms: terms("3", "opencube")}
			}
			return Agreement{Terms: terms("8", "opencube")}
		}, "ranks disagree: rank 2 has --nodes 3, rank 0 has --nodes 8", false},
		{"refused alike", func(r int) Agreement {
			return Agreement{Refusal: "--nodes: 3 is not a power of two", Terms: terms("3", "opencube")}
		}, "--nodes: 3 is not a power of two", true},
		{"refused on rank 3 only", func(r int) Agreement {
			if r == 3 {
				return Agreement{Refusal: "unknown flag: --bogus", Terms: terms("8", "opencube")[:2]}
			}
			return Agreement{Terms: terms("8", "opencube")}
		}, "rank 3: unknown flag: --bogus", true},
		{"more terms on some ranks", func(r int) Agreement {
			a := Agreement{Terms: terms("8", "opencube")}
			if r == 1 {
				a.Terms = append(a.Terms, Term{"run 1's Nodes", "8"})
			}
			return a
		}, "ranks disagree: rank 1 has run 1's Nodes 8, rank 0 has nothing there", false},
		{"not UTF-8", func(r int) Agreement {
			a := Agreement{Terms: terms("8", "opencube")}
			a.Terms[0].Value += string([]byte{0xf0 + byte(r)}) // all read as U+FFFD
			return a
		}, "ranks disagree: their digests differ, though no term as rank 0 reads it (a value that is not UTF-8?)", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			digests := make([]uint32, 4)
			errs := onRanks(4, func(r int, comm Comm) (err error) {
				digests[r], err = Agree(comm, c.mine(r))
				return err
			})
			if c.want == "" {
				for r, err := range errs {
					if err != nil || digests[r] != digests[0] || digests[r] == 0 {
						t.Errorf("rank %d: digest %08x (rank 0's %08x), error %v", r, digests[r], digests[0], err)
					}
				}
				return
			}
			for r, err := range errs {
				var ae *AgreementError
				if !errors.As(err, &ae) || ae.Refused != c.refused {
					t.Errorf("rank %d: error %v, want an AgreementError (refused: %v)", r, err, c.refused)
				}
			}
			if errs[0] == nil || errs[0].Error() != c.want {
				t.Errorf("rank 0: %v\nwant %s", errs[0], c.want)
			}
		})
	}
}

// TestRunSeedsDisagree: ranks called with different specs, or with a spec
// that only some refuse, all stop with a ValidationError (none waits for
// the others in the start-up exchange).
func TestRunSeedsDisagree(t *testing.T) {
	spec := bench.Spec{Algorithm: "opencube", Nodes: 8, Requests: 5, Workload: "poisson", Seed: 1, Delta: 1e-3, CSTime: 1, Think: 8}
	for _, c := range []struct {
		name string
		edit func(*bench.Spec)
		want string
	}{
		{"algorithm", func(s *bench.Spec) { s.Algorithm = "raymond" }, "ranks disagree: rank 2 has run 1's Algorithm raymond, rank 0 has run 1's Algorithm opencube"},
		{"delta", func(s *bench.Spec) { s.Delta = 2e-3 }, "ranks disagree: rank 2 has run 1's Delta 0.002, rank 0 has run 1's Delta 0.001"},
		{"crashes", func(s *bench.Spec) { s.Faults.Crashes = 5 }, "ranks disagree: rank 2 has run 1's Faults.Crashes 5, rank 0 has run 1's Faults.Crashes 0"},
		{"refused", func(s *bench.Spec) { s.Nodes = 3 }, "ranks disagree: rank 2 has run 1's Nodes 3, rank 0 has run 1's Nodes 8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			errs := onRanks(4, func(r int, comm Comm) error {
				s := spec
				if r >= 2 {
					c.edit(&s)
				}
				_, err := RunSeeds(comm, []bench.Spec{s}, Options{})
				return err
			})
			for r, err := range errs {
				var ve *ValidationError
				if !errors.As(err, &ve) {
					t.Errorf("rank %d: error %v, want a ValidationError", r, err)
				}
			}
			if r0 := errs[0]; r0 == nil || r0.Error() != c.want {
				t.Errorf("rank 0: %v\nwant %s", r0, c.want)
			}
		})
	}
}

// TestForeignFrame: a data or control frame whose digest is not the job's
// (another build or configuration) is dropped whole and counted as
// malformed; it never reaches a node.
func TestForeignFrame(t *testing.T) {
	j, in, _ := oneRun(t, bench.Spec{Algorithm: "opencube", Nodes: 4, Requests: 1, Workload: "sequential", Seed: 1, Delta: 1e-3, CSTime: 1}, 2)
	j.digest = 0x600dcafe
	j.handleData(wire.Encode(wire.Header{Digest: 0xbadf00d}, []proto.Message{{Type: scheme.Request, From: 3, To: 0, J: proto.RefTo(3), Src: proto.RefTo(3)}}), 1)
	if in.malformed != 1 || !strings.Contains(in.malformedErr, "foreign job") || in.stats.Steps != 0 {
		t.Errorf("malformed %d (%q), steps %d: want the frame dropped as malformed", in.malformed, in.malformedErr, in.stats.Steps)
	}
	c := make([]byte, ctlSize)
	c[0] = ctlHello
	j.handleControl(c, 1)
	if in.malformed != 2 || j.hellos != 0 {
		t.Errorf("a hello of a foreign job: malformed %d, hellos %d", in.malformed, j.hellos)
	}
	// The job's own frames pass.
	j.handleData(wire.Encode(wire.Header{Digest: j.digest}, []proto.Message{{Type: opencube.Test, From: 3, To: 0}}), 1)
	if in.malformed != 2 || in.stats.Steps != 1 {
		t.Errorf("the job's own frame: malformed %d, steps %d", in.malformed, in.stats.Steps)
	}
}
