package quorum

import (
	"github.com/ocbench/ocbench/algo/internal/arbiter"
	"github.com/ocbench/ocbench/proto"
)

// The message types (doc.go describes their fields): Sanders' (algo/internal/arbiter),
// under Maekawa's names.
const (
	Request    = arbiter.Request // requester → arbiter: Stamp = the request's Lamport timestamp
	Locked     = arbiter.Grant   // arbiter → requester: the arbiter's permission (grant)
	Failed     = arbiter.Fail    // arbiter → requester: a request of higher priority holds or waits for the arbiter
	Inquire    = arbiter.Inquire // arbiter → the requester it is locked for: will you give the permission back?
	Relinquish = arbiter.Yield   // requester → arbiter: the permission given back (Maekawa's yield)
	Release    = arbiter.Release // requester → arbiter: the requester left the critical section
	NumTypes   = arbiter.NumTypes
)

var messageTypes = []proto.MessageType{
	{Name: "request", Arg: "none", Stamp: "the request's Lamport timestamp"},
	{Name: "locked", Arg: "none", Stamp: "the sender's Lamport clock"},
	{Name: "failed", Arg: "none", Stamp: "the sender's Lamport clock"},
	{Name: "inquire", Arg: "none", Stamp: "the sender's Lamport clock"},
	{Name: "relinquish", Arg: "none", Stamp: "the sender's Lamport clock"},
	{Name: "release", Arg: "none", Stamp: "the sender's Lamport clock"},
}

// Node is one node: a requester, and an arbiter for the nodes whose quorum
// holds it. It is Sanders' node (algo/internal/arbiter) with I_i = R_i =
// the node's quorum, every requester in its arbiters' status sets.
type Node = arbiter.Node
