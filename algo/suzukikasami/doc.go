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
//   - Unbounded request numbers (int64); the survey's bounded variant (L·N +
//     N−1 messages) is not implemented.
//   - Failures: none handled. Crash stops the node (Up false, every input
//     ignored); Recover puts it back in its initial state. Runs with crashes
//     are refused for this algorithm.
//
// Channels need not be FIFO: request numbers order each node's requests.
package suzukikasami
