// Package algo is the registry of the algorithms ocbench runs. Each
// algorithm's package registers itself when it is imported (the model is
// the standard library's database/sql and its drivers), and a program
// chooses the algorithms it offers by importing them: algo/all imports
// every one. The runtimes and the experiment layer know no algorithm by
// name; they look it up here, and read what it is from the catalogue
// (catalog.go): the order ocbench lists the algorithms in, and the
// capabilities each declares through proto's optional interfaces and this
// package's.
package algo

import (
	"fmt"
	"sort"
	"sync"

	"github.com/ocbench/ocbench/proto"
)

var (
	mu       sync.RWMutex
	registry = map[string]proto.Algorithm{}
)

// Register makes a available under a.Name(). It panics if the name is
// empty or taken: registering is done once, by the algorithm's package.
func Register(a proto.Algorithm) {
	mu.Lock()
	defer mu.Unlock()
	name := a.Name()
	if name == "" {
		panic("algo: Register of an algorithm without a name")
	}
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("algo: Register called twice for %q", name))
	}
	registry[name] = a
}

// Lookup returns the algorithm registered as name.
func Lookup(name string) (proto.Algorithm, bool) {
	mu.RLock()
	defer mu.RUnlock()
	a, ok := registry[name]
	return a, ok
}

// Names returns the names of the registered algorithms, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(registry))
	for name := range registry {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
