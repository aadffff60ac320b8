package opencube

import (
	"github.com/ocbench/ocbench/hypercube"
	"github.com/ocbench/ocbench/internal/hugepage"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
)

// Algorithm is the open-cube algorithm as a proto.Algorithm. With FT nil
// the nodes run the failure-free algorithm of §3; with FT set they run the
// failure protocol of §5 as well, with those timing parameters.
type Algorithm struct {
	FT *Config
}

// Name implements proto.Algorithm.
func (Algorithm) Name() string { return "opencube" }

// StatedCost implements proto.CostAlgorithm: at most log2 N + 1 messages
// per request (§3, "maximum number of messages per request"; the
// abstract), 0 with the token at hand.
func (Algorithm) StatedCost(n int) proto.Cost {
	p, _ := hypercube.Log2(n)
	return proto.Cost{Low: 0, High: float64(p + 1), Text: "0…log2 N+1", Source: "Hélary–Mostefaoui 1994, abstract", Kind: proto.Range}
}

// The failure protocols beside the project's (docs/failures.md), as
// proto.Failures names them.
const (
	// ProtocolPaper is §5 as written, its tie-break for equal phases read
	// as the outcome it states: the smaller id becomes the father of the
	// other.
	ProtocolPaper = "paper"
	// ProtocolPaperMechanism is §5 as written, its tie-break read as the
	// mechanism of its example: the larger id stays silent
	// (Config.SilentTie).
	ProtocolPaperMechanism = "paper-mechanism"
)

// WithFailures implements proto.FaultTolerantAlgorithm: the open-cube with
// its failure protocol, the project's (docs/failures.md) or, with Protocol
// ProtocolPaper or ProtocolPaperMechanism, §5 as written under either
// reading of its tie-break.
func (Algorithm) WithFailures(f proto.Failures) proto.Algorithm {
	cfg := &Config{CSEstimate: f.CSEstimate, RetestDelay: 2 + f.CSEstimate}
	switch f.Protocol {
	case ProtocolPaper:
		cfg.Paper, cfg.PaperStart, cfg.Bare = true, true, true
	case ProtocolPaperMechanism:
		cfg.Paper, cfg.PaperStart, cfg.Bare, cfg.SilentTie = true, true, true, true
	}
	return Algorithm{FT: cfg}
}

// FaultModel implements proto.FaultTolerantAlgorithm: any number of nodes
// down at once, and recoveries (§5.3).
func (Algorithm) FaultModel() proto.FaultModel {
	return proto.FaultModel{Text: "crashes at any time, several at once, with recoveries"}
}

// NewNodes implements proto.Algorithm. n must be a power of two.
func (a Algorithm) NewNodes(n int) []proto.Node {
	nodes, _ := a.NewArray(n)
	return nodes
}

// NewArray implements proto.ArrayAlgorithm: the failure-free protocol's
// nodes are the general scheme's; the failure protocol's are this
// package's, stepped by index too.
func (a Algorithm) NewArray(n int) ([]proto.Node, proto.NodeArray) {
	p, _ := hypercube.Log2(n)
	rule := Rule{PMax: p}
	if a.FT == nil {
		return scheme.Algorithm{Rule: rule}.NewArray(n)
	}
	nodes := array(hugepage.Make[Node](n))
	out := hugepage.Make[proto.Node](n)
	for i := range nodes {
		nd := &nodes[i]
		nd.core.Init(rule, proto.NodeID(i), n)
		nd.rule, nd.cfg, nd.holder, nd.reattachFrom = rule, *a.FT, proto.Nil, proto.Nil
		out[i] = nd
	}
	return out, nodes
}

// array is the failure protocol's nodes of a run, stepped by index
// (proto.NodeArray).
type array []Node

// StepView implements proto.NodeArray, through the host's gate
// (proto.AdmitArray).
func (a array) StepView(i int, in *proto.Input, out *proto.Output) proto.View {
	n := &a[i]
	if proto.AdmitArray(&n.Life, n, in, out) {
		n.Step(*in, out)
	}
	return n.View()
}

