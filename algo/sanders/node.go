package sanders

import (
	"github.com/ocbench/ocbench/algo/internal/arbiter"
	"github.com/ocbench/ocbench/proto"
)

// The message types.
const (
	Request = arbiter.Request // requester → member of R_i: Stamp = the request's Lamport timestamp
	Grant   = arbiter.Grant   // arbiter → requester: its permission
	Fail    = arbiter.Fail    // arbiter → requester: a request of higher priority holds or waits for the arbiter
	Inquire = arbiter.Inquire // arbiter → the node its CSSTAT names: will you give the permission back?
	Yield   = arbiter.Yield   // requester → arbiter: the permission given back
	Release = arbiter.Release // requester → member of I_i: the requester left the critical section
)

var messageTypes = []proto.MessageType{
	{Name: "request", Arg: "none", Stamp: "the request's Lamport timestamp"},
	{Name: "grant", Arg: "none", Stamp: "the sender's Lamport clock"},
	{Name: "fail", Arg: "none", Stamp: "the sender's Lamport clock"},
	{Name: "inquire", Arg: "none", Stamp: "the sender's Lamport clock"},
	{Name: "yield", Arg: "none", Stamp: "the sender's Lamport clock"},
	{Name: "release", Arg: "none", Stamp: "the sender's Lamport clock"},
}

// Node is one node of Sanders' algorithm (algo/internal/arbiter's): a
// requester, and an arbiter for the nodes whose request set holds it. Its
// View gives the timestamp of its pending request as Gen.
type Node = arbiter.Node
