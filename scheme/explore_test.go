package scheme_test

import (
	"strings"
	"testing"

	"github.com/ocbench/ocbench/explore"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
)

// instances are the general scheme's instances: the registered rules, the
// lift policy, the topology-aware rule and the gateway composition (two
// networks of two nodes).
var instances = []scheme.Algorithm{
	{Rule: scheme.NaimiTrehel{}},
	{Rule: scheme.Raymond{}},
	{Rule: scheme.Centralized{}},
	{Rule: scheme.Raymond{}, Lift: true},
	{Rule: scheme.NaimiTrehel{}, Lift: true},
	{Rule: scheme.Topology{Net: scheme.Hypercube{}}},
	{Rule: scheme.Gateway{A: 2}},
}

// TestExploreInstances: the explorer, which evaluates an algorithm's
// EveryStep invariants in every state it reaches, finds Proposition 1's
// a_tree and Properties 1–3 of RR-1692 true in every state of every
// instance at N = 4, each node requesting twice, in any delivery order.
func TestExploreInstances(t *testing.T) {
	for _, a := range instances {
		names := ""
		for _, inv := range a.Invariants(false) {
			names += inv.Name + ";"
		}
		if !strings.Contains(names, scheme.PropertiesInvariant.Name) || !strings.Contains(names, scheme.ATreeInvariant.Name) {
			t.Fatalf("%s: invariants %q lack Properties 1–3 or a_tree", a.Name(), names)
		}
		requests := 2
		if testing.Short() {
			requests = 1
		}
		e, err := explore.New(explore.Config{Algorithm: a, Nodes: 4, Requests: requests, MaxStates: 3_000_000})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Run()
		if err != nil {
			t.Fatal(err)
		}
		if res.Violation != nil || res.Limit != "" {
			t.Fatalf("%s: violation %v, limit %q", a.Name(), res.Violation, res.Limit)
		}
		t.Logf("%s: %d states", a.Name(), res.States)
	}
}

// broken is an instance whose node 3 starts with father nil without the
// token: Property 3 (ii) fails in the initial state. Its only invariant is
// Properties 1–3 (a_tree, which it breaks too, would be found first).
type broken struct{ scheme.Algorithm }

func (broken) Invariants(bool) []proto.Invariant {
	return []proto.Invariant{scheme.PropertiesInvariant}
}

func (b broken) NewNodes(n int) []proto.Node {
	nodes := b.Algorithm.NewNodes(n)
	nodes[3].(*scheme.Node).Father = proto.Nil
	return nodes
}

// TestExploreFindsProperty: the explorer reports a state that breaks
// Property 3, so the check it runs is a real one.
func TestExploreFindsProperty(t *testing.T) {
	a := broken{scheme.Algorithm{Rule: scheme.NaimiTrehel{}}}
	e, err := explore.New(explore.Config{Algorithm: a, Nodes: 4, Requests: 1, MaxStates: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	if res.Violation == nil || !strings.Contains(res.Violation.What, "property 3 (ii)") {
		t.Fatalf("violation %v, want Property 3 (ii)'s", res.Violation)
	}
	t.Logf("found: %s", res.Violation.What)
}
