// Package nishio implements the resilient token-based mutual-exclusion
// algorithm of Nishio, Li and Manning ("A resilient mutual exclusion
// algorithm for computer networks", IEEE TPDS 1(3), 1990), as the survey of
// Velazquez (1993, §4 and Table 1) describes it, as a pure state machine.
//
// The failure-free algorithm is Suzuki–Kasami's (package suzukikasami) with
// Ricart–Agrawala's token movement (package ratoken): every node i keeps
// RN[0..N−1], the highest request number received from each node (its own
// at j = i); the one token carries LN[0..N−1], the number of each node's
// request granted most recently. Node 0 holds the token initially.
//
//   - enter_cs at i: with the idle token, i enters at once, with no
//     message. Otherwise RN[i]++ and i sends request(i, RN[i]) to the N−1
//     other nodes, and enters when the token arrives.
//   - receipt of request(j, r): RN[j] := max(RN[j], r); an idle holder
//     releases the token (below).
//   - exit_cs at i: LN[i] := RN[i]; release: the token goes to the first
//     node after i in the ring i+1, …, N−1, 0, …, i−1 with RN[j] > LN[j],
//     or i keeps it.
//
// A critical section costs N messages (N−1 requests and the token), none
// with the idle token at hand.
//
// # The failure protocol (Algorithm.FT set; WithFailures)
//
// Every node keeps an age, the age of the most recent token it knows of
// (View.Gen); the token carries its age (Message.Stamp). Node 0's initial
// token has age 0.
//
//   - A token younger than the receiver's age is a duplicate: it is
//     discarded (event stale_tokens_discarded) and a waiting receiver sends
//     its request again. Otherwise the receiver takes the token's age.
//   - A requester that has not received the token requestTimeout after its
//     request suspects the token lost and starts a round: it sends
//     TOKEN_MISSING(p) to the N−1 others, p a proposed age above every age
//     it knows of.
//   - A node answers TOKEN_MISSING(p) with NACK(age) if it holds the token
//     (the token is not lost) or knows an age ≥ p (its own, or its own
//     proposal: a conflict); otherwise with ACK(p, granted), granted being
//     the number of its own request granted most recently, and its age
//     becomes p (it now discards any older token). A candidate that ACKs a
//     higher proposal gives up its own round.
//   - With N−1 ACKs of p, the candidate regenerates the token with age p
//     and LN[j] = j's granted (event tokens_regenerated), and enters.
//   - A NACK ends the round: the candidate sends its request again and
//     waits for the token (a new time-out). A missing answer (answer
//     time-out 3δ) ends the round as well; the candidate waits a new
//     request time-out, then starts a new round with a higher proposal.
//
// # Messages
//
//   - Request (type 0, "request"): From = j, Stamp = RN[j], Tag = j's serial;
//     Cause normal, or failure when sent again (after a NACK or a discarded
//     duplicate). No payload.
//   - Token (type 1, "token", the token): Stamp = its age, Tag = the
//     grantee's serial; payload LN[0..N−1], N words (within MPI's 480
//     words up to N = 256).
//   - TokenMissing (type 2, "token_missing"): Stamp = the proposed age, Tag =
//     the candidate's serial; Cause failure; no payload.
//   - Ack (type 3, "ack"): Stamp = the proposed age acknowledged, Tag = the
//     candidate's serial; payload [granted, own RN, that request's serial], 3 words; Cause failure.
//   - Nack (type 4, "nack"): Stamp = the sender's age, Reply = NackHolder or
//     NackConflict, Tag = the candidate's serial; payload [the proposal
//     refused], 1 word; Cause failure.
//
// J and Src are none in every message.
//
// # Decisions where the survey is silent
//
//   - Ages are unique per proposer: an age is round<<20 | proposer, and a
//     proposal takes the next round above every age the node has heard of,
//     so two candidates never propose the same age and the highest wins.
//   - A candidate that receives the (live) token stops its round and gives
//     the token its proposed age; a holder that NACKs a proposal p raises
//     the token's age to p. The nodes that ACKed p still accept the token,
//     so a false alarm does not destroy it (docs/algorithms/nishio.md
//     argues why this stays safe).
//   - A waiting node that ACKs a round restarts its own time-out (the
//     candidate's regeneration will serve it); a missing answer restarts
//     the procedure after a request time-out, not at once.
//   - Crashes: the processor's state is lost (request, critical section,
//     the token held, a round); the controller's counters (RN, granted,
//     age) survive, as the survey says of the controller's information. A
//     recovered node asks for nothing; a token that reaches it while it
//     does not ask closes a request it abandoned in the crash (event
//     abandoned_requests_closed) and moves on.
//   - Serving order: the token goes to the nearest node in the ring whose
//     last request is not granted (RN[j] > LN[j], as in ratoken: a node's
//     request numbers may skip one abandoned in a crash).
//
// Channels need not be FIFO.
package nishio
