package results

import (
	"fmt"
	"strings"
)

// Convention is one way of counting a failure's overhead that a reader of
// the open-cube paper's §6 may assume: the paper says "overhead messages
// per failure" and no more. The failure-cause messages (tests, answers,
// enquiries, anomalies, regenerated tokens) are in every convention; the
// three choices are what the paper leaves open.
type Convention struct {
	// Announcements counts the regeneration announcements (the project's
	// protocol announces a new token generation to every node before it
	// regenerates; the paper's regenerates at once and sends none).
	Announcements bool
	// Reissued counts the requests sent or issued again after a suspicion
	// or a search (failure-cause requests).
	Reissued bool
	// Detection counts the holders' heartbeats and the requesters' chases
	// (cause liveness), which run whether or not anything fails.
	Detection bool
}

// ShownCount is the convention of the overhead/failure column and its ratio:
// every failure-cause message, heartbeats and chases left out.
var ShownCount = Convention{Announcements: true, Reissued: true}

// Conventions are the eight combinations of the three choices, the shown
// one first.
var Conventions = func() []Convention {
	out := []Convention{ShownCount}
	for _, a := range []bool{true, false} {
		for _, r := range []bool{true, false} {
			for _, d := range []bool{false, true} {
				if c := (Convention{a, r, d}); c != ShownCount {
					out = append(out, c)
				}
			}
		}
	}
	return out
}()

// String names the convention by the letters of what it counts: A the
// regeneration announcements, R the re-issued requests, H the heartbeats
// and chases; "-" for none of them.
func (c Convention) String() string {
	var b strings.Builder
	for _, x := range []struct {
		on     bool
		letter byte
	}{{c.Announcements, 'A'}, {c.Reissued, 'R'}, {c.Detection, 'H'}} {
		if x.on {
			b.WriteByte(x.letter)
		}
	}
	if b.Len() == 0 {
		return "-"
	}
	return b.String()
}

// PerFailure returns the run's overhead per failure under convention c,
// and false for a run without failures. Under ShownCount it is the run's
// overhead/failure mean.
func (c Convention) PerFailure(r *Run) (float64, bool) {
	if r.Failures == 0 {
		return 0, false
	}
	msgs := r.OverheadPerFailure.Mean * float64(r.Failures)
	if !c.Announcements {
		msgs -= float64(r.OverheadByType["regenerate"])
	}
	if !c.Reissued {
		msgs -= float64(r.OverheadByType["request"])
	}
	if c.Detection {
		msgs += float64(r.MessagesByCause["liveness"])
	}
	return msgs / float64(r.Failures), true
}

// IPSC2Lines are the header lines that say what the ratio column compares
// with the paper's iPSC/2 figures, for the runs that carry one (Run.Paper):
// which protocol ran, under which counting convention, and each run's
// overhead and ratio under every convention (Conventions), so that a reader
// picks the paper's. None if no run carries a paper figure.
func IPSC2Lines(runs []*Run) []string {
	var withPaper []*Run
	protocols := map[string]bool{}
	for _, r := range runs {
		if r.Paper != nil && r.Failures > 0 {
			withPaper = append(withPaper, r)
			protocols[protocolName(r)] = true
		}
	}
	if len(withPaper) == 0 {
		return nil
	}
	var names []string
	for _, r := range withPaper {
		if p := protocolName(r); protocols[p] {
			names = append(names, p)
			delete(protocols, p)
		}
	}
	h := []string{fmt.Sprintf("ratio: overhead/failure ÷ the paper's iPSC/2 figure (8 at N = 32, 9.75 at N = 64) for protocol %s under count %s; "+
		"the paper states neither how it counts, nor its load, nor its crash plan; its own protocol (§5) where it stays safe: docs/results.md",
		strings.Join(names, ", "), ShownCount),
		"counts: every failure-cause message (tests, answers, enquiries, anomalies, regenerated tokens), and A the regeneration announcements, R the re-issued requests, H the heartbeats and chases, each in or out"}
	for _, r := range withPaper {
		var parts []string
		lo, hi := 0.0, 0.0
		for i, c := range Conventions {
			v, _ := c.PerFailure(r)
			parts = append(parts, fmt.Sprintf("%s %.2f (%.2f)", c, v, v/r.Paper.PerFailure))
			if i == 0 || v < lo {
				lo = v
			}
			if i == 0 || v > hi {
				hi = v
			}
		}
		h = append(h, fmt.Sprintf("%s N = %d, msg/failure (ratio) by count: %s; range %.2f–%.2f (%.2f–%.2f)",
			r.Algorithm, r.Nodes, strings.Join(parts, ", "), lo, hi, lo/r.Paper.PerFailure, hi/r.Paper.PerFailure))
	}
	return h
}

// protocolName is the failure protocol a run names, "ocbench" if none.
func protocolName(r *Run) string {
	if r.Protocol == "" {
		return "ocbench"
	}
	return r.Protocol
}
