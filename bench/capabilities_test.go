package bench

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ocbench/ocbench/algo"
	"github.com/ocbench/ocbench/internal/field"
	"github.com/ocbench/ocbench/workload"
)

// TestCapabilities checks that what bench learns of an algorithm comes
// from the optional interfaces its package implements: the reference
// algorithm, the stabilization bound, the protocols offered and the
// enumerable initial configurations.
func TestCapabilities(t *testing.T) {
	for _, tc := range []struct {
		name       string
		reference  bool
		bound      float64
		unit       string
		paper      bool // offers the paper's failure protocol
		enumerable bool
	}{
		{name: "opencube", reference: true, paper: true},
		{name: "kofl", bound: 5, unit: "traversals", enumerable: true},
		{name: "naimi-trehel"},
		{name: "suzuki-kasami"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := algo.IsReference(tc.name); got != tc.reference {
				t.Errorf("IsReference = %v, want %v", got, tc.reference)
			}
			if b, u := algo.StabilizationBound(tc.name); b != tc.bound || u != tc.unit {
				t.Errorf("StabilizationBound = %g %q, want %g %q", b, u, tc.bound, tc.unit)
			}
			if got := slices.Contains(algo.Enumerable(), tc.name); got != tc.enumerable {
				t.Errorf("in algo.Enumerable() = %v, want %v", got, tc.enumerable)
			}
			v, ok := lookup(tc.name).(algo.ProtocolAlgorithm)
			if got := ok && slices.Contains(v.Protocols(), string(ProtocolPaper)); got != tc.paper {
				t.Errorf("offers paper = %v, want %v", got, tc.paper)
			}
		})
	}
	if names := algo.Ordered(); names[0] != "opencube" {
		t.Errorf("algo.Ordered()[0] = %q, want the reference algorithm first", names[0])
	}
}

// TestProtocolOffered checks that the paper's failure protocol is refused
// for an algorithm that does not offer it, naming the one that does.
func TestProtocolOffered(t *testing.T) {
	s := Spec{Algorithm: "nishio", Nodes: 8, Requests: 10, Workload: workload.Sequential, CSTime: 1, FT: true, Protocol: ProtocolPaper}
	_, err := s.Normalized()
	var fe *field.Error
	if !errors.As(err, &fe) || fe.Field != "Protocol" || !strings.Contains(err.Error(), "only opencube") {
		t.Fatalf("Normalized() = %v, want a Protocol error naming opencube", err)
	}
	s.Algorithm = "opencube"
	if _, err := s.Normalized(); err != nil {
		t.Fatalf("opencube with the paper's protocol: %v", err)
	}
}
