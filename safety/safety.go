// Package safety is the safety rule of each family of algorithms
// (proto.Family), written once for every runtime that checks it: the
// simulator after every step, the explorer in every state, a split run's
// window boundaries, the trace checker and the MPI ranks.
//
// There is one checker per family:
//
//   - Mutex, mutual exclusion (proto.TokenBased and
//     proto.PermissionBased): at most one node is in the critical section;
//   - KExclusion, k-out-of-ℓ exclusion (proto.KExclusion): the units used
//     by the nodes in the critical section add up to ℓ at most;
//   - Token, the token's uniqueness (proto.TokenBased, besides Mutex):
//     exactly one token exists, held or in flight; with crashes, at most
//     one live token (one that can still be used: Token.Live).
//
// A checker observes counts over the nodes that are up: an observer that
// sees whole configurations (the simulator's counts after a step, the
// explorer's state, the sums of a split run's parts) passes them to the
// checker's Broken method and, if broken, describes the violation with
// its What method, in the words records, traces and explorer output use,
// adding where it saw it (after which step, at which time). An observer
// that sees only the entries into and exits from the critical section in
// time order (a trace; the stays ranks report) feeds them to Entries,
// which applies Mutex or KExclusion at every entry.
//
// The package depends on proto alone, so that every runtime can import
// it. Broken methods are small enough to be inlined: the simulator calls
// them after every step.
package safety

import (
	"fmt"

	"github.com/ocbench/ocbench/proto"
)

// Mutex is mutual exclusion's checker: at most one node is in the
// critical section.
type Mutex struct{}

// Broken reports whether inCS nodes in the critical section break mutual
// exclusion.
func (Mutex) Broken(inCS int) bool { return inCS > 1 }

// What describes a configuration with inCS nodes in the critical section
// ("2 nodes are in the critical section").
func (Mutex) What(inCS int) string {
	return fmt.Sprintf("%d nodes are in the critical section", inCS)
}

// Entered describes the entry of node id into the critical section while
// others other nodes were in it.
func (Mutex) Entered(id proto.NodeID, others int) string {
	return fmt.Sprintf("node %d entered the critical section while %d other node(s) were in it", id, others)
}

// KExclusion is k-out-of-ℓ exclusion's checker: the nodes in the critical
// section use Ell units (of the resource) at most.
type KExclusion struct{ Ell int }

// Broken reports whether units in use by the nodes in the critical
// section break k-exclusion.
func (k KExclusion) Broken(units int) bool { return units > k.Ell }

// What describes a configuration whose nodes in the critical section use
// units units ("4 units in use by the nodes in the critical section,
// ℓ = 3").
func (k KExclusion) What(units int) string {
	return fmt.Sprintf("%d units in use by the nodes in the critical section, ℓ = %d", units, k.Ell)
}

// Token is the token's checker (a token-based algorithm): exactly one
// token exists, held by a node that is up or in flight; with Crashes, at
// most one live token, for a crash may destroy the only one (the failure
// protocol then makes a new one) and leave copies that will be discarded.
type Token struct {
	// Type is the token's message type.
	Type proto.MsgType
	// Crashes: nodes may crash.
	Crashes bool
}

// Count returns the tokens the rule counts, from held (the nodes up that
// hold the token) and inFlight (the token messages in flight): their sum,
// or with Crashes and more than one, the live ones, held plus live()
// (which counts the token messages for which Live holds); live is called only
// then.
func (k Token) Count(held, inFlight int, live func() int) int {
	t := held + inFlight
	if t > 1 && k.Crashes {
		t = held + live()
	}
	return t
}

// Carries reports whether m is a token message.
func (k Token) Carries(m *proto.Message) bool { return m.Type == k.Type }

// Live reports whether m, a token message in flight (Carries), is a live
// token: its destination is up (toUp) and will not discard it as stale
// (its stamp, the token's generation, is not below the destination's,
// toGen: View.Gen).
func (Token) Live(m *proto.Message, toUp bool, toGen uint64) bool {
	return toUp && m.Stamp >= toGen
}

// Broken reports whether t tokens (Count's) break the rule: more than
// one, or none without crashes.
func (k Token) Broken(t int) bool { return t > 1 || t == 0 && !k.Crashes }

// What describes a configuration with t tokens (Count's), held nodes
// holding one and inFlight in flight ("2 tokens exist (1 held, 1 in
// flight)").
func (k Token) What(t, held, inFlight int) string {
	return fmt.Sprintf("%d tokens exist (%d held, %d in flight)", t, held, inFlight)
}

// Entries checks mutual or k-exclusion from the entries into and exits
// from the critical section alone, fed in time order (exits before
// entries at the same instant). A stay in the critical section is named
// by the observer's key (a node id, an index in a list of stays) and uses
// some units (1 under mutual exclusion). The zero value is not usable:
// see NewEntries.
type Entries struct {
	k     KExclusion
	kexcl bool
	units int   // the units in use (k-exclusion)
	in    []int // the keys of the stays under way (mutual exclusion)
}

// NewEntries returns the checker of Mutex (ell 0) or of KExclusion{ell}
// (ell > 0).
func NewEntries(ell int) *Entries {
	return &Entries{k: KExclusion{Ell: ell}, kexcl: ell > 0}
}

// Breach is an entry that breaks the rule.
type Breach struct {
	// Other is, under mutual exclusion, the key of a stay under way at the
	// entry: the earliest entered of them.
	Other int
	// InCS is, under mutual exclusion, the number of stays under way with
	// the new one; Units, under k-exclusion, the units in use with it.
	InCS, Units int
}

// Enter notes the entry of stay key using units units and returns the
// breach, if the entry breaks the rule.
func (e *Entries) Enter(key, units int) (Breach, bool) {
	if e.kexcl {
		e.units += units
		return Breach{Units: e.units}, e.k.Broken(e.units)
	}
	e.in = append(e.in, key)
	if n := len(e.in); (Mutex{}).Broken(n) {
		return Breach{Other: e.in[0], InCS: n}, true
	}
	return Breach{}, false
}

// Exit notes the end of stay key, which used units units (by an exit or
// a crash). Under mutual exclusion, a key with no stay under way is
// allowed (the exit of a stay a crash ended) and changes nothing; under
// k-exclusion Entries counts the units alone, and only a stay entered may
// end.
func (e *Entries) Exit(key, units int) {
	if e.kexcl {
		e.units -= units
		return
	}
	for i, k := range e.in {
		if k == key {
			e.in = append(e.in[:i], e.in[i+1:]...)
			return
		}
	}
}
