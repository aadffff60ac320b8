// Package srimanireddy implements the ℓ-exclusion algorithm of Srimani and
// Reddy ("Another distributed algorithm for multiple entries to a critical
// section", Information Processing Letters 41(1), 1992), as the survey of
// Velazquez (1993, §6 and Table 3) describes it, as a pure state machine:
// Suzuki and Kasami's algorithm with ℓ tokens (the survey's K), so that up
// to ℓ nodes are in the critical section together.
//
// It belongs to the proto.KExclusion family with algo/kofl's conventions
// (Config: ℓ = Ell tokens; a request's k from its serial by
// kexcl.NeedOf). A node uses one token in the critical section: every
// request asks for one unit (K = 1).
//
// Every node i keeps RN[j], the serial of j's latest request received,
// and LN[j], the serial of j's latest request it knows was granted a token
// (the survey's PLN merged with the LN of every token that passed through
// i), the number of tokens it holds, and, while it uses its only token, the
// queue Q that came with the tokens it received. A token, PRIVILEGE(Q, LN),
// carries its sender's LN and a queue of requests.
//
//   - enter_cs at i: if i holds a token, it enters at once, with no
//     message. Otherwise it sends request(i, serial) to the N−1 others and
//     enters when a token arrives. On entering, LN[i] := its serial.
//   - receipt of request(j, s) at i: RN[j] := max(RN[j], s); if i holds an
//     idle token (one it does not use), it dispatches (below).
//   - receipt of a token at i: LN := max(LN, the token's LN); the token's
//     queued requests not known granted join Q; a waiting i enters with the
//     token; then i dispatches.
//   - exit_cs at i: i dispatches.
//   - dispatch at i, while it has idle tokens: Q loses the requests known
//     granted (LN[j] ≥ s); every other node j with RN[j] > LN[j] not in Q
//     is appended, in id order from i+1 around; then each idle token goes
//     to the head of Q, marked granted in LN (LN[j] := s) before it is
//     sent, the last idle token carrying the rest of Q. An idle token stays
//     at i only when no request is pending there (IdleServes).
//
// Several holders of idle tokens may answer the same request ("many
// tokens can arrive to service the request"): the requester enters with
// one, and dispatches the others. A token's LN only grows along its path
// and says the request it was sent to is granted, so a token is sent at
// most once to a request: a request costs at most N−1 requests and ℓ
// tokens, N+ℓ−1 (the survey's N+K−1), or 0 at a node holding an idle
// token. Initially token t is at node t mod N: a lone request from a node
// without a token costs exactly N+ℓ−1 (every holder answers); the tokens
// then gather at the requester, and a later lone request costs N.
//
// # Messages
//
//   - Request (type 0, "request"): request(j, s). From = j, Tag = s, the
//     serial of j's request; Stamp 0; J and Src none; no payload.
//   - Token (type 1, "token"): PRIVILEGE(Q, LN) sent to the request it
//     grants. Tag = that request's serial; Stamp 0; J and Src none. Payload:
//     LN[0..N−1] (N words, serials), then Q head first, one word j<<32 |
//     serial per queued request. N + |Q| words, |Q| ≤ N−2, so at most
//     2N−2: within the MPI runtime's 480 words (wire.MaxPayload) for every
//     N ≤ 128; at N = 256 a token fits while |Q| ≤ 224. Not marked Token
//     in MessageTypes: like kofl's ℓ tokens, they are counted by the
//     algorithm's invariant (Tokens), not by the runtime's one-token check.
//
// Memory is O(N) per node (RN, LN, Q).
//
// # Decisions where the survey is silent
//
//   - Serials as request numbers. RN and LN compare two requests of the
//     same node only (a node's serials increase), never requests of two
//     nodes; so the request's serial serves as its number, and a queued
//     request, and a token's LN, name the request by its serial as the
//     runtime's Tag needs.
//   - Unbounded request numbers: the survey's bounded rounds (L > N, the
//     LT array, the acknowledgements of a new round) are left out, as in
//     algo/suzukikasami; the stated cost N+K−1 is the survey's for L very
//     large.
//   - PLN: "the most recent request serviced for each node, updated from
//     the tokens" — here merged into one LN per node, which also records
//     the requests this node sent a token to (granted), so that a node
//     with two idle tokens never sends both to one request, and a token
//     carries what its holders knew. A node keeps no per-token state: the
//     tokens it holds are interchangeable, and a token leaves with the
//     node's LN.
//   - The queue. A node that gets several tokens merges their queues; a
//     queue travels with the last idle token dispatched (the others go
//     with an empty queue, so that two tokens never chase the same queued
//     requests); a node that uses its only token keeps the queue until it
//     leaves.
//   - Idle tokens are dispatched at once to every pending request known,
//     one per request (the survey: a holder "not requesting, or with a
//     spare token" sends it).
//   - Initial placement: token t at node t mod N (the survey does not say;
//     one token per node is what makes N+K−1 the cost of a lone request).
//     ℓ > N is allowed (nodes then start with several tokens).
//   - Order of the queue: from the releasing node's successor around (the
//     survey refers to Suzuki–Kasami; round-robin from the releaser keeps
//     any one node from being served first every time).
//   - K > 1 is refused (Config.Validate): a node uses one token.
//   - Failures: none handled. Crash stops the node (Up false, every input
//     ignored); Recover puts it back in its initial state. Runs with
//     crashes are refused for this algorithm.
//
// Channels need not be FIFO: serials order each node's requests, and the
// LN a token carries only grows.
package srimanireddy