// The open-cube failure protocol's message types (§5 and docs/failures.md),
// numbered after the general scheme's (scheme.Request, scheme.Token,
// scheme.Anomaly).
const (
	Enquiry      = scheme.NumTypes + iota // a root asks the source of a loan about the token
	EnquiryReply                          // the source's answer to an enquiry
	Test                                  // test(d) of search_father phase d
	Answer                                // answer to a test: "ok" or "try later"
	Wait                                  // "your request is held here": a holder's heartbeat to a waiting requester
	Regenerate                            // a searcher about to regenerate the token announces the new generation
	Probe                                 // a father asks the node it knows as its son at some distance whether it still is
	Attach                                // the answer to a probe: "I am your son" (Reply AnswerOK) or "I am not" (0)
	Reattach                              // a father tells a son that it cannot be its son: search again
	Chase                                 // a long-waiting requester's probe along the holders of requests, to find a cycle of waits
	numTypes
)

// Reply codes carried by Answer, EnquiryReply and Attach messages.
const (
	AnswerOK       uint8 = 1 // test: "I can be your father"
	AnswerTryLater uint8 = 2 // test: "I am asking; test me again later"
	ReplyInCS      uint8 = 3 // enquiry: "still in the critical section"
	ReplySentBack  uint8 = 4 // enquiry: "already sent back"
	ReplyTokenLost uint8 = 5 // enquiry: "token lost" (never received it)
	AnswerHasToken uint8 = 6 // regenerate: "I hold the token: do not regenerate"
)

var messageTypes = func() []proto.MessageType {
	t := append([]proto.MessageType(nil), scheme.Algorithm{}.MessageTypes()...)
	return append(t,
		proto.MessageType{Name: "enquiry", Arg: "none"},
		proto.MessageType{Name: "enquiry_reply", Arg: "reply"},
		proto.MessageType{Name: "test", Arg: "phase", Stamp: "the sender's incarnation"},
		proto.MessageType{Name: "answer", Arg: "reply", Stamp: "with Reply AnswerHasToken, the newest token generation the sender knows"},
		proto.MessageType{Name: "wait", Stamp: "the holder's incarnation"},
		proto.MessageType{Name: "regenerate", Stamp: "the generation announced"},
		proto.MessageType{Name: "probe"},
		proto.MessageType{Name: "attach", Arg: "reply"},
		proto.MessageType{Name: "reattach"},
		proto.MessageType{Name: "chase", Stamp: "the serial of the last hop's own request"})
}()

// MessageTypes implements proto.Algorithm.
func (Algorithm) MessageTypes() []proto.MessageType { return messageTypes }

// The failure protocol's countable events (proto.Output.Events), named as
// records name them.
const (
	EvTokenRegenerated proto.Event = iota
	EvStaleToken
	EvSearchStarted
	EvSearchPhase
	EvSearchRoot // a search concluded with the node becoming the root
	EvAnomaly
	EvRequestLost      // a queued request was lost with a crash
	EvDuplicateRequest // a re-issued request already held was dropped
	EvUnexpectedToken  // a token reached a node that was not waiting for it
	EvEnquiry          // a root enquired about a lent token
	EvSonConflict      // a father found two live sons at the same distance
	EvReattach         // a node searched again because its father told it so
	EvWaitCycle        // a requester's chase came back to it: its request waited on itself
	EvSuspicion        // a requester heard nothing of its request in time and suspected a failure
	EvObsoleteRequest  // a queued request was dropped when a newer one of its requester arrived
	numEvents
)

var eventNames = [numEvents]string{"tokens_regenerated", "stale_tokens_discarded", "searches_started", "search_phases", "searches_became_root", "anomalies", "requests_dropped_by_crash", "duplicate_requests_dropped", "unexpected_tokens", "enquiries", "son_conflicts", "reattachments", "wait_cycles", "suspicions", "obsolete_requests_dropped"}

// Events implements proto.Algorithm.
func (Algorithm) Events() []string { return eventNames[:] }
