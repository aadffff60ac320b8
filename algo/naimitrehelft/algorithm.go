package naimitrehelft

import (
	"github.com/ocbench/ocbench/proto"
)

// Config holds the failure protocol's timing parameters, in units of δ
// (the bound on a message's delay).
type Config struct {
	// CSEstimate is e, an estimate of a critical section's duration.
	CSEstimate float64
}

// margin is added to every wait whose bound a message delayed by exactly
// δ can meet: the bound on delays is inclusive, and nothing orders a
// delivery and a timer of the same instant.
const margin = 0.5

// Timing is the failure protocol's delays for a system of n nodes
// (doc.go, "Delays").
type Timing struct {
	Wait    float64 // Twait: a request's silence before a presumption of failure
	Consult float64 // Telec of the consulting state
	Query   float64 // Telec of the query state
	Elect   float64 // Telec of the candidate state
	Observe float64 // an observer's wait for candidate_elected
	Quiet   float64 // a recovered node discards every token for this long
}

// TimingFor returns the delays of a system of n nodes with the critical
// section estimate e (in δ).
func TimingFor(n int, e float64) Timing {
	elect := 3 + margin
	return Timing{
		// A request travels at most n−1 hops to the tail of the queue,
		// and waits for at most n−1 critical sections ahead, each followed
		// by one hop of the token.
		Wait:    float64(n-1)*(e+2) + margin,
		Consult: 2 + margin,
		Query:   3 + margin,
		Elect:   elect,
		Observe: elect + 1 + margin,
		Quiet:   1 + margin,
	}
}

// Algorithm is Naimi and Trehel's algorithm as a proto.Algorithm: --algo
// naimi-trehel-ft. With FT nil the nodes run the failure-free algorithm
// (no timers); with FT set they run the failure protocol as well.
type Algorithm struct {
	FT *Config
}

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "naimi-trehel-ft" }

// Family implements proto.Algorithm.
func (Algorithm) Family() proto.Family { return proto.TokenBased }

// StatedCost implements proto.CostAlgorithm: an order of growth, O(log N)
// messages per critical section on average (the survey's Table 1, "avg
// log N", and §4, "in the order of log N"); no figure to divide by.
func (Algorithm) StatedCost(int) proto.Cost {
	return proto.Cost{Text: "avg O(log N)", Source: "survey T1", Kind: proto.Order}
}

// WithFailures implements proto.FaultTolerantAlgorithm: the nodes with the
// failure protocol (doc.go). Protocol variants are not offered: f.Protocol
// is ignored.
func (Algorithm) WithFailures(f proto.Failures) proto.Algorithm {
	return Algorithm{FT: &Config{CSEstimate: f.CSEstimate}}
}

// FaultModel implements proto.FaultTolerantAlgorithm: the paper's. It
// assumes that a failed node stays failed during the election and does not
// say what a recovered node does; it does not limit the number of nodes
// down at once.
func (Algorithm) FaultModel() proto.FaultModel {
	return proto.FaultModel{NoRecovery: true,
		Text: "crashes at any time, several at once; a crashed node stays down (no recovery)"}
}

// NewNodes implements proto.Algorithm: node 0 holds the token and is the
// root; every other node's LAST is 0 (Naimi and Trehel's initial star).
func (a Algorithm) NewNodes(n int) []proto.Node {
	nodes := make([]Node, n)
	out := make([]proto.Node, n)
	var tm Timing
	if a.FT != nil {
		tm = TimingFor(n, a.FT.CSEstimate)
	}
	for i := range nodes {
		nodes[i].init(proto.NodeID(i), n, a.FT != nil, tm)
		out[i] = &nodes[i]
	}
	return out
}

// The message types.
const (
	Request    proto.MsgType = iota // request(j): j asks for the token
	Token                           // the token
	Consult                         // consult(i): "does any node have NEXT = i?"
	ConsultAck                      // "I have NEXT = you" (J: the answering node)
	Query                           // query(i): "does any node hold the token?"
	QueryAck                        // "I hold the token" (J: the holder)
	Election                        // election(i): i is a candidate to regenerate the token
	Elected                         // candidate_elected(i): i holds the new token and is the root
	Resend                          // resend(j): j's request sent again after a query, placed at the tail of the token's queue
	numTypes
)

var messageTypes = []proto.MessageType{
	{Name: "request", Stamp: "the sender's token generation"},
	{Name: "token", Token: true, Arg: "none", Stamp: "the token's generation"},
	{Name: "consult", Stamp: "the asker's round"},
	{Name: "consult_ack", Stamp: "the round answered"},
	{Name: "query", Stamp: "the asker's round"},
	{Name: "query_ack", Stamp: "the round answered"},
	{Name: "election", Stamp: "the candidate's round"},
	{Name: "elected", Stamp: "the new token's generation"},
	{Name: "resend", Stamp: "the hops so far (dropped after 2n)"},
}

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// The events a node counts (proto.Output.Events).
const (
	EvRegenerated     proto.Event = iota // a candidate regenerated the token
	EvStale                              // a token older than the node's generation was discarded
	EvRecoveryDiscard                    // a recovered node discarded a token in its quiet window
	EvSuspicion                          // Twait expired: a presumption of failure
	EvConsultAcked                       // a consult found the node that holds the request (NEXT = i)
	EvResent                             // a query found the token: the request was sent again to its holder
	EvElection                           // a node became a candidate
	EvElectionLost                       // a candidate heard a smaller one
	EvElectionAborted                    // a candidate heard of the token
	EvObserverTimeout                    // an observer heard no candidate_elected in time
	EvOwnRequest                         // a node received its own request (a cycle of LAST pointers) and dropped it
	EvUnexpectedToken                    // the token reached a node that did not ask
	EvResendDropped                      // a resend found no place in the queue (it is sent again after Twait)
	numEvents
)

var eventNames = [numEvents]string{"tokens_regenerated", "stale_tokens_discarded", "tokens_discarded_on_recovery",
	"suspicions", "consults_acked", "requests_resent", "elections_started", "elections_lost", "elections_aborted",
	"observer_timeouts", "own_requests_dropped", "unexpected_tokens", "resends_dropped"}

// Events implements proto.Algorithm.
func (Algorithm) Events() []string { return eventNames[:] }
