package algo

import (
	"slices"
	"testing"

	"github.com/ocbench/ocbench/proto"
)

// named is an algorithm with only a name: enough for the registry.
type named struct {
	proto.Algorithm
	name string
}

func (a named) Name() string { return a.name }

// TestRegister: a registered algorithm is found by its name and listed,
// an unknown name is not found, and a second registration of a name or an
// empty name panics.
func TestRegister(t *testing.T) {
	Register(named{name: "test-a"})
	if a, ok := Lookup("test-a"); !ok || a.Name() != "test-a" {
		t.Errorf("Lookup(test-a) = %v, %v", a, ok)
	}
	if _, ok := Lookup("test-none"); ok {
		t.Error("Lookup found an algorithm never registered")
	}
	if !slices.Contains(Names(), "test-a") {
		t.Errorf("Names() = %v, without test-a", Names())
	}
	for _, name := range []string{"test-a", ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			Register(named{name: name})
		}()
	}
}
