// Package ratoken implements the token-based mutual-exclusion algorithm of
// Ricart and Agrawala (the token algorithm of their 1983 reply in CACM 26(2)
// to Carvalho and Roucairol; the survey of Velazquez, 1993, §4 and Table 1),
// as a pure state machine.
//
// Every node i keeps a logical clock and request[0..N−1], the highest
// request timestamp it has received from each node (its own at j = i). The
// one token carries token[0..N−1]: token[j] is the timestamp of j's request
// granted most recently. Node 0 holds the token initially.
//
//   - enter_cs at i: with the idle token, i enters at once, with no message.
//     Otherwise it increments its clock and sends request(clock, i) to the
//     N−1 other nodes, and enters when the token arrives.
//   - receipt of request(t, j) at i: clock := max(clock, t); request[j] :=
//     max(request[j], t) (a late request, already granted or overtaken,
//     changes nothing: channels need not be FIFO). If i holds the token and
//     is not asking, it releases the token (below).
//   - exit_cs at i: token[i] := request[i] (its request is granted), then
//     release: i scans the nodes in circular order from its own id, i+1,
//     …, N−1, 0, …, i−1, and sends the token to the first j with request[j] >
//     token[j] (a request not granted yet); if there is none, i keeps the
//     idle token.
//
// Unlike Suzuki–Kasami (package suzukikasami) the token carries no queue:
// the order of service is round-robin from the releaser, not first come
// first served. A critical section costs N messages (N−1 requests and the
// token), or none when the requester holds the idle token.
//
// # Messages
//
//   - Request (type 0, "request"): request(t, j). From = j, Stamp = t (j's
//     request timestamp), Tag = j's serial for this request; J and Src none;
//     no payload.
//   - Token (type 1, "token", the token): sent to the node it grants. Tag =
//     the grantee's serial (the releaser has received the grantee's
//     request, since it saw request[j] > token[j]); J and Src none; Stamp 0.
//     Payload: token[0..N−1], N words. Within the MPI runtime's 480 words
//     (wire.MaxPayload) for every N ≤ 256; from N = 512 on the token does not
//     fit (the simulator has no limit).
//
// # Decisions where the survey is silent
//
//   - Timestamps: the survey says "request sequence number counter"; as
//     commonly specified (Raynal's presentation) the number is a Lamport
//     clock, raised to the largest timestamp received. Only timestamps of
//     the same node are ever compared (request[j] against token[j]), so a
//     per-node counter would behave the same; only the numbers on the wire
//     differ.
//   - token[i] := request[i] on exit (the timestamp of the request served),
//     rather than the clock's current value: both are correct (i's next
//     request has a larger timestamp than either); the former keeps
//     token[j] equal to j's last granted request, which the invariants check.
//   - A node that enters with the idle token sends no request and changes no
//     number (the survey: "can enter its critical section without the need
//     to send a request message").
//   - A token that arrives at a node that is not asking (it cannot happen)
//     is released as on exit_cs.
//   - Unbounded timestamps (int64).
//   - Failures: none handled. Crash stops the node (Up false, every input
//     ignored); Recover puts it back in its initial state. Runs with crashes
//     are refused for this algorithm.
//
// Channels need not be FIFO.
package ratoken
