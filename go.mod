module github.com/ocbench/ocbench

go 1.26

require (
	github.com/montanaflynn/stats v0.14.0
	github.com/spf13/pflag v1.0.10
)
