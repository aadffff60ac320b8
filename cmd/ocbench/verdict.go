package main

import (
	"fmt"
	"io"

	"github.com/ocbench/ocbench/results"
)

// printInvalid prints the verdict on runs whose records could not be
// checked or made (err says why) where the verdict goes in the format
// chosen: the table's last line, or the key: value lines' verdict. JSON
// gets nothing: the error, on stderr, is the verdict. It returns err.
func printInvalid(o *options, stdout io.Writer, err error) error {
	v := results.Invalid(err.Error())
	switch o.format {
	case "kv":
		if e := results.WriteKV(stdout, kvHead(o, nil), nil, v); e != nil {
			return fmt.Errorf("%w (and writing the verdict: %v)", err, e)
		}
	case "json":
	default:
		fmt.Fprintln(stdout, v.Line())
	}
	return err
}

// kvHead is the first lines of --format kv after its version: what ran,
// where and from which command (the saved run's environment holds more).
func kvHead(o *options, list []config) [][2]string {
	runtime, ranks, clockName := "simulator", 1, "virtual"
	if ri := o.runtimeInfo; ri != nil {
		runtime, ranks, clockName = "mpi", ri.ranks, ri.clock
	}
	head := [][2]string{
		{"ocbench_version", version},
		{"commit", commit()},
		{"runtime", runtime},
		{"ranks", fmt.Sprint(ranks)},
		{"clock", clockName},
		{"command", savedCommand(o)},
		{"delta_seconds", fmt.Sprint(o.delta)},
		{"seed", fmt.Sprint(o.seed)},
		{"repeat", fmt.Sprint(o.repeat)},
	}
	if o.preset != "" {
		head = append(head, [2]string{"preset", o.preset})
	}
	if len(list) > 0 {
		head = append(head, [2]string{"workload", string(list[0].spec.Workload)})
	}
	return head
}
