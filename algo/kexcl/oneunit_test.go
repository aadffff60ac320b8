package kexcl_test

import (
	"strings"
	"testing"

	"github.com/ocbench/ocbench/algo/kakugawa"
	"github.com/ocbench/ocbench/algo/raymondkex"
	"github.com/ocbench/ocbench/algo/srimanireddy"
	"github.com/ocbench/ocbench/proto"
)

// TestOneUnit: the ℓ-exclusion algorithms configured by a kexcl.Unit take
// ℓ and the seed through WithUnits, refuse K > 1 and ℓ < 1 under their
// name, and say that a request asks for one unit.
func TestOneUnit(t *testing.T) {
	for _, a := range []proto.KExclusionAlgorithm{raymondkex.Algorithm{}, srimanireddy.Algorithm{}, kakugawa.Algorithm{}} {
		name := a.(proto.Algorithm).Name()
		t.Run(name, func(t *testing.T) {
			if _, err := a.WithUnits(3, 2, 0); err == nil || !strings.HasPrefix(err.Error(), name+": K = 2") {
				t.Errorf("K = 2: %v", err)
			}
			if b, err := a.WithUnits(0, 1, 0); err == nil || b != nil || !strings.HasPrefix(err.Error(), name+": ℓ = 0") {
				t.Errorf("ℓ = 0: %v, %v", b, err)
			}
			b, err := a.WithUnits(4, 1, 7)
			if err != nil {
				t.Fatalf("ℓ = 4: %v", err)
			}
			if ell, k := b.(proto.KExclusionAlgorithm).Units(); ell != 4 || k != 1 {
				t.Errorf("ℓ = 4: Units %d, %d", ell, k)
			}
			if m, ok := b.(interface{ MaxK() int }); !ok || m.MaxK() != 1 {
				t.Errorf("MaxK: %v", ok)
			}
			if k := b.(proto.KExclusionAlgorithm).NeedOf(3); k != 1 {
				t.Errorf("tag 3 asks for %d units", k)
			}
		})
	}
}
