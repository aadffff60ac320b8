package results

import (
	"fmt"
	"strings"
)

// Validation is the verdict on a command's runs, as HPCG's "result is
// VALID" and Graph500's validation give theirs: valid when no run broke
// an invariant and every record the command was to make is there (and,
// MPI in virtual time with --verify, equal to the simulator's).
type Validation struct {
	Valid bool `json:"valid"`
	// Violations is the safety and liveness violations of every run.
	Violations         int `json:"violations"`
	SafetyViolations   int `json:"safety_violations"`
	LivenessViolations int `json:"liveness_violations"`
	// Configurations and Runs count the records made: the configurations
	// (algorithm × N) and the seeds run over them.
	Configurations int `json:"configurations"`
	Runs           int `json:"runs"`
	// Verified counts the runs replayed in the simulator and found equal
	// (MPI in virtual time, --verify); 0 otherwise.
	Verified int `json:"verified,omitempty"`
	// Reason says why the runs are not valid ("" when they are).
	Reason string `json:"reason,omitempty"`
}

// Validate returns the verdict on runs, the merged records of a command
// that was to run perConfig seeds of each configuration; verified is
// whether each run was to be replayed in the simulator and found equal
// (IdenticalToSimulator).
func Validate(runs []*Run, perConfig int, verified bool) Validation {
	v := Validation{Valid: true, Configurations: len(runs)}
	var why []string
	first := ""
	for _, r := range runs {
		n := len(r.Seeds)
		if n == 0 {
			n = 1
		}
		v.Runs += n
		v.SafetyViolations += r.SafetyViolations
		v.LivenessViolations += r.LivenessViolations
		if r.SafetyViolations+r.LivenessViolations > 0 && first == "" {
			first = fmt.Sprintf("%s N=%d", r.Algorithm, r.Nodes)
			if replay := replayOf(r.Violation); replay != "" {
				first += " (replay: " + replay + ")"
			}
		}
		if n != perConfig {
			why = append(why, fmt.Sprintf("%s N=%d: %d of %d runs recorded", r.Algorithm, r.Nodes, n, perConfig))
		}
		if verified {
			v.Verified += r.IdenticalToSimulator
			if r.IdenticalToSimulator != n {
				why = append(why, fmt.Sprintf("%s N=%d: %d of %d runs found equal to the simulator's", r.Algorithm, r.Nodes, r.IdenticalToSimulator, n))
			}
		}
	}
	v.Violations = v.SafetyViolations + v.LivenessViolations
	if v.Violations > 0 {
		w := fmt.Sprintf("%d violations (%d safety, %d liveness)", v.Violations, v.SafetyViolations, v.LivenessViolations)
		if first != "" {
			w += ", the first in " + first
		}
		why = append([]string{w}, why...)
	}
	if len(runs) == 0 {
		why = append(why, "no record")
	}
	if len(why) > 0 {
		v.Valid = false
		v.Reason = strings.Join(why, "; ")
	}
	return v
}

// replayOf returns the command that replays a violation, from a record's
// violation text ("…; replay: ocbench --algo …"), or "" if it names none.
func replayOf(violation string) string {
	_, replay, ok := strings.Cut(violation, "; replay: ")
	if !ok {
		return ""
	}
	replay, _, _ = strings.Cut(replay, ";")
	return flat(replay)
}

// Invalid returns the verdict on a command whose records could not be
// checked or made: why says what went wrong.
func Invalid(why string) Validation {
	return Validation{Reason: why}
}

// Line is the verdict in one line, the last line of ocbench's table:
//
//	VALID: 0 violations, records complete (2 configurations, 10 runs)
//	VALID: 0 violations, records complete (1 configuration, 5 runs, 5 equal to the simulator's)
//	INVALID: 3 violations (3 safety, 0 liveness), the first in opencube N=32 (replay: ocbench --algo opencube …); no figure above is a valid result
func (v Validation) Line() string {
	if !v.Valid {
		return "INVALID: " + flat(v.Reason) + "; no figure above is a valid result"
	}
	what := fmt.Sprintf("%d configuration%s, %d run%s", v.Configurations, plural(v.Configurations, "", "s"), v.Runs, plural(v.Runs, "", "s"))
	if v.Verified > 0 {
		what += fmt.Sprintf(", %d equal to the simulator's", v.Verified)
	}
	return fmt.Sprintf("VALID: %d violations, records complete (%s)", v.Violations, what)
}

// flat joins the lines of s with spaces.
func flat(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
