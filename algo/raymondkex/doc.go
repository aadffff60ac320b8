// Package raymondkex implements Raymond's ℓ-exclusion ("A distributed
// algorithm for multiple entries to a critical section", Information
// Processing Letters 30(4), 1989), as the survey of Velazquez (1993, §6
// and Table 3) describes it, as a pure state machine: Ricart and
// Agrawala's algorithm in which a requester waits for N−ℓ replies instead
// of N−1, so that up to ℓ nodes are in the critical section together.
//
// It belongs to the proto.KExclusion family with algo/kofl's conventions
// (Config: ℓ = Ell units; a request's k from its serial by kexcl.NeedOf).
// Every request asks for one unit (K = 1): at most ℓ nodes are in the
// critical section at once.
//
// Every node i keeps a Lamport clock, the timestamp of its own request,
// owed[j] (how many of its requests node j has not answered yet) and
// deferred[j] (how many of j's requests it defers).
//
//   - enter_cs at i: the clock goes up by one and stamps the request; i
//     sends request(ts) to the N−1 others and adds one to every owed[j].
//     It enters as soon as at most ℓ−1 nodes owe it a reply (owed[j] > 0),
//     i.e. N−ℓ nodes have answered every request of i.
//   - receipt of request(ts) from j at i: clock := max(clock, ts). If i is
//     in the critical section, or asks with a request that precedes j's
//     in (timestamp, id) order, i defers it (deferred[j]++); otherwise it
//     replies at once with a count of 1.
//   - receipt of reply(c) from j at i: owed[j] −= c; i enters if it may.
//   - exit_cs at i: for every j with deferred[j] > 0, one reply carrying
//     deferred[j], the number of j's requests it answers; deferred := 0.
//
// A lone request costs 2(N−1) messages (StatedCost).
//
// # Messages
//
//   - Request (type 0, "request"): From = the requester, Stamp = the
//     request's Lamport timestamp, Tag = its serial; J and Src none; no
//     payload.
//   - Reply (type 1, "reply"): Stamp = c ≥ 1, the number of the receiver's
//     requests it answers; Tag = the serial of the latest of them; J and
//     Src none; no payload.
//
// The largest payload is none. Memory is O(N) per node (owed, deferred).
//
// # Decisions where the survey is silent
//
//   - Late replies. A node enters with ℓ−1 replies missing and may ask
//     again before they come; the survey says a node "keeps record of the
//     reply messages received" and that a deferred reply "contains the
//     number of replies deferred". Here owed[j] counts every request of i
//     that j has not answered, whichever request it was, and a reply
//     carries how many it answers: a node j that owes i an old reply
//     still counts as one that has not answered, which is what the safety
//     argument needs (j is then in the critical section or ahead of i),
//     and a late reply can never count for a newer request. No timestamp
//     is matched, so channels need not be FIFO.
//   - The Tag of a combined reply is the serial of the latest request it
//     answers; the runtime attributes the whole reply to that request, so
//     an earlier request deferred at the same node is charged one message
//     less.
//   - Ties between equal timestamps go to the smaller node id (as the
//     survey says).
//   - ℓ ≥ N is allowed: a requester then enters at once, and still sends
//     its requests (the algorithm as written); costs stay 2(N−1).
//   - K > 1 is refused (Config.Validate): Raymond's algorithm serves
//     requests of one unit.
//   - Failures: none handled. Crash stops the node (Up false, every input
//     ignored); Recover puts it back in its initial state. Runs with
//     crashes are refused for this algorithm.
package raymondkex
