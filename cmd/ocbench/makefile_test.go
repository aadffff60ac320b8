package main

import (
	"os"
	"path/filepath"
	"runtime"
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
