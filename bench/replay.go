package bench

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/faults"
	"github.com/ocbench/ocbench/proto"
)

// Replay returns the ocbench command that replays the simulated run of s
// (one seed, --repeat 1): every flag that sets a field of s, with the
// values the run used (defaults filled in, the think time explicit), so
// that the command does not depend on the defaults or on a preset. The
// crash-free baseline of a crash run is replayed by the crash run's command.
func Replay(s Spec) string {
	p := MustResolve(s)
	return replay(p.Spec, p.Registered)
}

// replay is Replay of s (filled), whose algorithm is reg.
func replay(s Spec, reg proto.Algorithm) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	args := []string{"ocbench", "--algo", s.Algorithm, "--nodes", strconv.Itoa(s.Nodes),
		"--workload", string(s.Workload), "--requests", strconv.FormatInt(s.Requests, 10), "--seed", strconv.FormatUint(s.Seed, 10)}
	if s.Delta != DefaultDelta {
		args = append(args, "--delta", f(s.Delta))
	}
	args = append(args, "--cs-time", f(s.CSTime))
	if s.Workload == "poisson" {
		args = append(args, "--think", f(s.Think))
	}
	if s.MinDelay != DefaultMinDelay {
		args = append(args, "--min-delay", f(s.MinDelay))
	}
	if s.FIFO {
		args = append(args, "--fifo")
	}
	args = append(args, "--check", s.Check.String())
	if c := s.Faults; c.Crashes > 0 {
		args = append(args, "--crashes", strconv.Itoa(c.Crashes), "--crash-spacing", string(c.Spacing), "--crash-every", f(c.Every),
			"--crash-start", f(c.Start), "--downtime", f(c.Down), "--downtime-dist", string(c.DownDist),
			"--permanent", f(c.Permanent), "--crash-target", string(c.Target))
	} else if s.FT {
		args = append(args, "--ft")
	}
	if s.CSEstimate != s.CSTime {
		args = append(args, "--cs-estimate", f(s.CSEstimate))
	}
	if s.LateFraction > 0 {
		args = append(args, "--delay-violations", f(s.LateFraction), "--late-factor", f(s.LateFactor))
	}
	if _, ok := reg.(proto.KExclusionAlgorithm); ok {
		args = append(args, "--ell", strconv.Itoa(s.Ell), "--k-max", strconv.Itoa(s.KMax))
	}
	if t := s.Transient; t.On() {
		args = append(args, "--transient", string(t.Mode))
		switch t.Mode {
		case "initial":
			args = append(args, "--link-cap", strconv.Itoa(t.LinkCap))
		case "adversarial":
			args = append(args, "--adversary", t.AdversaryFor(s.Seed, algo.AdversariesOf(reg)), "--link-cap", strconv.Itoa(t.LinkCap))
		case "during":
			args = append(args, "--corruptions", strconv.Itoa(t.Events), "--corrupt-every", f(t.Every))
		}
		if len(t.Edits) > 0 {
			args = append(args, "--edits", faults.FormatEdits(t.Edits))
		}
	}
	if s.Timeout != 0 {
		args = append(args, "--timeout", f(s.Timeout))
	}
	if s.NoBaseline {
		args = append(args, "--no-baseline")
	}
	if s.Repair {
		args = append(args, "--repair")
	}
	if s.FT && s.Protocol == ProtocolPaper {
		args = append(args, "--protocol", string(s.Protocol))
	}
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$`\\") {
			args[i] = fmt.Sprintf("%q", a)
		}
	}
	return strings.Join(args, " ")
}
