// Package skbounded implements Suzuki and Kasami's token algorithm with
// bounded sequence numbers: the variant the survey (Velazquez 1993, §4 and
// Table 1) gives as "L·N + (N−1) message exchanges for L mutual exclusion
// entries, where L is a fixed integer greater than or equal to 2". The
// survey describes the unbounded algorithm (package suzukikasami) and
// states only the variant's cost; how the numbers are bounded is taken
// from the survey's account of the same mechanism in Srimani and Reddy's
// algorithm, which extends it to several tokens ("a new bounded round of
// sequence numbers will commence for node i" once it has "the
// acknowledgement from all other N−1 nodes"), and is the project's
// reading (docs/algorithms/suzuki-kasami-bounded.md).
//
// # The bounding
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
// # Messages
//
//   - Request (type 0, "request"): From = j, Stamp = j's request number
//     mod M, Tag = j's serial for this request; no payload.
//   - Token (type 1, "token", the token): PRIVILEGE(Q, LN) to the node it
//     grants, Tag = the grantee's serial. Payload: LN[0..N−1] mod M, then Q
//     head first, one word j<<32 | serial per queued node (as in package
//     suzukikasami).
//   - Ack (type 2, "ack"): j → i: j has received all L requests of i's
//     round. Tag = the serial of i's latest request j knows; Stamp = i's
//     request number mod M that completed the round; no payload.
//
// # Decisions where the survey is silent
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
package skbounded
