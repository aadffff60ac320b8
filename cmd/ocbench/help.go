package main

import (
	"fmt"
	"strings"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/results"
	"github.com/spf13/pflag"
)

// flagUsages lists every flag of fs with its type and its default; an empty
// string or false says nothing, a zero number is shown (it often means
// something: --think 0 is N × cs-time).
func flagUsages(fs *pflag.FlagSet) string {
	type line struct{ left, usage string }
	var lines []line
	width := 0
	fs.VisitAll(func(f *pflag.Flag) {
		left := "      --" + f.Name
		if f.Shorthand != "" {
			left = "  -" + f.Shorthand + ", --" + f.Name
		}
		if t := f.Value.Type(); t != "bool" {
			left += " " + typeName(t)
		}
		def := f.DefValue
		switch {
		case f.Name == "help", f.Value.Type() == "bool" && def == "false", f.Value.Type() == "string" && def == "":
			def = ""
		case f.Value.Type() == "string":
			def = fmt.Sprintf("%q", def)
		case strings.HasSuffix(f.Value.Type(), "Slice"):
			def = strings.Trim(def, "[]")
		}
		usage := f.Usage
		if def != "" {
			usage += " (default " + def + ")"
		}
		lines = append(lines, line{left, usage})
		width = max(width, len([]rune(left)))
	})
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%-*s   %s\n", width, l.left, l.usage)
	}
	return b.String()
}

// num formats a number for a message (results.Number).
func num(x float64) string { return results.Number(x) }

func typeName(t string) string {
	switch t {
	case "stringSlice":
		return "list"
	case "intSlice":
		return "ints"
	case "float64":
		return "float"
	case "int64", "uint64":
		return "int"
	}
	return t
}

// whatRan is the header line naming the algorithms, the sizes and where the
// nodes ran.
func whatRan(list []config, ri *runtimeInfo) string {
	var algos, nodes []string
	seenA, seenN := map[string]bool{}, map[int]bool{}
	for _, c := range list {
		if !seenA[c.spec.Algorithm] {
			seenA[c.spec.Algorithm] = true
			algos = append(algos, c.spec.Algorithm)
		}
		if !seenN[c.spec.Nodes] {
			seenN[c.spec.Nodes] = true
			nodes = append(nodes, fmt.Sprint(c.spec.Nodes))
		}
	}
	where := "ranks: 1 (simulator: all nodes in one process, no placement)"
	switch {
	case ri != nil && ri.farm:
		where = fmt.Sprintf("ranks: %d (MPI task farm: each run's nodes in one rank's simulator, no placement)", ri.ranks)
	case ri != nil:
		where = fmt.Sprintf("ranks: %d (MPI, each run split over the ranks), placement %s", ri.ranks, ri.placement)
	}
	return fmt.Sprintf("algorithms: %s; N = %s; %s", strings.Join(algos, ", "), strings.Join(nodes, ", "), where)
}

// adversaryHelp names the adversarial configurations of each algorithm
// that builds some (proto.AdversarialAlgorithm), for --adversary's help:
// "kofl: a, b, c".
func adversaryHelp() string {
	var out []string
	for _, a := range algo.Ordered() {
		if names := algo.Adversaries(a); len(names) > 0 {
			out = append(out, a+": "+strings.Join(names, ", "))
		}
	}
	return strings.Join(out, "; ")
}

// timeoutHelp states the default time-out of each algorithm that takes one
// as a parameter (proto.TimeoutAlgorithm), for --timeout's help: "kofl: in
// δ per ring node, default 4".
func timeoutHelp() string {
	var out []string
	for _, a := range algo.Ordered() {
		if t, unit := algo.DefaultTimeout(a); unit != "" {
			out = append(out, fmt.Sprintf("%s: in %s, default %g", a, unit, t))
		}
	}
	return strings.Join(out, "; ")
}
