// Package kofl implements the self-stabilizing k-out-of-ℓ exclusion of
// Datta, Hadid and Villain (Euro-Par 2002) on the hypercube's Gray-code
// ring, as pure state machines. See docs/algorithms/kofl.md.
package kofl
