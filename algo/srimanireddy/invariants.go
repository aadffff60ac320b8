package srimanireddy

import (
	"fmt"

	"github.com/ocbench/ocbench/algo/kexcl"
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Invariants implements proto.Algorithm: without crashes, at most ℓ nodes
// in the critical section (kexcl.AtMost), Tokens and TokenUse after every
// step, proto.NoDeadlock when nothing is in flight. None with crashes: the
// algorithm has no failure protocol.
func (a Algorithm) Invariants(crashes bool) []proto.Invariant {
	return kexcl.Invariants(a.Ell, crashes,
		proto.Invariant{Name: "tokens", When: proto.EveryStep, Check: Tokens},
		proto.Invariant{Name: "token_use", When: proto.EveryStep, Check: TokenUse},
	)
}

func nodes(s proto.System) []*Node { return nodecast.All[*Node](s) }

// Tokens checks that exactly ℓ tokens exist: held by the nodes or in
// flight. With TokenUse (a node in the critical section holds a token of
// its own) no token is used twice. O(n + messages in flight).
func Tokens(s proto.System) error {
	ns := nodes(s)
	if len(ns) == 0 {
		return nil
	}
	held, flying := 0, 0
	for _, nd := range ns {
		held += nd.held
	}
	s.ForEachInFlight(func(m *proto.Message) {
		if m.Type == Token {
			flying++
		}
	})
	if ell := ns[0].ell; held+flying != ell {
		return fmt.Errorf("tokens: %d held + %d in flight, ℓ = %d", held, flying, ell)
	}
	return nil
}

// TokenUse checks how a node holds tokens: a node in the critical section
// asks and holds one at least; a node that waits holds none (it would
// have entered); a node queues requests only while it holds exactly the
// token it uses (the queue leaves with the last idle token). O(n).
func TokenUse(s proto.System) error {
	for i, nd := range nodes(s) {
		switch {
		case nd.inCS && (!nd.asked || nd.held < 1):
			return fmt.Errorf("token_use: node %d is in the critical section (asked %v) holding %d tokens", i, nd.asked, nd.held)
		case nd.asked && !nd.inCS && nd.held > 0:
			return fmt.Errorf("token_use: node %d waits while holding %d tokens", i, nd.held)
		case len(nd.q) > 0 && !(nd.inCS && nd.held == 1):
			return fmt.Errorf("token_use: node %d queues %d requests, holding %d tokens (in the critical section: %v)", i, len(nd.q), nd.held, nd.inCS)
		}
	}
	return nil
}

// IdleServes checks that a node with an idle token knows no pending
// request (one not granted) of another node: an idle token is never kept
// while a request it could serve is known. O(n) per node with an idle
// token, so O(ℓ·n): a test's check, not a runtime's.
func IdleServes(s proto.System) error {
	for i, nd := range nodes(s) {
		idle := nd.held
		if nd.inCS {
			idle--
		}
		if idle <= 0 {
			continue
		}
		for j := range nd.n {
			if j != i && nd.rn[j] > nd.ln[j] {
				return fmt.Errorf("idle_serves: node %d keeps %d idle tokens while node %d's request %d is not granted", i, idle, j, nd.rn[j])
			}
		}
	}
	return nil
}
