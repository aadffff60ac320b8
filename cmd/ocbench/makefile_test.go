package main

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestMakeHelp: `make help` names every target of the Makefile's .PHONY
// list, so that none is hidden from a newcomer.
func TestMakeHelp(t *testing.T) {
	_, here, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var phony []string
	helped := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, ".PHONY:"); ok {
			phony = append(phony, strings.Fields(rest)...)
		}
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), `@echo "make `); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				helped[f[0]] = true
			}
		}
	}
	if len(phony) == 0 {
		t.Fatal("no .PHONY line in the Makefile")
	}
	for _, target := range phony {
		if !helped[target] {
			t.Errorf("make help does not name the target %q", target)
		}
	}
}

// TestMakeHelpTimesMatchREADME: where `make help` and README's tables
// both give a target's time, they give the same time ("about 1.5
// minutes" and "90 s" are one time), so a newcomer reads one figure.
func TestMakeHelpTimesMatchREADME(t *testing.T) {
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(here), "..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	helpTime := regexp.MustCompile(`(?:about |~)(an hour|a minute and a half|[0-9.]+ (?:minutes?|min|s|h)\b)`)
	help := map[string]float64{}
	for _, line := range strings.Split(string(mk), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), `@echo "make `)
		if !ok {
			continue
		}
		target := strings.Fields(rest)[0]
		if m := helpTime.FindStringSubmatch(rest); m != nil {
			help[target] = seconds(t, m[1])
		}
	}
	row := regexp.MustCompile("(?m)^\\| `make ([a-z-]+)` \\| ([0-9.]+ (?:s|min|h))\\b")
	compared := 0
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		h, ok := help[m[1]]
		if !ok {
			continue
		}
		compared++
		r := seconds(t, m[2])
		if math.Abs(r-h) > 0.01*h {
			t.Errorf("make %s: README says %s, make help %gs", m[1], m[2], h)
		}
	}
	if compared < 4 {
		t.Errorf("only %d targets have a time in both README and make help (help: %v)", compared, help)
	}
}

// seconds reads a duration as README and make help write them: "90 s",
// "15 min", "17 minutes", "1 h", "an hour", "a minute and a half".
func seconds(t *testing.T, s string) float64 {
	t.Helper()
	switch s {
	case "an hour":
		return 3600
	case "a minute and a half":
		return 90
	}
	f := strings.Fields(s)
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		t.Fatalf("duration %q: %v", s, err)
	}
	switch {
	case f[1] == "s":
		return v
	case strings.HasPrefix(f[1], "min"):
		return 60 * v
	default:
		return 3600 * v
	}
}
