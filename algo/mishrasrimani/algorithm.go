package mishrasrimani

import (
	"fmt"

	"github.com/ocbench/ocbench/algo/suzukikasami"
	"github.com/ocbench/ocbench/internal/nodecast"
	"github.com/ocbench/ocbench/proto"
)

// Config is the failure protocol's timing; nil in an Algorithm is the
// failure-free algorithm (Suzuki–Kasami, no timers).
type Config struct {
	// CSEstimate is an estimate of a critical section, in δ: the token
	// time-out is N·(CSEstimate+1)+2 δ.
	CSEstimate float64
}

// The time-outs, in δ (docs/algorithms/mishra-srimani.md says why).
const (
	// ReplyWait bounds a round trip (two delays of at most δ each), with a
	// margin: the wait for the answers to PRIVILEGE_CHECK, CREATE_PRIVILEGE
	// and a recovered node's restart.
	ReplyWait = 2.25
	// ObserveWait is how long a node waits for the outcome (a false alarm
	// or a recovery notice) of another node's regeneration before it
	// forgets it: a check and a creation (2 × ReplyWait) and the notice (δ),
	// with a margin.
	ObserveWait = 8
	// RetryWait is the time-out of a requester whose regeneration was
	// refused because a newer one was under way.
	RetryWait = 4
)

// Wait is the token time-out of a system of n nodes, in δ: a request
// reaches the holder within δ, and at most N−1 critical sections, each
// followed by a token transfer (at most δ), come before it.
func (c *Config) Wait(n int) float64 { return float64(n)*(c.CSEstimate+1) + 2 }

// Algorithm is Mishra and Srimani's algorithm: Suzuki–Kasami's with FT
// nil, with its failure protocol otherwise.
type Algorithm struct {
	FT *Config
}

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "mishra-srimani" }

// MemoryPerNode implements proto.MemoryEstimator: the request numbers at every node, and the token's, about 12 bytes
// per node of the system at each node (measured at N = 256..4096).
func (Algorithm) MemoryPerNode(n int) int64 { return 12*int64(n) + 512 }

// NewNodes implements proto.Algorithm: node 0 holds the token, of
// generation 0.
func (a Algorithm) NewNodes(n int) []proto.Node {
	return nodecast.New(n, func(nd *Node, id proto.NodeID) { nd.init(id, n, a.FT) })
}

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.TokenBased }

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// Events implements proto.Algorithm.
func (Algorithm) Events() []string { return eventNames[:] }

// StatedCost implements proto.CostAlgorithm: the survey's L·N+(N−1)
// (Table 1, and §4: "for a critical section entry ... under the absence of
// failures"), the cost it gives Suzuki–Kasami with bounded sequence
// numbers "for L mutual exclusion entries" (§4 on Suzuki–Kasami); read as
// that, per entry it is (L·N+(N−1))/L, 0 at the holder of the idle token,
// at L = suzukikasami.DefaultL. This implementation's request numbers are
// unbounded (Suzuki–Kasami's N per entry), so it measures below the
// figure by the (N−1)/L of the bounded rounds' acknowledgements.
func (Algorithm) StatedCost(n int) proto.Cost {
	l := suzukikasami.DefaultL
	return proto.Cost{Low: 0, High: float64(l*n+n-1) / float64(l), Text: fmt.Sprintf("L·N+(N−1) per L entries, L=%d", l),
		Source: "survey T1, §4", Kind: proto.Range}
}

// WithFailures implements proto.FaultTolerantAlgorithm: the algorithm with
// its time-outs, regeneration and restart protocol. Protocol is ignored
// (there is one).
func (Algorithm) WithFailures(f proto.Failures) proto.Algorithm {
	return Algorithm{FT: &Config{CSEstimate: f.CSEstimate}}
}

// FaultModel implements proto.FaultTolerantAlgorithm: one node failure at
// a time (the survey: "recover the system from a single node failure").
func (Algorithm) FaultModel() proto.FaultModel {
	return proto.FaultModel{OneAtATime: true, Text: "one node failure at a time; a recovered node rejoins (the project's restart protocol)"}
}

// The message types: Suzuki–Kasami's two, then the failure protocol's.
const (
	Request = suzukikasami.Request // request(j, RN[j])
	Token   = suzukikasami.Token   // PRIVILEGE(Q, LN), Stamp = its generation
)

// The failure protocol's message types (Cause proto.Failure).
const (
	PrivilegeCheck  proto.MsgType = iota + 2 // PRIVILEGE_CHECK(j): j asks whether the token exists
	RepCritical                              // "I hold the token"
	NoCrit                                   // "I do not hold the token, and I am not regenerating it"
	FalseAlarm                               // the check found the token: stop waiting for a regeneration
	CreatePrivilege                          // CREATE_PRIVILEGE(k): k is about to regenerate the token of generation Stamp
	Update                                   // the answer to CREATE_PRIVILEGE (Reply says which)
	Recovered                                // the token of generation Stamp is regenerated: the system recovered
	Restart                                  // a recovered node asks for the state it lost
	RestartReply                             // the answer to Restart
	numTypes
)

// Reply codes of Update.
const (
	ReplyUpdate uint8 = 1 // UPDATE: the node's request state; it takes the new generation
	ReplyNewer  uint8 = 2 // the node knows a newer generation (Payload[0]): do not regenerate
	ReplyHolder uint8 = 3 // the node holds the token (now of the proposed generation): do not regenerate
)

var messageTypes = func() []proto.MessageType {
	t := append([]proto.MessageType(nil), suzukikasami.Algorithm{}.MessageTypes()...)
	t[Token].Stamp = "the token's generation"
	return append(t,
		proto.MessageType{Name: "privilege_check", Payload: "[round]", Arg: "none", Stamp: "the checker's generation"},
		proto.MessageType{Name: "rep_critical", Payload: "[round]", Arg: "none", Stamp: "the holder's generation"},
		proto.MessageType{Name: "no_crit", Payload: "[round]", Arg: "none", Stamp: "the node's generation"},
		proto.MessageType{Name: "false_alarm", Arg: "none"},
		proto.MessageType{Name: "create_privilege", Payload: "none", Arg: "none", Stamp: "the proposed generation"},
		proto.MessageType{Name: "update", Payload: "update: [RN[k], serial, asking]; newer: [generation]", Arg: "reply", Stamp: "the proposed generation, echoed"},
		proto.MessageType{Name: "recovered", Payload: "none", Arg: "none", Stamp: "the new generation"},
		proto.MessageType{Name: "restart", Arg: "none"},
		proto.MessageType{Name: "restart_reply", Payload: "[RN[k], serial, RN[j]]", Arg: "none", Stamp: "the node's generation"})
}()

// The countable events (proto.Output.Events).
const (
	EvTokenRegenerated proto.Event = iota
	EvStaleToken
	EvCheck       // a requester timed out and checked for the token
	EvFalseAlarm  // a check or creation found the token
	EvStopped     // a regeneration stopped for a smaller-numbered checker
	EvRefused     // a creation refused: a newer generation was proposed
	EvRestart     // a node recovered and asked for its state
	EvWaitStalled // a requester's time-out fired while it observed another's regeneration
	numEvents
)

var eventNames = [numEvents]string{"tokens_regenerated", "stale_tokens_discarded", "privilege_checks", "false_alarms",
	"regenerations_stopped", "regenerations_refused", "restarts", "time_outs_while_observing"}
