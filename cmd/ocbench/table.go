package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/ocbench/ocbench/results"
)

// table is the readable table's choice of columns: the key columns that
// fit results.Width (the default), every column (--wide), or those
// --columns names.
type table struct {
	cols     []results.Column // the table's columns, all of them
	priority []string         // the default's keys, most important first
	wide     bool
	chosen   []results.Column // --columns, if given
}

// chooseTable returns the table of the runs of list as the flags choose
// it. --columns names are checked against the table before anything
// runs; --wide and --columns exclude each other and --format json or kv
// (--json). It checks --format, and sets o.json for --format json.
func chooseTable(o *options, fs *pflag.FlagSet, list []config) (*table, error) {
	t := &table{cols: results.FailureFreeColumns, priority: results.FailureFreeDefault, wide: o.wide}
	if len(list) > 0 && list[0].spec.Faults.Crashes > 0 {
		t.cols, t.priority = results.CrashColumns, results.CrashDefault
	}
	if len(list) > 0 && list[0].spec.Transient.On() {
		t.cols, t.priority = results.StabilizationColumns, results.StabilizationDefault
	}
	switch {
	case o.format != "table" && o.format != "json" && o.format != "kv":
		return nil, fmt.Errorf("--format: %q is not table, json or kv", o.format)
	case o.json && fs.Changed("format") && o.format != "json":
		return nil, fmt.Errorf("--json: it is --format json, and --format says %s; drop one", o.format)
	case o.json:
		o.format = "json"
	case o.format == "json":
		o.json = true
	}
	for _, name := range []string{"wide", "columns"} {
		if fs.Changed(name) && o.format != "table" {
			return nil, fmt.Errorf("--%s: it chooses the table's columns, and --format %s prints every field; drop one", name, o.format)
		}
	}
	if fs.Changed("wide") && fs.Changed("columns") {
		return nil, fmt.Errorf("--columns: --wide shows every column already; drop one")
	}
	if fs.Changed("columns") {
		c, err := results.Choose(t.cols, o.columns)
		if err != nil {
			return nil, fmt.Errorf("--columns: %w", err)
		}
		t.chosen = c
	}
	return t, nil
}

// width is the most runes a line takes: 0 (no limit) with --wide.
func (t *table) width() int {
	if t.wide {
		return 0
	}
	return results.Width
}

// write writes the table of runs under the header lines.
func (t *table) write(w io.Writer, header []string, runs []*results.Run) error {
	header = append(header[:len(header):len(header)], results.IPSC2Lines(runs)...)
	switch {
	case t.wide:
		return results.WriteTable(w, header, t.cols, runs)
	case t.chosen != nil:
		return results.WriteFitted(w, header, t.chosen, runs, results.Width, nil)
	}
	cols, left := results.Fit(t.cols, t.priority, runs, results.Width)
	return results.WriteFitted(w, header, cols, runs, results.Width, left)
}
