package main

import (
	"errors"
	"fmt"

	"github.com/ocbench/ocbench/internal/field"
)

// flagOf maps the fields of bench.Spec (field.Error's paths) to the
// flags that set them; "Ranks" is mpirun's -np.
var flagOf = map[string]string{
	"Algorithm":           "--algo",
	"Nodes":               "--nodes",
	"Requests":            "--requests",
	"Workload":            "--workload",
	"Seed":                "--seed",
	"Delta":               "--delta",
	"CSTime":              "--cs-time",
	"Think":               "--think",
	"MinDelay":            "--min-delay",
	"FIFO":                "--fifo",
	"Check":               "--check",
	"Faults.Crashes":      "--crashes",
	"Faults.Spacing":      "--crash-spacing",
	"Faults.Every":        "--crash-every",
	"Faults.Start":        "--crash-start",
	"Faults.Down":         "--downtime",
	"Faults.DownDist":     "--downtime-dist",
	"Faults.Permanent":    "--permanent",
	"Faults.Target":       "--crash-target",
	"FT":                  "--ft",
	"CSEstimate":          "--cs-estimate",
	"LateFraction":        "--delay-violations",
	"LateFactor":          "--late-factor",
	"Repair":              "--repair",
	"NoBaseline":          "--no-baseline",
	"Protocol":            "--protocol",
	"Ell":                 "--ell",
	"KMax":                "--k-max",
	"Transient.Mode":      "--transient",
	"Transient.Events":    "--corruptions",
	"Transient.Every":     "--corrupt-every",
	"Transient.LinkCap":   "--link-cap",
	"Transient.Adversary": "--adversary",
	"Transient.Edits":     "--edits",
	"Timeout":             "--timeout",
	"Placement":           "--placement",
	"Ranks":               "mpirun -np",
	"TraceTree":           "--trace",
}

// flagError returns err in the words of the command line: a
// field.Error (alone, or wrapped in a runtime's validation error)
// becomes "--flag: reason"; any other error is returned as it is.
func flagError(err error) error {
	var fe *field.Error
	if !errors.As(err, &fe) {
		return err
	}
	flag, ok := flagOf[fe.Field]
	if !ok {
		flag = fe.Field
	}
	return fmt.Errorf("%s: %w", flag, fe.Err)
}
