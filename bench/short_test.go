package bench

import (
	"flag"
	"testing"
)

// shortened returns n, the size of a sweep (seeds, requests); under
// go test -short, unless the flag named was given on the command line, at
// most short: the sample that -short runs. The flag's default, and so every
// run without -short (make test), keeps the full sweep.
func shortened(name string, n, short int) int {
	if !testing.Short() || flagGiven(name) {
		return n
	}
	return min(n, short)
}

// flagGiven reports whether the flag named was set on the command line.
func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
