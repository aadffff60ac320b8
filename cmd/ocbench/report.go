package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/ocbench/ocbench/report"
	"github.com/ocbench/ocbench/results"
)

const reportExamples = `
Examples:
  ocbench report runs/                                 every saved run, into ocbench-report/report.md and SVG plots
  ocbench report --format html --image png -o r/ a.json b.json
                                                       one self-contained r/report.html with PNG plots

-o - --format html writes the page to the standard output. A report's file
never replaces an input, whatever the path's spelling. A saved run reached
twice (a directory named twice, a directory and a file in it, a link) counts
once. Only regular files of at most 256 MiB are read: a device or a FIFO is
refused when named and skipped, with a warning, in a directory.
Every saved run is checked before use (N in 2..2^26, numbers finite and in range, names
without markup): a file named that fails is refused (exit status 2); one in a directory is skipped, with a
warning that names it and the field.
`

// runReport is `ocbench report [flags] FILE…`: it reads saved runs (files,
// or directories of .json files) and writes a report with plots. Every
// saved run is validated before use (report.Validate): a file named that is
// not valid is refused (one line, exit status 2); one found in a directory
// is skipped, with a warning naming it.
func runReport(args []string, stdout, stderr io.Writer) int {
	var opt report.Options
	var dir string
	var help bool
	fs := pflag.NewFlagSet("ocbench report", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	fs.StringVarP(&dir, "output", "o", "ocbench-report", "directory to write the report into (created if needed; the report's files in it are replaced, never an input); - writes the page to stdout (--format html)")
	fs.StringVar(&opt.Format, "format", report.Formats[0], "report format: md (Markdown, images beside it) or html (one self-contained file)")
	fs.StringVar(&opt.Image, "image", report.Images[0], "image format of the plots: svg or png")
	fs.StringVar(&opt.Title, "title", "ocbench report", "the report's title")
	fs.StringVar(&opt.Name, "name", "", "name the page NAME.md (or .html) with its images in NAME/ beside it (unset: report.md, images beside it)")
	fs.BoolVarP(&help, "help", "h", false, "print this help")
	usage := func(w io.Writer) {
		fmt.Fprintf(w, "ocbench report: a report with plots from saved runs\n\nUsage:\n  ocbench report [flags] FILE|DIR…\n\nFlags:\n%s%s",
			flagUsages(fs), reportExamples)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			usage(stdout)
			return 0
		}
		fmt.Fprintf(stderr, "ocbench report: %v (see ocbench report --help)\n", err)
		return 2
	}
	if help {
		usage(stdout)
		return 0
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "ocbench report: no saved runs given (files or directories, e.g. %s/; see ocbench report --help)\n",
			filepath.Join(defaultOut, results.RunsDir))
		return 2
	}
	ins, skipped, err := report.Load(fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "ocbench report: %v\n", err)
		return 2
	}
	for _, sk := range skipped {
		fmt.Fprintf(stderr, "ocbench report: warning: skipping %v\n", sk.Err) // the error names the file
	}
	opt.Stdout = stdout
	opt.Command = results.QuoteCommand(append([]string{"ocbench", "report"}, args...))
	path, err := report.Write(dir, ins, opt)
	if err != nil {
		code := 1
		if ue := (*report.UsageError)(nil); errors.As(err, &ue) {
			code = 2 // an option, or an --output that cannot be written
		}
		fmt.Fprintf(stderr, "ocbench report: %v\n", err)
		return code
	}
	if path != "-" { // else stdout is the page's alone
		fmt.Fprintf(stdout, "wrote %s\n", path)
	}
	return 0
}
