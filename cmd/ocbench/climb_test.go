package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestClimbJSON: --climb with --json prints one JSON object, the worst run
// and the climb that found it, and nothing else; without --json, the table
// (issue 40, defect 6: --json was silently ignored).
func TestClimbJSON(t *testing.T) {
	base := []string{"--algo", "kofl", "--transient", "initial", "--climb", "3", "--nodes", "4", "--requests", "20", "--no-save", "--quiet"}
	for _, c := range []struct {
		json bool
	}{{true}, {false}} {
		args := base
		if c.json {
			args = append(append([]string{}, base...), "--json")
		}
		code, out, errs := runWithin(t, 60*time.Second, args)
		if code != 0 || errs != "" {
			t.Fatalf("%q: exit %d, stderr %q", args, code, errs)
		}
		var got climbJSON
		err := json.Unmarshal([]byte(out), &got)
		if !c.json {
			if err == nil || !strings.HasPrefix(out, "# worst-case climb: 3 edits") || !strings.HasSuffix(out, "\nVALID: 0 violations, records complete (1 configuration, 1 run)\n") {
				t.Errorf("%q: not the table: %q", args, out)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: not one JSON object (%v): %q", args, err, out)
		}
		if len(got.Runs) != 1 || got.Runs[0].Algorithm != "kofl" || got.Climb.Steps != 3 || got.Climb.Measured != 4 ||
			len(got.Climb.Kept) == 0 || got.Climb.Kept[0].Step != 0 || !strings.Contains(got.Climb.Replay, "ocbench --algo kofl") ||
			!strings.Contains(got.Climb.Replay, got.Climb.Edits) {
			t.Errorf("%q: %+v", args, got)
		}
	}
}
