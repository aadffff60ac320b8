// Package suzukikasami implements the token-based mutual-exclusion algorithm
// of Suzuki and Kasami ("A distributed mutual exclusion algorithm", ACM TOCS
// 3(4), 1985), as the survey of Velazquez (1993, §4 and Table 1) describes
// it, as a pure state machine.
//
// Every node i keeps RN[0..N−1], the highest request number it has received
// from each node (its own for j = i). The one token, PRIVILEGE(Q, LN),
// carries LN[0..N−1], the number of the request last granted to each node,
// and Q, a queue of requesting nodes. Node 0 holds the token initially.
//
//   - enter_cs at i: if i holds the (idle) token, it enters at once, with no
//     message. Otherwise it increments RN[i] and sends request(i, RN[i]) to
//     the N−1 other nodes, and enters when the token arrives.
//   - receipt of request(j, r) at i: RN[j] := max(RN[j], r) (a late request
//     already granted, or overtaken, changes nothing: channels need not be
//     FIFO). If i holds the token, is not asking, and RN[j] > LN[j] (j's
//     latest request is not granted yet), i sends the token to j.
//   - exit_cs at i: LN[i] := RN[i]; every node j not in Q with RN[j] >
//     LN[j] is appended to Q, in ascending id order; if Q is not empty,
//     the token goes to its head (and carries the rest of Q), otherwise i
//     keeps the idle token.
//
// A critical section costs N messages (N−1 requests and the token), or none
// when the requester holds the idle token (StatedCost: 0 to N).
//
// # Messages
//
//   - Request (type 0, "request"): request(j, r). From = j, Stamp = r (j's
//     request number RN[j]), Tag = j's serial for this request; J and Src are
//     Nil; no payload.
//   - Token (type 1, "token", the token): PRIVILEGE(Q, LN) sent to the node
//     it grants. Tag = the grantee's serial; J and Src none; Stamp 0. Payload:
//     LN[0..N−1] (N words), then Q from head to tail, one word per queued
//     node j, packed as j<<32 | serial of j's request (see below). The
//     payload is N + |Q| words, |Q| ≤ N−2 (neither the sender nor the
//     grantee is queued), so at most 2N−2 words: within the MPI runtime's
//     480 words (wire.MaxPayload) for every N ≤ 128 (254 words); at N = 256
//     a token fits only while |Q| ≤ 224, so a saturated run of 256 nodes
//     exceeds it (the simulator has no limit).
//
// # Decisions where the survey is silent
//
//   - Serials in Q. The runtime attributes a message to the request it
//     serves by the requester's serial (Message.Tag). The node that sends the
//     token to the head j of Q may not have received j's request yet (it was
//     queued by an earlier holder, and requests travel in any order), so Q
//     carries each queued request's serial beside its node; RN[j] alone
//     could not name it.
//   - Ascending order from node 0. "Ascending node number order" is read as
//     in the original paper's loop, j = 1..N (0..N−1 here), whichever node
//     releases; Suzuki–Kasami serves in the order of Q, not round-robin from
//     the releaser (that is Ricart–Agrawala's token algorithm, package
//     ratoken).
//   - The idle holder answers a request with the token and an empty Q: a
//     holder that is not asking has an empty Q, since on exit_cs it sends the
//     token away whenever Q is not empty.
//   - A token that arrives at a node that is not asking (it cannot happen:
//     the token is only sent to a node whose latest request is not granted)
//     is kept and released as on exit_cs, so that no request waits behind it.
//   - RN[j] > LN[j] rather than the paper's RN[j] = LN[j]+1: the same
//     without failures (RN[j] ≤ LN[j]+1 always), and robust when a node's
//     request number was learned late after a crash (package mishrasrimani
//     embeds this node). For the same reason a token that reaches a node
//     that is not asking marks the node's own last request granted.
//   - Unbounded request numbers (int64) in Algorithm; Bounded is the
//     survey's bounded variant (L·N + N−1 messages for L entries), below.
//   - Failures: none handled. Crash stops the node (Up false, every input
//     ignored); Recover puts it back in its initial state. Runs with crashes
//     are refused for this algorithm.
//
// # The bounded variant (Bounded, "suzuki-kasami-bounded")
//
// The survey gives Suzuki–Kasami with bounded sequence numbers as "L·N +
// (N−1) message exchanges for L mutual exclusion entries, where L is a
// fixed integer greater than or equal to 2", and states only its cost; how
// the numbers are bounded is taken from the survey's account of the same
// mechanism in Srimani and Reddy's algorithm, which extends it to several
// tokens ("a new bounded round of sequence numbers will commence for node
// i" once it has "the acknowledgement from all other N−1 nodes"), and is
// the project's reading (docs/algorithms/suzuki-kasami-bounded.md). The
// same Node runs both, through its numbering: unbounded integers, or the
// bounded variant's rounds (bounded.go).
//
// A node's requests are grouped in rounds of L: requests 1..L, L+1..2L, and
// so on. Every request number is kept modulo M = 2L: a node's own RN[i],
// its knowledge RN[j] of every other node's, and the token's LN[j]. A
// request carries its number mod M; node k keeps as RN[i] the highest it
// has received from i (a number within L ahead of RN[i], modulo M, is
// higher), and counts, modulo M, the requests it has received from i,
// whatever their order (channels need not be FIFO). When k's count of i's
// requests reaches a multiple of L (it has received a whole round), it
// sends ack to i. Node i sends the first request of a new round only once
// it holds the N−1 acks of the previous one; a request asked for meanwhile
// waits at the node (pending, no message). So at any node at most one
// round of i's requests is unreceived: RN[i] there is at most L below i's
// own, and a newly received number lies within −(L−1)..L of RN[i] (M = 2L
// tells the two signs apart). The token's LN[i] is i's own RN[i] or one
// less, so the difference RN[j] − LN[j] a holder reads lies in −L..1, L+2
// ≤ 2L values that M tells apart: "RN[j] = LN[j]+1 (mod M)" is
// Suzuki–Kasami's test "j's latest request is not granted".
//
// A round of L critical sections, each from a node without the idle
// token, costs L·N messages (N−1 requests and the token each) and N−1
// acks: the survey's L·N + (N−1). StatedCost gives it per entry,
// (L·N + (N−1))/L, and 0 for a node that holds the idle token.
//
// Its messages:
//
//   - Request (type 0, "request"): From = j, Stamp = j's request number
//     mod M, Tag = j's serial for this request; no payload.
//   - Token (type 1, "token", the token): PRIVILEGE(Q, LN) to the node it
//     grants, Tag = the grantee's serial. Payload: LN[0..N−1] mod M, then Q
//     head first, one word j<<32 | serial per queued node (as unbounded).
//   - Ack (type 2, "ack"): j → i: j has received all L requests of i's
//     round. Tag = the serial of i's latest request j knows; Stamp = i's
//     request number mod M that completed the round; no payload.
//
// Its decisions where the survey is silent:
//
//   - L: DefaultL = 3, which satisfies both of the survey's wordings (the
//     text says L ≥ 2, Table 1's note says L > 2).
//   - M = 2L: the least multiple of L that tells the L+2 differences apart
//     for every L ≥ 2.
//   - Where a node waits for the acks: before the first request of its
//     next round (the token is not held while waiting), rather than at the
//     exit of its last critical section of the round, which would keep the
//     token from every other node for a round trip.
//   - The serial of a request: a receiver keeps the serial of the request
//     with the highest number it has received from i (a number within L
//     ahead of the highest received, modulo M, is newer: at most a round
//     of i's requests is unreceived at any node).
//   - Failures: none handled. Crash stops the node; Recover puts it back in
//     its initial state. Runs with crashes are refused.
//
// Channels need not be FIFO: request numbers order each node's requests.
package suzukikasami
